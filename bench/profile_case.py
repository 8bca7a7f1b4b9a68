"""One compiled benchmark kernel, called for a profiler or for a breakdown
of where a call's time goes:

    ncu --kernel-name kernel_kernel --launch-skip 1 --launch-count 1 \\
        python3 bench/profile_case.py build/bench/matmul_f16_32x64__32x256x64.so 32x64 0.5
    python3 bench/profile_case.py build/bench/matmul_f16_32x64__32x256x64.so 32x64 0.99 --breakdown

(kernels of one call: detect, the STile; the counts are cleared with a
memset, so --launch-skip 1 picks the STile). --breakdown
prints, in ms, medians over back-to-back calls: the whole call from Python;
a refused call (Python, ctypes and the entry's checks, no GPU work); the
device time of the call's kernels and the span from its first kernel's start
to its last kernel's end (profiler)."""

import argparse
import statistics
import sys
import time

import torch

sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parent))
import cases  # noqa: E402,F401  (puts the shared helpers on the path)
from compiled_library import Kernel  # noqa: E402
from profiling import calls_busy_us, device_work_per_call, matmul_inputs  # noqa: E402

CALLS = 200


def wall_ms(fn):
    times = []
    for _ in range(CALLS):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)


def breakdown(kernel, a, b, c):
    call = wall_ms(lambda: kernel(a, b, c))
    wrong = b[: b.shape[0] // 2]

    def refused():
        try:
            kernel(a, wrong, c)
        except RuntimeError:
            pass
    refused_ms = wall_ms(refused)
    calls = device_work_per_call(lambda: kernel(a, b, c), 20)
    per_call = len(calls[0])
    busy = statistics.median(calls_busy_us(calls)) / 1e3
    span = statistics.median((ks[-1].time_range.end - ks[0].time_range.start) / 1e3
                             for ks in calls)
    print(f"call {call:.3f}  refused call {refused_ms:.3f}  kernels {busy:.3f}  "
          f"first-to-last kernel {span:.3f}  ({per_call} kernels a call)")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("library")
    parser.add_argument("micro")
    parser.add_argument("sparsity", type=float)
    parser.add_argument("--breakdown", action="store_true")
    options = parser.parse_args()
    n = cases.SIZE
    micro = [int(e) for e in options.micro.split("x")]
    a, b, c = matmul_inputs(n, micro, options.sparsity)
    torch.cuda.synchronize()
    kernel = Kernel(options.library)
    kernel(a, b, c)
    torch.cuda.synchronize()
    if options.breakdown:
        breakdown(kernel, a, b, c)


if __name__ == "__main__":
    main()
