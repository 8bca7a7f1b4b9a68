"""Choosing from a sample (pit-sparsify's sample-every, default 16) against
choosing from the full detection (sample-every=0), f16 4096^3, timed in turn
with the dense fallback forced, so that all three see the same state of the
machine.

    python3 bench/compare_sampling.py compile   # here, after scripts/bench.sh compile
    python3 bench/compare_sampling.py run       # GPU machine, build/bench carried

`compile` builds the full-detection selecting libraries into
build/bench/full/ from the same STile database as build/bench's
*__select.so; `run` prints, per case and sparsity, the medians (ms) and
full / sampled."""

import argparse
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import cases  # noqa: E402

BENCH = pathlib.Path("build/bench")
FULL = BENCH / "full"
SPARSITIES = [0.5, 0.9, 0.99]
REPS = 40


def f16_cases():
    return [case for case in cases.matmul_cases() if case[1] == "f16"]


def compile_full():
    import compile_cases
    FULL.mkdir(parents=True, exist_ok=True)
    table = cases.table_path("NVIDIA H100 80GB HBM3")
    names = {case[0] for case in f16_cases()}
    for name, text, pit_loop in cases.sources():
        if name in names:
            compile_cases.compile_one(pathlib.Path("build"), FULL, f"{name}__select",
                                      text, pit_loop, ["--latency-table", str(table),
                                                       "--sample-every", "0"])
            print(f"{name}: compiled", flush=True)


def run():
    import torch
    from profiling import lend_torch_stream
    from run_benchmark import PITKernel, medians_ms, random, sparsify, warm_up
    lend_torch_stream(BENCH)
    warm_up()
    n = cases.SIZE
    for name, _, micro, _, _ in f16_cases():
        tiles = cases.DENSE_TILES[micro]
        kernels = {"sampled": PITKernel(BENCH / f"{name}__select.so"),
                   "full": PITKernel(FULL / f"{name}__select.so"),
                   "dense": PITKernel(BENCH / cases.variant_library(name, len(tiles)))}
        b = random(n, n, dtype=torch.float16)
        c = random(n, n, dtype=torch.float16)
        shape = [int(e) for e in micro.split("x")]
        for sparsity in SPARSITIES:
            inputs = [sparsify(random(n, n, dtype=torch.float16), shape, sparsity)
                      for _ in range(6)]
            times = medians_ms([lambda a, k=k: k(a, b, c) for k in kernels.values()],
                               inputs, REPS)
            print(f"{name} {sparsity}: "
                  + "  ".join(f"{key} {t:.4f}" for key, t in zip(kernels, times))
                  + f"  full/sampled {times[1] / times[0]:.3f}", flush=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("step", choices=["compile", "run"])
    if parser.parse_args().step == "compile":
        compile_full()
    else:
        run()


if __name__ == "__main__":
    main()
