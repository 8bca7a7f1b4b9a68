"""The device work of each call, from the profiler: CUPTI sees the driver-API
launches and memsets of a PIT library too. Outlined kernels all share one
name, so a call's pieces are told apart by their position. (Import cases
first: it puts the GPU check's helpers on the path.)"""

import ctypes

import torch

from compiled_library import load_runtime, sparsify


def lend_torch_stream(directory):
    """Loads the libpit_cuda_runtime.so of `directory` and lends it torch's
    current stream, as the benchmark does: calls are then stream-ordered, as
    a CUDA library's are. Without a lent stream every call waits for its
    kernels, and the GPU idles while the host issues the next one. Every
    library the process loads afterwards shares that runtime and its
    stream: profile libraries of one directory in one process. Returns the
    runtime (its pitCudaLastChoice reads what a selecting call chose)."""
    runtime = load_runtime(directory)
    runtime.pitCudaSetStream(
        ctypes.c_void_p(torch.cuda.current_stream().cuda_stream))
    return runtime


def matmul_inputs(n, micro, sparsity):
    """The f16 A (values in [-1, 1), a fresh random pattern of `micro`
    tiles at `sparsity`) and B (dense) of an n x n x n matmul, and a zero f16
    C (the benchmark's C has the inputs' type)."""
    a = sparsify((torch.rand(n, n, device="cuda") * 2 - 1).half(), micro,
                 sparsity)
    b = (torch.rand(n, n, device="cuda") * 2 - 1).half()
    c = torch.zeros(n, n, device="cuda", dtype=torch.float16)
    return a, b, c


def device_work_per_call(fn, calls):
    """Runs fn() `calls` times under the profiler and returns, per call, its
    device events (kernels, memsets, copies) in launch order."""
    fn()
    torch.cuda.synchronize()
    with torch.profiler.profile(
            activities=[torch.profiler.ProfilerActivity.CUDA]) as profile:
        for _ in range(calls):
            fn()
        torch.cuda.synchronize()
    events = sorted((e for e in profile.events()
                     if e.device_type == torch.autograd.DeviceType.CUDA),
                    key=lambda e: e.time_range.start)
    per_call = len(events) // calls
    return [events[c * per_call:(c + 1) * per_call] for c in range(calls)]


def busy_us(events, since=float("-inf")):
    """How long the GPU was busy with `events` (sorted by start) from `since`
    on: the length of the union of their spans. A kernel launched as a
    dependent starts while the one before it finishes (it waits for it), so
    spans overlap and summing them would count that time twice."""
    busy, end = 0.0, since
    for event in events:
        start, stop = event.time_range.start, event.time_range.end
        busy += max(0.0, stop - max(start, end))
        end = max(end, stop)
    return busy


def previous_call_ends(per_call):
    """For each call of device_work_per_call, when the device work of the
    calls before it ended (-inf for the first): a call's first kernel,
    launched as a dependent of the last one before it, starts (and waits)
    while that one finishes, so its time counts from there."""
    ends, end = [], float("-inf")
    for events in per_call:
        ends.append(end)
        end = max(end, max(event.time_range.end for event in events))
    return ends


def calls_busy_us(per_call):
    """busy_us of each call of device_work_per_call, counted from the end of
    the call before it (a call whose first kernel is the dense fallback's
    would otherwise count the tail of the call before)."""
    return [busy_us(events, since)
            for events, since in zip(per_call, previous_call_ends(per_call))]
