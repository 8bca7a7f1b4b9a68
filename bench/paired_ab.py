"""An A/B of two builds of the same benchmark libraries, end to end: each
call comes right after a cuBLAS matmul (torch.matmul) on its own inputs and
is timed between CUDA events, synchronised, the two builds alternating
which goes first every round, so that drift of the machine cancels. Prints
each build's median and the median of the paired differences (new - old):

    OLD=DIR NEW=DIR python3 bench/paired_ab.py LIBRARY:MICRO-TILE:SPARSITY ...

LIBRARY is a library name without `.so` present in both directories (for
example `matmul_f16_32x1__select`), for an f16 4096^3 matmul whose A gets a
fresh random pattern of MICRO-TILE at SPARSITY (four input sets in turn).
The runtime is lent torch's stream, as in the benchmark. Both directories'
libraries run on one runtime, the first libpit_cuda_runtime.so loaded
(they name it by one soname): this compares what the compiler built, not a
change of the runtime (time those one process a directory)."""

import os
import pathlib
import statistics
import sys

import torch

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import cases  # noqa: E402  (puts the shared helpers on the path)
from compiled_library import Kernel  # noqa: E402
from profiling import lend_torch_stream, matmul_inputs  # noqa: E402

ROUNDS = 200
INPUT_SETS = 4


def timed_after_cublas(kernel, inputs):
    """Microseconds of kernel(*inputs) between events, right after a cuBLAS
    matmul of the same A and B."""
    torch.matmul(inputs[0], inputs[1], out=inputs[2])
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    start.record()
    kernel(*inputs)
    end.record()
    end.synchronize()
    return 1000 * start.elapsed_time(end)


def main():
    old_dir, new_dir = os.environ["OLD"], os.environ["NEW"]
    lend_torch_stream(new_dir)
    for argument in sys.argv[1:]:
        library, micro, sparsity = argument.split(":")
        micro_tile = [int(extent) for extent in micro.split("x")]
        inputs = [matmul_inputs(cases.SIZE, micro_tile, float(sparsity))
                  for _ in range(INPUT_SETS)]
        old = Kernel(f"{old_dir}/{library}.so")
        new = Kernel(f"{new_dir}/{library}.so")
        # Twice each input: the second call records the graph the later
        # ones launch.
        for i in range(2 * INPUT_SETS):
            old(*inputs[i % INPUT_SETS])
            new(*inputs[i % INPUT_SETS])
        old_us, new_us = [], []
        for r in range(ROUNDS):
            x = inputs[r % INPUT_SETS]
            if r % 2:
                old_us.append(timed_after_cublas(old, x))
                new_us.append(timed_after_cublas(new, x))
            else:
                new_us.append(timed_after_cublas(new, x))
                old_us.append(timed_after_cublas(old, x))
        paired = statistics.median(b - a for a, b in zip(old_us, new_us))
        print(f"{library} {sparsity}: old {statistics.median(old_us):.1f} "
              f"new {statistics.median(new_us):.1f} us, new-old paired "
              f"median {paired:+.2f} us", flush=True)


if __name__ == "__main__":
    main()
