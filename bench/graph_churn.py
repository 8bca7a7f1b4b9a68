"""What call graphs cost a caller whose tensors keep changing: the host
time of each call of a choosing library (f16 4096^3 32x1 at 99%) on keys
seen 1, 2 or 3 times (30 keys each, tensors at addresses no other call
used), launch by launch and with graphs (the first call of a key runs
launch by launch, the second is recorded and launched, the third launches
the graph). Each call is waited for, so that only its host time counts.

    python3 bench/graph_churn.py build/bench
"""

import pathlib
import statistics
import sys
import time

import torch

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import cases  # noqa: E402,F401  (puts the shared helpers on the path)
from compiled_library import Kernel  # noqa: E402
from profiling import lend_torch_stream  # noqa: E402

KEYS = 30


def main():
    directory = pathlib.Path(sys.argv[1])
    runtime = lend_torch_stream(directory)
    n = cases.SIZE
    kernel = Kernel(directory / "matmul_f16_32x1__select.so")
    b = torch.rand(n, n, device="cuda").half()
    c = torch.zeros(n, n, device="cuda").half()
    # 1% of A's elements non-zero; each key a view 8 elements further in.
    elements = n * n + 8 * KEYS * 6
    pool = (torch.rand(elements, device="cuda") *
            (torch.rand(elements, device="cuda") > 0.99)).half()
    experiment = 0
    for graphs in [0, 1]:
        runtime.pitCudaSetCallGraphs(graphs)
        for sightings in [1, 2, 3]:
            first = KEYS * experiment
            experiment += 1
            views = [pool[8 * j:8 * j + n * n].view(n, n)
                     for j in range(first, first + KEYS)]
            times = [[] for _ in range(sightings)]
            torch.cuda.synchronize()
            for view in views:
                for sighting in range(sightings):
                    start = time.perf_counter()
                    kernel(view, b, c)
                    times[sighting].append((time.perf_counter() - start) * 1e6)
                    torch.cuda.synchronize()
            print(f"{'graphs' if graphs else 'launch by launch'}, "
                  f"{sightings} call(s) a key: host us a call by sighting: "
                  + " ".join(f"{statistics.median(t):.0f}" for t in times),
                  flush=True)
    runtime.pitCudaSetCallGraphs(1)


if __name__ == "__main__":
    main()
