"""The shape suite of issue 41: C = A x B on the projections of real models,
PIT against cuBLAS on the same inputs, in two steps.

    python3 bench/suite.py compile BUILD_DIR OUT_DIR     # here, no GPU
    python3 bench/suite.py run OUT_DIR [--reps N]        # on the GPU machine
    python3 bench/suite.py report OUT_DIR/suite.json     # the tables, markdown

Shapes: Llama-3-8B's projections (4096->4096, 4096->1024, 4096->14336,
14336->4096) and OPT-6.7B's FFN (4096->16384, 16384->4096), at M = 1024,
4096 and 16384 tokens; and, held out of every measurement the strategy's
constants come from, Llama-2-13B's (5120->5120, 5120->13824, 13824->5120)
at M = 512, 2048 and 8192. A is M x K (the activations), B is K x N.

For each shape the compile step builds, with pit-compile for sm_90a:
- the dense kernel with each block of DENSE_BLOCKS (an explicit
  #pit.mma_config) and with the strategy's own choice ("strategy");
- the STile of each micro-tile of MICRO_TILES on A (no run-time selection:
  the STile alone, its tile the strategy's).
The run step checks every library against torch in float32 or float64 on
fresh random data (C poisoned first), then times each with cuBLAS
(torch.matmul) in turn, round by round, on the same masked inputs: the
dense libraries on dense A, the STiles at each sparsity of SPARSITIES.
Prints one line a measurement and writes OUT_DIR/suite.json.
"""

import argparse
import json
import math
import pathlib
import subprocess
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "test" / "GPU"))
import kernels  # noqa: E402

CHIP = "sm_90a"
MODEL_LAYERS = [
    ("llama3-8b q/o", 4096, 4096),
    ("llama3-8b k/v", 4096, 1024),
    ("llama3-8b up/gate", 4096, 14336),
    ("llama3-8b down", 14336, 4096),
    ("opt-6.7b fc1", 4096, 16384),
    ("opt-6.7b fc2", 16384, 4096),
]
TOKENS = [1024, 4096, 16384]
HELD_OUT_LAYERS = [
    ("llama2-13b q/o", 5120, 5120),
    ("llama2-13b up/gate", 5120, 13824),
    ("llama2-13b down", 13824, 5120),
]
HELD_OUT_TOKENS = [512, 2048, 8192]
DENSE_BLOCKS = [(128, 256), (128, 128), (64, 256), (64, 128)]
# Micro-tiles of A and the loop PIT gathers along (2 = k, 0 = m).
MICRO_TILES = [("32x1", 2), ("1x64", 0), ("16x16", 2), ("32x64", 2)]
SPARSITIES = [0.5, 0.9, 0.99]
DTYPE = "f16"

SPARSE_MARK = "linalg.matmul {{pit.sparse = #pit.sparse<operand = 0, micro_tiles = [{mt}]>}}"
DENSE_CLEARED = kernels.MATMUL_CLEARED.replace(SPARSE_MARK, "linalg.matmul {config}")
# The other forms, dense, as the strategy lowers them: linalg.matmul's own
# C += A x B (against cuBLAS's in-place addmm), and y = x W^T with W in
# nn.Linear's layout, N x K (against F.linear).
DENSE_ACCUMULATE = kernels.MATMUL.replace(SPARSE_MARK, "linalg.matmul")
DENSE_TRANSPOSED_B = """func.func @kernel(%a: memref<{m}x{k}x{t}>, %w: memref<{n}x{k}x{t}>, %c: memref<{m}x{n}x{t}>) {{
  %zero = arith.constant 0.0 : {t}
  linalg.fill ins(%zero : {t}) outs(%c : memref<{m}x{n}x{t}>)
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%a, %w : memref<{m}x{k}x{t}>, memref<{n}x{k}x{t}>) outs(%c : memref<{m}x{n}x{t}>)
  return
}}
"""
FORMS = {"accumulate": DENSE_ACCUMULATE, "transposed_b": DENSE_TRANSPOSED_B}


