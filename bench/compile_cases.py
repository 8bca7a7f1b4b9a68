"""Compile step of the benchmark, on the machine without a GPU: compiles
every kernel of cases.py with pit-compile into OUT/NAME.so, next to a copy of
libpit_cuda_runtime.so.

    python3 bench/compile_cases.py BUILD_DIR OUT_DIR [--sweep] [--table FILE]

For each matmul case it compiles the libraries forced to each variant of
the STile database, the dense tiles of cases.DENSE_TILES (NAME__MxNxK.so)
and the dense fallback (NAME__dense.so): the latency tables and the oracle
time them. When an STile database for the device is given or is in
bench/tables/, it also compiles the library that chooses at run time
(NAME__select.so), and the names of the variants it chooses among
(NAME__select.json, in the numbering of its choice). --sweep adds the block
shapes of cases.VARIANTS (OUT_DIR/variants/).
"""

import argparse
import json
import pathlib
import re
import shutil
import subprocess
import sys

import cases

# The GPU machines are H100/H200: sm_90a, whose wgmma the dense blocks use.
CHIP = "sm_90a"


def compile_one(build, out, name, text, pit_loop, extra=()):
    """pit-compile one case; returns its remarks (stderr)."""
    source = out / f"{name}.mlir"
    source.write_text(text)
    command = [str(build / "bin" / "pit-compile"), str(source), "-o",
               str(out / f"{name}.so"), "--chip", CHIP, "--format", "bin",
               "--pit-loop", str(pit_loop), *extra]
    result = subprocess.run(command, check=True, stderr=subprocess.PIPE,
                            text=True)
    sys.stderr.write(result.stderr)
    source.unlink()
    return result.stderr


def selected_variants(remarks):
    """The names (cases.tile_name, and "dense") of the variants a selecting
    library chooses among, in the numbering of its choice
    (pitCudaLastChoice), from pit-sparsify's remark (without one, the
    library stays dense)."""
    line = next((line for line in remarks.splitlines()
                 if "chooses at run time among" in line), "")
    variants = re.findall(
        r"variant \d+ \(\S+ along loop \d+, (?:default )?tile (\S+?)"
        r"(?:, panel (\d+))?(, rows grouped)?\)", line)
    return [tile + (f"p{panel}" if panel else "") + ("g" if grouped else "")
            for tile, panel, grouped in variants] + ["dense"]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("build", type=pathlib.Path)
    parser.add_argument("out", type=pathlib.Path)
    parser.add_argument("--sweep", action="store_true")
    parser.add_argument("--table", type=pathlib.Path,
                        default=cases.table_path("NVIDIA H100 80GB HBM3"))
    options = parser.parse_args()
    build, out = options.build, options.out
    out.mkdir(parents=True, exist_ok=True)
    shutil.copy(build / "lib" / "libpit_cuda_runtime.so", out)
    skeleton = out / "skeleton-table.json"
    skeleton.write_text(json.dumps(cases.skeleton_table(), indent=1))
    has_table = options.table.exists()
    measured_ops = ({entry["op"] for entry in json.loads(options.table.read_text())["ops"]}
                    if has_table else set())
    for name, text, pit_loop in cases.sources():
        for number in range(len(cases.case_tiles(name)) + 1):
            library = cases.variant_library(name, number)
            remarks = compile_one(build, out, library.removesuffix(".so"), text,
                                  pit_loop, ["--latency-table", str(skeleton),
                                             "--variant", str(number)])
            # A tile left out would shift the numbering of the rest.
            if "left out" in remarks:
                sys.exit(f"{name}: a tile of cases.case_tiles does not fit")
        # A table measured before the SDDMM cases had variants has no entry
        # for them: their forced libraries are all there is.
        if cases.case_op_key(name) in measured_ops:
            remarks = compile_one(build, out, f"{name}__select", text, pit_loop,
                                  ["--latency-table", str(options.table)])
            (out / f"{name}__select.json").write_text(
                json.dumps(selected_variants(remarks)))
        print(f"{name}: compiled", flush=True)
    print(f"run-time selection: "
          f"{'with ' + str(options.table) if has_table else 'no table yet'}")
    if not options.sweep:
        return
    (out / "variants").mkdir(exist_ok=True)
    for name, text, pit_loop, variant in cases.variant_sources():
        columns, chunk, stages = variant
        compile_one(build, out / "variants", name, text, pit_loop,
                    ["--mma-block-columns", str(columns), "--mma-chunk",
                     str(chunk), "--mma-stages", str(stages)])
    print(f"{len(cases.variant_sources())} variants compiled", flush=True)


if __name__ == "__main__":
    main()
