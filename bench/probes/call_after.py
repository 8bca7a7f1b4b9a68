"""Probe: what a call of a benchmark library costs after what. Each call is
timed between CUDA events after one of: another call of the library (its
C's lines left dirty in L2, as in the benchmark's "PIT alone"), a 64 MiB
memset (L2 full of dirty lines), a 64 MiB read (a clean L2), both, a
cuBLAS matmul of other tensors, and another call followed by a read of the
next call's B, or of its A and B (what L2 could hold for it at best). All
of a case's 30 pairs are queued behind a sleeping kernel, so that the host
never sets the pace (it issues a call in about 9 us); medians:

    python3 bench/probes/call_after.py build/bench/LIBRARY:MICRO-TILE:SPARSITY ...

LIBRARY is an f16 4096^3 matmul library of the benchmark, without `.so`;
its A gets fresh random patterns of MICRO-TILE at SPARSITY (six input
sets in turn)."""

import pathlib
import statistics
import sys

import torch

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))
import cases  # noqa: E402  (puts the shared helpers on the path)
from compiled_library import Kernel  # noqa: E402
from profiling import lend_torch_stream, matmul_inputs  # noqa: E402

PAIRS = 30
INPUT_SETS = 6
SLEEP_CYCLES = 300_000_000


def median_after(pairs):
    """The median time (us) of each pair's call, right after its prelude."""
    events = [(torch.cuda.Event(enable_timing=True),
               torch.cuda.Event(enable_timing=True)) for _ in pairs]
    torch.cuda.synchronize()
    torch.cuda._sleep(SLEEP_CYCLES)
    for (start, end), (prelude, call) in zip(events, pairs):
        prelude()
        start.record()
        call()
        end.record()
    torch.cuda.synchronize()
    return statistics.median(1000 * start.elapsed_time(end)
                             for start, end in events)


def read(tensor):
    tensor.view(torch.int64).sum()


def main():
    libraries = [argument.split(":") for argument in sys.argv[1:]]
    lend_torch_stream(pathlib.Path(libraries[0][0]).parent)
    scratch = torch.empty(64 << 20, dtype=torch.uint8, device="cuda")
    other = matmul_inputs(cases.SIZE, [1, 1], 0.0)
    for library, micro, sparsity in libraries:
        micro_tile = [int(extent) for extent in micro.split("x")]
        kernel = Kernel(f"{library}.so")
        inputs = [matmul_inputs(cases.SIZE, micro_tile, float(sparsity))
                  for _ in range(INPUT_SETS)]
        for i in range(2 * INPUT_SETS):
            kernel(*inputs[i % INPUT_SETS])
        # Each prelude, given this call's inputs and the next call's.
        preludes = {
            "a call": lambda x, y: kernel(*x),
            "a 64 MiB memset": lambda x, y: scratch.fill_(1),
            "a 64 MiB read": lambda x, y: read(scratch),
            "a 64 MiB read and a 32 MiB memset":
                lambda x, y: (read(scratch), scratch[:32 << 20].fill_(2)),
            "cuBLAS on other tensors":
                lambda x, y: torch.matmul(other[0], other[1]),
            "a call, then its B read": lambda x, y: (kernel(*x), read(y[1])),
            "a call, then its A and B read":
                lambda x, y: (kernel(*x), read(y[1]), read(y[0])),
        }
        results = []
        for name, prelude in preludes.items():
            pairs = []
            for i in range(PAIRS):
                x = inputs[i % INPUT_SETS]
                y = inputs[(i + 1) % INPUT_SETS]
                pairs.append((lambda x=x, y=y, p=prelude: p(x, y),
                              lambda y=y: kernel(*y)))
            results.append(f"after {name} {median_after(pairs):.1f}")
        print(f"{pathlib.Path(library).name} {sparsity}: " +
              ", ".join(results), flush=True)


if __name__ == "__main__":
    main()