def shapes():
    """(name, m, k, n) of every shape of the suite."""
    return ([(f"m{m}_k{k}_n{n}", m, k, n) for _, k, n in MODEL_LAYERS for m in TOKENS]
            + [(f"m{m}_k{k}_n{n}", m, k, n)
               for _, k, n in HELD_OUT_LAYERS for m in HELD_OUT_TOKENS])


def is_held_out(row):
    return row["m"] in HELD_OUT_TOKENS


def dense_config(block):
    rows, columns = block
    return ("{pit.mma_config = #pit.mma_config<block = [%d, %d, 64], stages = 3, "
            "specialize = true, tensor_copies = true, cluster_blocks = 2>}"
            % (rows, columns))


# 1x64 gathered along m needs a panel where C has the inputs' type (rows
# added into C with atomics would round at every add); only a variant of the
# STile database sets one today: a one-variant table, forced.
PANEL_VARIANT = {"micro_tile": [1, 64], "pit_loop": 0, "dense_tile": [64, 64, 64],
                 "panel": 512, "latency_us": [0.0, 0.0]}


def panel_table(m, k, n):
    key = f"linalg.matmul {m}x{n}x{k} {DTYPE},{DTYPE},{DTYPE}"
    return {"device": "none (forced)", "coverage": [0.0, 1.0],
            "ops": [{"op": key, "dense_us": 0.0, "variants": [PANEL_VARIANT]}]}


def libraries(m, k, n):
    """(library stem, mlir text, pit loop) of one shape."""
    params = dict(m=m, n=n, k=k, t=DTYPE, ct=DTYPE)
    out = [(f"dense_{r}x{c}", DENSE_CLEARED.format(config=dense_config((r, c)), **params), 2)
           for r, c in DENSE_BLOCKS if m % r == 0 and n % c == 0]
    out.append(("dense_strategy", DENSE_CLEARED.format(config="", **params), 2))
    out += [(f"form_{form}", text.format(**params), 2) for form, text in FORMS.items()]
    out += [(f"stile_{micro}", kernels.MATMUL_CLEARED.format(mt=micro, **params), loop)
            for micro, loop in MICRO_TILES]
    return out


def compile_suite(build, out):
    out.mkdir(parents=True, exist_ok=True)
    (out / "libpit_cuda_runtime.so").write_bytes(
        (build / "lib" / "libpit_cuda_runtime.so").read_bytes())
    refused = {}
    for name, m, k, n in shapes():
        for stem, text, loop in libraries(m, k, n):
            source = out / f"{name}__{stem}.mlir"
            source.write_text(text)
            extra = []
            if stem == "stile_1x64":
                table = out / "panel-table.json"
                table.write_text(json.dumps(panel_table(m, k, n)))
                extra = ["--latency-table", str(table), "--variant", "0"]
            result = subprocess.run(
                [str(build / "bin" / "pit-compile"), str(source), "-o",
                 str(out / f"{name}__{stem}.so"), "--chip", CHIP, "--format", "bin",
                 "--pit-loop", str(loop), *extra], capture_output=True, text=True)
            source.unlink()
            if result.returncode:
                refused[f"{name}__{stem}"] = result.stderr.strip().splitlines()[-1]
                print(f"{name}__{stem}: refused: {refused[f'{name}__{stem}']}")
    (out / "refused.json").write_text(json.dumps(refused, indent=1))


