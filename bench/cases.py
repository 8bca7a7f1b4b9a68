"""The benchmark's cases (issue 5): one .mlir per compiled PIT kernel, written
from the templates the GPU check uses, so that both compile the same
programs. Shared by the compile step (here) and the run step (on the GPU
machine)."""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "test" / "GPU"))
import kernels  # noqa: E402

SIZE = 4096
SPARSITIES = [0.0, 0.5, 0.9, 0.95, 0.99]
# Micro-tiles of A, with the loop PIT gathers along (2 = k, 0 = m) and the
# block size Triton's BSR kernels get (they need blocks of at least 16).
MATMUL_GRANULARITIES = [
    ("32x1", 2, (32, 16)),
    ("1x64", 0, (16, 64)),
    ("16x16", 2, (16, 16)),
    ("32x64", 2, (32, 64)),
]
# The STile database's variants of each micro-tile: the dense tiles (m, n,
# k) its STile may run, each measured and kept as is (pit.stile keep_tile).
# Gathered along k the rows are the micro-tile's; the block columns and the
# chunk of compacted k vary. Gathered along m (1x64) k is the micro-tile's;
# a block owns a panel of C's rows (the fourth number: pit.stile panel) and
# keeps its sums there in f32. C has the inputs' type, as torch.matmul's
# output does, so partial sums added into C with atomics would round at
# every add: the compiler leaves such tiles to the SIMT lowering. 512 rows
# of 64 columns fill units of 64 gathered rows 80% at 90% sparsity; 256
# rows of 64 or 128 columns half as much, with twice the blocks. A fifth
# entry "grouped" has the panels group the rows that share segments
# (pit.stile group_rows): fuller units at 99%, two more small kernels.
DENSE_TILES = {
    "32x1": [(32, 256, 32), (32, 128, 32), (32, 256, 64)],
    "1x64": [(64, 64, 64, 512), (64, 64, 64, 256), (64, 128, 64, 256),
             (64, 64, 64, 512, "grouped")],
    "16x16": [(16, 256, 32), (16, 128, 32), (16, 256, 64)],
    "32x64": [(32, 256, 64), (32, 128, 64), (32, 128, 128)],
}
# The SDDMM mask's micro-tiles, with the loop PIT gathers along (1 = n: B's
# columns come with the mask's; 0 = m: A's rows), and the variants of the
# STile database for each: the STile's own tile (pit-sparsify's, whose
# block covers 32 gathered columns or rows), and the dense fallback.
SDDMM_GRANULARITIES = [("32x1", 1), ("1x64", 0)]
SDDMM_KS = [64, 128]
SDDMM_TILES = {"32x1": [(32, 32, 64)], "1x64": [(32, 64, 64)]}


# Run-time selection. The STile database measured on a GPU (written by
# run_benchmark.py --tables, one file per device), the coverage points its
# tables are measured at, and the skeleton (same variants, no latencies)
# that the forced libraries are compiled with to measure it.
TABLE_DIR = pathlib.Path(__file__).resolve().parent / "tables"
TABLE_COVERAGE = [0.0, 0.01, 0.05, 0.1, 0.2, 0.5, 1.0]


def table_path(device):
    """bench/tables/DEVICE.json for a device name from torch or nvidia-smi."""
    return TABLE_DIR / (device.replace(" ", "-") + ".json")


def op_key(dtype):
    """The key the STile database gives the benchmark's matmul under
    (STileDatabase::getKey)."""
    return f"linalg.matmul {SIZE}x{SIZE}x{SIZE} {dtype},{dtype},{dtype}"


def sddmm_op_key(k):
    """The same for the benchmark's SDDMM with a k of `k` (f16 throughout)."""
    return f"linalg.generic {SIZE}x{SIZE}x{k} f16,f16,f16,f16"


def skeleton_table():
    """A database with every variant of the matmul and SDDMM cases and no
    latencies: enough to compile a library forced to one variant
    (pit-compile --variant), whatever the latencies. A case's variants are
    numbered as in case_tiles, dense after them."""
    ops = {}
    for key, micro, loop, tiles in ([(op_key(dtype), micro, loop, DENSE_TILES[micro])
                                     for _, dtype, micro, loop, _ in matmul_cases()]
                                    + [(sddmm_op_key(k), micro, loop, SDDMM_TILES[micro])
                                       for _, k, micro, loop in sddmm_cases()]):
        entry = ops.setdefault(key, {"op": key, "dense_us": 0.0, "variants": []})
        for tile in tiles:
            entry["variants"].append({"micro_tile": [int(e) for e in micro.split("x")],
                                      "pit_loop": loop, **variant_fields(tile),
                                      "latency_us": [0.0] * len(TABLE_COVERAGE)})
    return {"device": "none (skeleton)", "coverage": TABLE_COVERAGE,
            "ops": list(ops.values())}


