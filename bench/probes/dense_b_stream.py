"""Probe driver (docs/BENCHMARKS.md, "Where issue 5 stands": the probe of
tall blocks that stream B densely): the hand-written dense-B-stream kernel of dense_b_stream.cu
against PIT's 16x16 libraries and cuBLAS, in one process.

Build here:  nvcc -O3 -arch=sm_90a -std=c++17 -shared -Xcompiler -fPIC \
               -o build/probes/libdense_b_stream.so \
               bench/probes/dense_b_stream.cu -lcuda
             scripts/bench.sh compile
On the GPU machine (carry build/probes and build/bench):
  python bench/probes/dense_b_stream.py --sparsity 0.9 0.99 \
      --configs 16:1:0 16:1:3 16:1:8 [--no-pit]
A config is stages:cluster:mode (mode: see dense_b_stream.cu). Each is
checked against float64 on fresh inputs (modes that skip work report the
error they make), and timed as device time a call (the profiler's, median
of three medians of 20 calls over three fresh patterns)."""
import argparse, ctypes, statistics, sys
sys.path[:0] = ["bench", "test/GPU"]
import torch, cases
from compiled_library import Kernel, relative_error
from profiling import lend_torch_stream, matmul_inputs, device_work_per_call
from run_benchmark import device_busy_us

n = cases.SIZE


def index16(a):
    """The unordered index of A's 16x16 micro-tiles: counts per 16-row
    block and, per block, its non-zero micro-tile columns first, shuffled."""
    mask = a.view(n // 16, 16, n // 16, 16).abs().sum((1, 3)) != 0
    keys = torch.where(mask, torch.rand(mask.shape, device="cuda"), 2.0)
    return mask.sum(1).int().contiguous(), keys.argsort(1).int().contiguous()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--sparsity", type=float, nargs="+", default=[0.9, 0.95, 0.99])
    parser.add_argument("--configs", nargs="+", default=["8:1:0", "16:1:0", "8:2:0", "16:2:0"])
    parser.add_argument("--no-pit", action="store_true")
    args = parser.parse_args()
    lend_torch_stream("build/bench")
    probe = ctypes.CDLL("build/probes/libdense_b_stream.so")
    probe.bstream16_run.argtypes = [ctypes.c_void_p] * 5 + [ctypes.c_int] * 7 + [ctypes.c_void_p]

    def run(x, stages, cluster, mode):
        a, b, c, counts, positions = x
        rc = probe.bstream16_run(a.data_ptr(), b.data_ptr(), c.data_ptr(), counts.data_ptr(),
                                 positions.data_ptr(), n, n, n, n // 16, stages, cluster, mode,
                                 torch.cuda.current_stream().cuda_stream)
        if rc:
            raise RuntimeError(f"bstream16_run returned {rc}")

    pit = {} if args.no_pit else {
        name: Kernel(f"build/bench/matmul_f16_16x16__{name}.so") for name in ("16x256x32", "select")}
    for sparsity in args.sparsity:
        inputs = []
        for _ in range(3):
            a, b, c = matmul_inputs(n, [16, 16], sparsity)
            inputs.append((a, b, c) + index16(a))
        a, b, c = inputs[0][:3]
        ref = a.double() @ b.double()
        print(f"{sparsity}:")
        for config in args.configs:
            stages, cluster, mode = map(int, config.split(":"))
            c.zero_()
            run(inputs[0], stages, cluster, mode)
            torch.cuda.synchronize()
            error = relative_error(c, ref)
            us = statistics.median(device_busy_us(lambda x: run(x, stages, cluster, mode), inputs, 20)
                                   for _ in range(3))
            print(f"  probe {config}: {us:.1f} us, error {error:.1e}", flush=True)
        for name, kernel in pit.items():
            c.zero_()
            kernel(a, b, c)
            torch.cuda.synchronize()
            error = relative_error(c, ref)
            us = statistics.median(device_busy_us(lambda x: kernel(*x[:3]), inputs, 20) for _ in range(3))
            calls = device_work_per_call(lambda: kernel(a, b, c), 20)
            spans = [statistics.median(e[i].time_range.end - e[i].time_range.start for e in calls)
                     for i in range(len(calls[0]))]
            print(f"  pit {name}: {us:.1f} us, error {error:.1e}; kernels (us) "
                  + " ".join(f"{v:.1f}" for v in spans), flush=True)
        us = statistics.median(device_busy_us(lambda x: torch.matmul(x[0], x[1]), inputs, 20) for _ in range(3))
        print(f"  cublas: {us:.1f} us", flush=True)


if __name__ == "__main__":
    main()