def run_suite(directory, reps):
    import torch
    from compiled_library import TOLERANCE, Kernel, relative_error, sparsify
    from run_benchmark import medians_ms, random
    from profiling import lend_torch_stream

    lend_torch_stream(directory)
    dtype = torch.float16
    results = []

    def check(kernel, a, b, c, ref):
        c.copy_(random(*c.shape, dtype=dtype))
        kernel(a, b, c)
        torch.cuda.synchronize()
        return relative_error(c, ref)

    def reference(a, b):
        high = torch.float64 if a.shape[0] * a.shape[1] * b.shape[1] <= 1 << 36 else torch.float32
        return (a.to(high) @ b.to(high)).double()

    for name, m, k, n in shapes():
        b = random(k, n, dtype=dtype)
        c = torch.empty(m, n, dtype=dtype, device="cuda")
        dense_a = [random(m, k, dtype=dtype) for _ in range(2)]
        ref = reference(dense_a[0], b)
        libs = {stem: Kernel(directory / f"{name}__{stem}.so")
                for stem, _, _ in libraries(m, k, n)
                if (directory / f"{name}__{stem}.so").exists()}
        dense = {s: kern for s, kern in libs.items() if s.startswith("dense_")}
        errors = {s: check(kern, dense_a[0], b, c, ref) for s, kern in dense.items()}
        fns = [lambda a: torch.matmul(a, b)] + [
            (lambda kern: lambda a: kern(a, b, c))(kern) for kern in dense.values()]
        times = medians_ms(fns, dense_a, reps)
        row = {"shape": name, "m": m, "k": k, "n": n, "sparsity": 0.0, "cublas": times[0],
               "dense": dict(zip(dense, times[1:])), "errors": errors}
        results.append(row)
        print(json.dumps(row), flush=True)
        del ref
        row = {"shape": name, "m": m, "k": k, "n": n, "sparsity": 0.0, "forms": {}}
        for form in FORMS:
            row["forms"][form] = time_form(form, libs.get(f"form_{form}"), dense_a, b, c,
                                           reps, reference, medians_ms, random)
        results.append(row)
        print(json.dumps(row), flush=True)
        for sparsity in SPARSITIES:
            for micro, _ in MICRO_TILES:
                stem = f"stile_{micro}"
                if stem not in libs:
                    continue
                shape = [int(e) for e in micro.split("x")]
                inputs = [sparsify(random(m, k, dtype=dtype), shape, sparsity) for _ in range(3)]
                error = check(libs[stem], inputs[0], b, c, reference(inputs[0], b))
                kern = libs[stem]
                times = medians_ms([lambda a: torch.matmul(a, b), lambda a: kern(a, b, c)],
                                   inputs, reps)
                row = {"shape": name, "m": m, "k": k, "n": n, "sparsity": sparsity,
                       "micro": micro, "cublas": times[0], "stile": times[1], "error": error,
                       "ok": error < TOLERANCE[dtype]}
                results.append(row)
                print(json.dumps(row), flush=True)
                del inputs
        torch.cuda.empty_cache()
    (directory / "suite.json").write_text(json.dumps(results, indent=1))
    summarize(results)


def time_form(form, kern, inputs, b, c, reps, reference, medians_ms, random):
    """cuBLAS / PIT and PIT's error for one of FORMS, or None without a
    library; with no more than 3 rounds (a form PIT runs as SIMT kernels
    takes seconds a call at the largest shapes)."""
    import torch
    from compiled_library import relative_error
    if kern is None:
        return None
    if form == "accumulate":
        start = random(*c.shape, dtype=c.dtype)
        c.copy_(start)
        kern(inputs[0], b, c)
        torch.cuda.synchronize()
        error = relative_error(c, start.double() + reference(inputs[0], b))
        peer, mine = (lambda a: c.addmm_(a, b)), (lambda a: kern(a, b, c))
    else:
        weight = b.t().contiguous()
        c.copy_(random(*c.shape, dtype=c.dtype))
        kern(inputs[0], weight, c)
        torch.cuda.synchronize()
        error = relative_error(c, reference(inputs[0], b))
        peer = lambda a: torch.nn.functional.linear(a, weight)  # noqa: E731
        mine = lambda a: kern(a, weight, c)  # noqa: E731
    times = medians_ms([peer, mine], inputs, min(reps, 3))
    return {"cublas": times[0], "pit": times[1], "error": error}


def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values))


