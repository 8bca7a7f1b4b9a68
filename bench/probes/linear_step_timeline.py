"""Where a forward + backward step of pit.nn.SparseLinear spends its time,
on every shape of the benchmark (bench/torch_ops.py's layer_step, 90%):
the step's time by CUDA events, the host's time to issue it (without
waiting for the GPU), and its kernels' GPU time by torch.profiler, each
kernel's total, and the last step's kernels in the order they ran. A step is host-bound where the host's time reaches the
step's (issue 39).

    scripts/torch-gpu.sh prepare                                   # here
    python3 bench/probes/linear_step_timeline.py build/torch-gpu [32x64 ...]
                                                                   # on the GPU
"""

import collections
import pathlib
import statistics
import sys
import time

REPS = 20


def issue_ms(torch, step):
    """The host's time to issue REPS steps, per step: the GPU queue takes
    them without the host waiting (a few thousand launches fit)."""
    torch.cuda.synchronize()
    started = time.perf_counter()
    for _ in range(REPS):
        step()
    issued = time.perf_counter() - started
    torch.cuda.synchronize()
    return issued * 1e3 / REPS


def kernel_us(torch, step):
    """{kernel name: GPU time a step, us} by torch.profiler (CUPTI: the
    driver API's launches and graphs' kernels too)."""
    from torch.profiler import ProfilerActivity, profile
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as profiler:
        for _ in range(REPS):
            step()
        torch.cuda.synchronize()
    totals = collections.Counter()
    kernels = [event for event in profiler.events() if event.device_type.name == "CUDA"]
    for event in kernels:
        totals[event.name[:60]] += event.device_time / REPS
    return totals, [(event.name[:60], event.device_time) for event in kernels[-len(kernels) // REPS:]]


def main(directory, micro_tiles):
    sys.path.insert(0, str(directory))
    import os

    os.environ.setdefault("PIT_CACHE_DIR", str(directory / "cache"))
    import torch
    import pit.nn
    import torch_ops

    for name, m, k, n in torch_ops.SHAPES:
        for micro_tile in micro_tiles:
            _, _, _, step = torch_ops.layer_step(torch, pit.nn, m, k, n, micro_tile, "cuda")
            for _ in range(3):
                step()
            step_ms = statistics.median(torch_ops.events_ms(torch, step, REPS) for _ in range(3))
            host_ms = statistics.median(issue_ms(torch, step) for _ in range(3))
            kernels, last_step = kernel_us(torch, step)
            print(f"{name} {micro_tile[0]}x{micro_tile[1]}: step {step_ms:.3f} ms, "
                  f"host issues it in {host_ms:.3f} ms, kernels "
                  f"{sum(kernels.values()) / 1e3:.3f} ms in {len(kernels)} kinds")
            for kernel, us in kernels.most_common():
                print(f"    {us:8.1f} us  {kernel}")
            print("  the last step's kernels in order:")
            for kernel, us in last_step:
                print(f"    {us:8.1f} us  {kernel}")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    tiles = [tuple(int(e) for e in arg.split("x")) for arg in sys.argv[2:]] or [(32, 64)]
    main(pathlib.Path(sys.argv[1]).resolve(), tiles)
