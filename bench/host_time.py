"""How long the host takes to issue a call of compiled benchmark libraries
(Python through ctypes to the checked entry point, every driver call of
the host code), against the time a call takes back to back, when the GPU
sets the pace:

    python3 bench/host_time.py build/bench/matmul_f16_32x1__select.so:32x1:0.99 ...

Each argument is LIBRARY:MICRO-TILE:SPARSITY, for an f16 4096^3 matmul
library of the benchmark. Medians of 50 calls; a call is host-bound where
the two are close. Then the call as the benchmark times it, between two
CUDA events, and what recording an event costs the host: where the host
time of a call and its events exceeds the device's, the interval between
the events is the host's. The runtime is lent torch's stream, as the benchmark
lends it: the calls are then stream-ordered (without it every call waits
for its kernels). Last, the same two for the call a user of the Python
runtime makes (pit.load's functions: its checks, torch's stream looked up
at every call), and torch.matmul's host time on the same tensors."""

import ctypes
import pathlib
import statistics
import sys
import time

import torch

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import cases  # noqa: E402  (puts the shared helpers on the path)
from compiled_library import Kernel  # noqa: E402
from profiling import lend_torch_stream, matmul_inputs  # noqa: E402

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "python"))
from pit.runtime import Function  # noqa: E402  (the pure-Python runtime)

CALLS = 50


def issue_us(call):
    """Median host time of call(), with the GPU kept busy."""
    times = []
    for _ in range(CALLS):
        start = time.perf_counter()
        call()
        times.append((time.perf_counter() - start) * 1e6)
    torch.cuda.synchronize()
    return statistics.median(times)


def between_events_us(call):
    """Median interval between events recorded around call(), call after
    call (as the benchmark times), and the host time of an event record."""
    records, events = [], []
    for _ in range(CALLS):
        begin, end = (torch.cuda.Event(enable_timing=True),
                      torch.cuda.Event(enable_timing=True))
        start = time.perf_counter()
        begin.record()
        records.append((time.perf_counter() - start) * 1e6)
        call()
        end.record()
        events.append((begin, end))
    torch.cuda.synchronize()
    return (statistics.median(begin.elapsed_time(end) * 1e3 for begin, end in events),
            statistics.median(records))


def measure(library, micro, sparsity):
    kernel = Kernel(library)
    # The library as pit.load gives it (benchmark libraries have no
    # manifest: the signature is the benchmark's matmul).
    spec = {"name": "kernel",
            "args": [{"dtype": "f16", "shape": [cases.SIZE, cases.SIZE]}] * 3}
    # Its own handle: the entry's ctypes types are set on it.
    function = Function(ctypes.CDLL(str(library)), "gpu", spec)
    a, b, c = matmul_inputs(cases.SIZE, micro, sparsity)
    for _ in range(5):
        kernel(a, b, c)
        function(a, b, c)
    torch.cuda.synchronize()
    issue = issue_us(lambda: kernel(a, b, c))
    start = time.perf_counter()
    for _ in range(CALLS):
        kernel(a, b, c)
    torch.cuda.synchronize()
    back_to_back = (time.perf_counter() - start) / CALLS * 1e6
    interval, record = between_events_us(lambda: kernel(a, b, c))
    loaded_issue = issue_us(lambda: function(a, b, c))
    loaded_interval, _ = between_events_us(lambda: function(a, b, c))
    matmul_issue = issue_us(lambda: torch.matmul(a, b, out=c))
    print(f"{pathlib.Path(library).name} {'x'.join(map(str, micro))} {sparsity}: "
          f"host {issue:.1f} us a call, "
          f"back to back {back_to_back:.1f} us a call, "
          f"an event record {record:.1f} us on the host, "
          f"between events {interval:.1f} us a call; "
          f"through pit.load: host {loaded_issue:.1f} us a call, "
          f"between events {loaded_interval:.1f} us; "
          f"torch.matmul: host {matmul_issue:.1f} us a call", flush=True)


def main():
    lend_torch_stream(pathlib.Path(sys.argv[1].split(":")[0]).parent)
    for argument in sys.argv[1:]:
        library, micro, sparsity = argument.split(":")
        measure(library, [int(e) for e in micro.split("x")], float(sparsity))


if __name__ == "__main__":
    main()