def summarize(results):
    """cuBLAS / PIT per library kind: worst case and geometric mean."""
    kinds = {}
    for row in results:
        if "forms" in row:
            for form, figures in row["forms"].items():
                if figures:
                    kinds.setdefault((f"form {form}", 0.0), []).append(
                        figures["cublas"] / figures["pit"])
            continue
        if row["sparsity"] == 0.0 and is_held_out(row):
            kinds.setdefault(("strategy, held out", 0.0), []).append(
                row["cublas"] / row["dense"]["dense_strategy"])
        if row["sparsity"] == 0.0:
            for stem, ms in row["dense"].items():
                kinds.setdefault((stem, 0.0), []).append(row["cublas"] / ms)
            kinds.setdefault(("dense best block", 0.0), []).append(
                row["cublas"] / min(row["dense"].values()))
        else:
            kinds.setdefault((row["micro"], row["sparsity"]), []).append(
                row["cublas"] / row["stile"])
    print("\ncuBLAS / PIT (above 1: PIT faster), over the suite's shapes:")
    for (kind, sparsity), ratios in kinds.items():
        print(f"  {kind:18s} sparsity {sparsity:.2f}: worst {min(ratios):.2f}, "
              f"geomean {geomean(ratios):.2f}, best {max(ratios):.2f} ({len(ratios)} shapes)")


def report(results):
    """The suite's tables in markdown: per shape, cuBLAS's time and
    cuBLAS / PIT for each dense block and for each STile at each sparsity;
    then the summary."""
    dense = [r for r in results if r["sparsity"] == 0.0 and "dense" in r]
    blocks = list(dense[0]["dense"])
    print("| shape (M, K, N) | held out | cuBLAS ms | " + " | ".join(b[6:] for b in blocks) + " |")
    print("|---" * (3 + len(blocks)) + "|")
    for r in dense:
        print(f"| {r['m']}, {r['k']}, {r['n']} | {'yes' if is_held_out(r) else ''} | "
              f"{r['cublas']:.3f} | " + " | ".join(
                  f"{r['cublas'] / r['dense'][b]:.2f}" if b in r["dense"] else "-"
                  for b in blocks) + " |")
    forms = [r for r in results if "forms" in r]
    if forms:
        names = list(forms[0]["forms"])
        print("\n| shape (M, K, N) | " + " | ".join(
            f"{form}: cuBLAS ms | PIT ms | cuBLAS / PIT" for form in names) + " |")
        print("|---" * (1 + 3 * len(names)) + "|")
        for r in forms:
            print(f"| {r['m']}, {r['k']}, {r['n']} | " + " | ".join(
                f"{f['cublas']:.3f} | {f['pit']:.3f} | {f['cublas'] / f['pit']:.2f}"
                for f in r["forms"].values()) + " |")
    sparse = [r for r in results if r["sparsity"] > 0.0]
    columns = sorted({(r["sparsity"], r["micro"]) for r in sparse})
    table = {}
    for r in sparse:
        table.setdefault((r["m"], r["k"], r["n"]), {})[(r["sparsity"], r["micro"])] = (
            r["cublas"] / r["stile"])
    print("\n| shape (M, K, N) | " + " | ".join(f"{m} {s:.0%}" for s, m in columns) + " |")
    print("|---" * (1 + len(columns)) + "|")
    for shape, ratios in table.items():
        print(f"| {', '.join(map(str, shape))} | " + " | ".join(
            f"{ratios[c]:.2f}" for c in columns) + " |")
    summarize(results)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("step", choices=["compile", "run", "report"])
    parser.add_argument("dirs", nargs="+")
    parser.add_argument("--reps", type=int, default=20)
    args = parser.parse_args()
    if args.step == "compile":
        compile_suite(pathlib.Path(args.dirs[0]), pathlib.Path(args.dirs[1]))
    elif args.step == "run":
        run_suite(pathlib.Path(args.dirs[0]), args.reps)
    else:
        report(json.loads(pathlib.Path(args.dirs[0]).read_text()))


if __name__ == "__main__":
    main()