def tile_name(tile):
    """A dense tile as text: 32x256x32, or 64x64x64p512 with a panel, and
    64x64x64p512g with its rows grouped."""
    name = "x".join(map(str, tile[:3]))
    if len(tile) > 3:
        name += f"p{tile[3]}"
    return name + ("g" if len(tile) > 4 else "")


def variant_fields(tile):
    """The fields of a DENSE_TILES entry in the STile database."""
    fields = {"dense_tile": list(tile[:3])}
    if len(tile) > 3:
        fields["panel"] = tile[3]
    if len(tile) > 4:
        fields["group_rows"] = True
    return fields


def case_op_key(name):
    """The STile database's key of case `name` (matmul_DTYPE_MICRO or
    sddmm_kK_MICRO)."""
    kind, size, _ = name.split("_")
    return sddmm_op_key(int(size[1:])) if kind == "sddmm" else op_key(size)


def case_tiles(name):
    """The dense tiles of the variants of case `name`: DENSE_TILES of its
    micro-tile, or SDDMM_TILES for an SDDMM."""
    micro = name.split("_")[-1]
    return (SDDMM_TILES if name.startswith("sddmm_") else DENSE_TILES)[micro]


def variant_number(name, variant):
    """The number (case_tiles order) of a database variant of case `name`."""
    numbers = [number for number, tile in enumerate(case_tiles(name))
               if variant_fields(tile) == {key: variant[key]
                                           for key in ("dense_tile", "panel", "group_rows")
                                           if key in variant}]
    return numbers[0]


def case_libraries(name):
    """The libraries of case `name` by variant: its tiles (tile_name),
    "dense", and "select", the one that chooses at run time (compiled only
    where the STile database has the case)."""
    tiles = case_tiles(name)
    libraries = {tile_name(tile): variant_library(name, number)
                 for number, tile in enumerate(tiles)}
    libraries["dense"] = variant_library(name, len(tiles))
    libraries["select"] = f"{name}__select.so"
    return libraries


def variant_library(name, number):
    """The library of case `name` forced to its variant `number`
    (case_tiles order; their number is dense)."""
    tiles = case_tiles(name)
    if number == len(tiles):
        return f"{name}__dense.so"
    return f"{name}__{tile_name(tiles[number])}.so"


def matmul_cases():
    """(name, dtype, micro, pit_loop, bsr_block) for every matmul case."""
    out = []
    for dtype in ["f16", "bf16"]:
        for micro, loop, block in MATMUL_GRANULARITIES:
            out.append((f"matmul_{dtype}_{micro}", dtype, micro, loop, block))
    return out


def sddmm_cases():
    """(name, k, micro, pit_loop) for every SDDMM case."""
    return [(f"sddmm_k{k}_{micro}", k, micro, loop)
            for k in SDDMM_KS for micro, loop in SDDMM_GRANULARITIES]


def sources():
    """(name, mlir text, pit_loop) of every kernel to compile."""
    out = []
    for name, dtype, micro, loop, _ in matmul_cases():
        out.append((name, kernels.MATMUL_CLEARED.format(
            m=SIZE, n=SIZE, k=SIZE, t=dtype, ct=dtype, mt=micro), loop))
    # SDDMM's C is f16 too, as dense-then-mask's is.
    for name, k, micro, loop in sddmm_cases():
        out.append((name, kernels.SDDMM_HALF_C.format(
            m=SIZE, n=SIZE, k=k, t="f16", mt=micro), loop))
    return out


# Shapes of the tensor-core block that the variant sweep compiles for each
# f16 matmul case: (block columns, chunk of compacted k, stages).
VARIANTS = [(columns, chunk, stages)
            for columns in [64, 128, 256]
            for chunk in [32, 64]
            for stages in [2, 3, 4]]


def variant_name(case, variant):
    columns, chunk, stages = variant
    return f"{case}__n{columns}_k{chunk}_s{stages}"


def variant_sources():
    """(name, mlir text, pit_loop, variant) of every kernel of the sweep."""
    out = []
    for name, dtype, micro, loop, _ in matmul_cases():
        if dtype != "f16":
            continue
        text = kernels.MATMUL_CLEARED.format(m=SIZE, n=SIZE, k=SIZE, t=dtype,
                                             ct=dtype, mt=micro)
        for variant in VARIANTS:
            out.append((variant_name(name, variant), text, loop, variant))
    return out
