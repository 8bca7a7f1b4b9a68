"""Calling a library that pit-compile made, from torch on the GPU machine:
its checked entry point `pit_kernel` (PIT-runtime/Entry.h) through ctypes,
on torch CUDA tensors, the random micro-tile patterns the checks feed it,
and how its result is compared with the reference. Shared by the GPU check
and the benchmark."""

import ctypes
import pathlib

import torch

DTYPES = {torch.float16: 0, torch.bfloat16: 1, torch.float32: 2,
          torch.float64: 3, torch.int8: 4, torch.int32: 5, torch.int64: 6}


class PITTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("dtype", ctypes.c_int32),
                ("rank", ctypes.c_int32),
                ("shape", ctypes.POINTER(ctypes.c_int64))]


def load_runtime(directory):
    """The libpit_cuda_runtime.so next to the libraries of `directory`,
    loaded for the whole process (the libraries loaded after it share it),
    with the types of the functions the checks call."""
    runtime = ctypes.CDLL(str(pathlib.Path(directory) / "libpit_cuda_runtime.so"),
                          mode=ctypes.RTLD_GLOBAL)
    runtime.pitCudaDependentLaunchCount.restype = ctypes.c_uint64
    runtime.pitCudaCallGraphLaunchCount.restype = ctypes.c_uint64
    runtime.pitCudaSetCallGraphs.argtypes = [ctypes.c_int]
    runtime.pitCudaLastChoice.restype = ctypes.c_int32
    runtime.pitCudaLastChoice.argtypes = [ctypes.c_int64]
    runtime.pitCudaTakeError.restype = ctypes.c_char_p
    return runtime


class Kernel:
    """The entry point `pit_kernel` of the library at `path`."""

    # Argument arrays kept for the tensors of recent calls: the benchmark
    # rotates a few inputs, and building a PITTensor array field by field
    # cost the host ~15 us a call, as long as a short call's device work.
    CACHED_CALLS = 64

    def __init__(self, path):
        self.lib = ctypes.CDLL(str(path))
        self.entry = self.lib.pit_kernel
        self.entry.restype = ctypes.c_int
        self.entry.argtypes = [ctypes.POINTER(PITTensor), ctypes.c_int64]
        self.last_error = self.lib.pitLastError
        self.last_error.restype = ctypes.c_char_p
        self.calls = {}

    def __call__(self, *tensors, data=None, dtypes=None):
        """Calls pit_kernel; `data`/`dtypes` override pointers and dtypes."""
        if data or dtypes:
            args = self.arguments(tensors, data, dtypes)
        else:
            # The same pointer with another shape or type is another call.
            key = tuple((t.data_ptr(), t.dtype, t.shape) for t in tensors)
            args = self.calls.get(key)
            if args is None:
                if len(self.calls) >= self.CACHED_CALLS:
                    self.calls.clear()
                args = self.calls[key] = self.arguments(tensors)
        rc = self.entry(args[0], len(tensors))
        if rc:
            raise RuntimeError(self.last_error().decode())

    @staticmethod
    def arguments(tensors, data=None, dtypes=None):
        """The PITTensor array of a call, with the shape arrays it points
        to (kept alive with it)."""
        shapes = [(ctypes.c_int64 * t.dim())(*t.shape) for t in tensors]
        args = (PITTensor * len(tensors))()
        for i, t in enumerate(tensors):
            args[i].data = data[i] if data and data[i] is not None else t.data_ptr()
            args[i].dtype = dtypes[i] if dtypes and dtypes[i] is not None else DTYPES[t.dtype]
            args[i].rank = t.dim()
            args[i].shape = shapes[i]
        return args, shapes


def sparsify(x, micro, sparsity):
    """Zeroes exactly round(sparsity * #micro-tiles) random micro-tiles."""
    grid = [s // m for s, m in zip(x.shape, micro)]
    count = 1
    for g in grid:
        count *= g
    keep = torch.ones(count, device=x.device)
    keep[torch.randperm(count, device=x.device)[:round(sparsity * count)]] = 0
    mask = keep.reshape(grid)
    for dim, m in enumerate(micro):
        mask = mask.repeat_interleave(m, dim=dim)
    return x * mask.to(x.dtype)


# Relative error a correct kernel stays under, by C's element type. f16/bf16
# inputs are exact in float32 products and the sums are f32; a C of f16 or
# bf16 then rounds them once (a relative error of about a third of its unit
# roundoff, 2^-11 or 2^-8).
TOLERANCE = {torch.float32: 1e-4, torch.float16: 1e-3, torch.bfloat16: 8e-3}


def relative_error(out, ref):
    """||out - ref|| / ||ref||, or ||out|| where the reference is all zeros
    (C = A x B at 100% sparsity); inf for anything not finite, so that a NaN
    never passes."""
    if not torch.isfinite(out).all():
        return float("inf")
    scale = ref.norm().item()
    error = (out.double() - ref).norm().item() / (scale if scale else 1.0)
    return error if error == error else float("inf")
