"""Where the device time of compiled benchmark libraries goes: each kernel
(and memset) of a call in launch order, and the idle gaps between them
(torch profiler, medians of 20 calls), with cuBLAS timed in the same run:

    python3 bench/profile_kernels.py build/bench/matmul_f16_16x16__select.so:16x16:0.9 ...

Each argument is LIBRARY:MICRO-TILE:SPARSITY, for an f16 4096^3 matmul
library of the benchmark (its A gets a fresh random pattern of that
micro-tile and sparsity). The runtime is lent torch's stream, as in the
benchmark: calls are stream-ordered, so the gaps are the GPU's own."""

import pathlib
import statistics
import sys

import torch

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import cases  # noqa: E402,F401  (puts the shared helpers on the path)
from compiled_library import Kernel  # noqa: E402
from profiling import device_work_per_call, lend_torch_stream, matmul_inputs  # noqa: E402

CALLS = 20


def profile(library, micro, sparsity):
    n = cases.SIZE
    a, b, c = matmul_inputs(n, micro, sparsity)
    kernel = Kernel(library)
    calls = device_work_per_call(lambda: kernel(a, b, c), CALLS)
    count = len(calls[0])
    durations = [statistics.median(events[i].time_range.elapsed_us()
                                   for events in calls) for i in range(count)]
    gaps = [statistics.median(events[i + 1].time_range.start
                              - events[i].time_range.end for events in calls)
            for i in range(count - 1)]
    span = statistics.median(events[-1].time_range.end - events[0].time_range.start
                             for events in calls)
    print(f"{pathlib.Path(library).name} {'x'.join(map(str, micro))} {sparsity} "
          f"kernels(us): {[round(d, 1) for d in durations]} "
          f"gaps(us): {[round(g, 1) for g in gaps]} span {span:.1f}")


def cublas_ms():
    n = cases.SIZE
    a = torch.randn(n, n, device="cuda", dtype=torch.float16)
    b = torch.randn(n, n, device="cuda", dtype=torch.float16)
    times = []
    for _ in range(40):
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        torch.matmul(a, b)
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return statistics.median(times[10:])


def main():
    lend_torch_stream(pathlib.Path(sys.argv[1].split(":")[0]).parent)
    for argument in sys.argv[1:]:
        library, micro, sparsity = argument.split(":")
        profile(library, [int(e) for e in micro.split("x")], float(sparsity))
    print(f"cuBLAS f16 {cases.SIZE}^3 (torch.matmul, events, median of 30): "
          f"{cublas_ms():.3f} ms")


if __name__ == "__main__":
    main()
