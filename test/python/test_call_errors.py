"""Calls with a wrong argument raise ArgumentError before anything runs; a
library that refuses a call raises CallError with its message."""

import ctypes
import json
import subprocess

import numpy as np
import pytest

import pit
from pit import _config
from conftest import build_matmul


@pytest.fixture(scope="module")
def cpu_library():
    return pit.load(pit.compile(build_matmul(pit.Context())))


@pytest.fixture(scope="module")
def matmul(cpu_library):
    return cpu_library.sparse_matmul


def arrays(dtype=np.float32):
    return [np.ones(shape, dtype) for shape in [(64, 128), (128, 32), (64, 32)]]


def test_wrong_count(matmul):
    with pytest.raises(pit.ArgumentError, match="expects 3 arguments, got 2"):
        matmul(*arrays()[:2])


def test_wrong_shape(matmul):
    a, b, c = arrays()
    with pytest.raises(pit.ArgumentError,
                       match=r"argument 1: expects shape \[128, 32\], got \[32, 128\]"):
        matmul(a, b.T.copy(), c)
    with pytest.raises(pit.ArgumentError, match="expects shape"):
        matmul(a, b, c.reshape(-1))


def test_wrong_dtype(matmul):
    a, b, c = arrays()
    with pytest.raises(pit.ArgumentError, match="argument 2: expects element type f32, got f64"):
        matmul(a, b, c.astype(np.float64))
    with pytest.raises(pit.ArgumentError, match="got complex64"):
        matmul(a.astype(np.complex64), b, c)


def test_wrong_layout(matmul):
    a, b, c = arrays()
    with pytest.raises(pit.ArgumentError, match="C-contiguous"):
        matmul(np.asfortranarray(a), b, c)
    with pytest.raises(pit.ArgumentError, match="C-contiguous"):
        matmul(np.ones((64, 256), np.float32)[:, ::2], b, c)
    c.flags.writeable = False
    with pytest.raises(pit.ArgumentError, match="writeable"):
        matmul(a, b, c)


def test_empty_arrays(ctx):
    """An empty array is refused, also where the extent is dynamic: its data
    pointer need not point anywhere."""
    with pytest.warns(pit.CompileWarning, match="loop ranges are not static"):
        library = pit.load(pit.compile(build_matmul(ctx, m=None)))
    a, b, c = arrays()
    with pytest.raises(pit.ArgumentError, match=r"argument 0: has no elements \(shape \[0, 128\]\)"):
        library.sparse_matmul(a[:0], b, c[:0])


def test_wrong_device_or_kind(matmul):
    a, b, c = arrays()
    with pytest.raises(pit.ArgumentError, match="takes numpy arrays, got pit.runtime.DevicePointer"):
        matmul(pit.DevicePointer(4096, (64, 128), "f32"), b, c)
    with pytest.raises(pit.ArgumentError, match="expects a numpy array, got builtins.list"):
        matmul(a.tolist(), b, c)


def test_unknown_function_and_foreign_library(tmp_path, cpu_library):
    with pytest.raises(AttributeError, match="has no function 'dense'; it has sparse_matmul"):
        cpu_library.dense
    plain = tmp_path / "libplain.so"
    (tmp_path / "plain.c").write_text("int answer(void) { return 42; }\n")
    subprocess.run([_config.C_COMPILER, "-shared", "-fPIC", "-o", str(plain),
                    str(tmp_path / "plain.c")], check=True)
    with pytest.raises(pit.ArgumentError, match="not a library compiled by pit.compile"):
        pit.load(plain)


# A GPU library's Python side, checked without a GPU: a stand-in library
# with the manifest and the entry-point ABI of PIT-runtime/Entry.h, which
# records what it receives and refuses calls as the real checks do.
STUB_GPU_LIBRARY = r"""
#include "PIT-runtime/Entry.h"
#include <stdint.h>
__attribute__((visibility("default"))) const char *pit_manifest(void) {
  return MANIFEST;
}
int64_t seen_shape[2];
int32_t seen_dtype;
static const char *error;
__attribute__((visibility("default"))) int pit_scale(const PITTensor *args, int64_t n) {
  seen_shape[0] = args[0].shape[0];
  seen_shape[1] = args[0].shape[1];
  seen_dtype = args[0].dtype;
  error = n == 1 && args[0].shape[0] == 8 ? 0 : "scale: refused by the library";
  return error != 0;
}
__attribute__((visibility("default"))) const char *pitLastError(void) { return error; }
/* As libpit_cuda_runtime: the stream the following calls run on, and
   whether they are stream-ordered on it. */
void *lent_stream = (void *)1;
int ordered = -1;
__attribute__((visibility("default"))) void pitCudaSetStream(void *stream) {
  lent_stream = stream;
  ordered = 1;
}
__attribute__((visibility("default"))) void pitCudaClearStream(void) {
  lent_stream = 0;
  ordered = 0;
}
/* As libpit_cuda_runtime: the record of choices (slot 0: variant 2; slot 1:
   none yet, and a device failure pending). */
const char *runtime_error = 0;
__attribute__((visibility("default"))) int pitCudaLastChoice(long long slot) {
  if (slot == 1)
    runtime_error = "cuCtxSynchronize() failed: an illegal memory access";
  return slot == 0 ? 2 : -1;
}
__attribute__((visibility("default"))) const char *pitCudaTakeError(void) {
  const char *taken = runtime_error;
  runtime_error = 0;
  return taken;
}
"""


@pytest.fixture(scope="module")
def gpu_stub(tmp_path_factory):
    work = tmp_path_factory.mktemp("stub")
    manifest = json.dumps({"target": "sm_90", "functions": [
        {"name": "scale", "args": [{"dtype": "bf16", "shape": [8, 16]}]}]})
    (work / "stub.c").write_text(STUB_GPU_LIBRARY)
    path = work / "libstub.so"
    subprocess.run([_config.C_COMPILER, "-shared", "-fPIC", "-I" + _config.INCLUDE_DIR,
                    f"-DMANIFEST={json.dumps(manifest)}", "-o", str(path),
                    str(work / "stub.c")], check=True)
    return pit.load(path), ctypes.CDLL(str(path))


def test_gpu_call_passes_device_pointers(gpu_stub):
    library, raw = gpu_stub
    library.scale(pit.DevicePointer(0x10000, (8, 16), "bf16"))
    assert list((ctypes.c_int64 * 2).in_dll(raw, "seen_shape")) == [8, 16]
    assert ctypes.c_int32.in_dll(raw, "seen_dtype").value == 1  # PIT_BF16
    # Raw pointers run on the legacy default stream (none lent), and wait.
    assert ctypes.c_void_p.in_dll(raw, "lent_stream").value is None
    assert ctypes.c_int.in_dll(raw, "ordered").value == 0


def test_gpu_call_refusals(gpu_stub):
    scale = gpu_stub[0].scale
    with pytest.raises(pit.ArgumentError, match="takes torch CUDA tensors or pit.DevicePointer, got numpy.ndarray"):
        scale(np.ones((8, 16), np.float32))
    with pytest.raises(pit.ArgumentError, match="expects element type bf16, got f32"):
        scale(pit.DevicePointer(0x10000, (8, 16), "f32"))
    with pytest.raises(pit.ArgumentError, match=r"expects shape \[8, 16\], got \[16, 8\]"):
        scale(pit.DevicePointer(0x10000, (16, 8), "bf16"))
    with pytest.raises(pit.ArgumentError, match="not 16-byte aligned"):
        scale(pit.DevicePointer(0x10002, (8, 16), "bf16"))
    with pytest.raises(pit.ArgumentError, match="null"):
        scale(pit.DevicePointer(0, (8, 16), "bf16"))
    with pytest.raises(pit.ArgumentError, match="unknown dtype 'f8'"):
        pit.DevicePointer(0x10000, (8, 16), "f8")
    with pytest.raises(pit.ArgumentError, match="expects 1 arguments, got 0"):
        scale()


def test_gpu_library_refusal_is_a_call_error(gpu_stub):
    library, _ = gpu_stub
    # Pretend the library's own check disagrees: its message comes through.
    library.scale.args[0] = ("bf16", (4, 16))
    try:
        with pytest.raises(pit.CallError, match="scale: refused by the library"):
            library.scale(pit.DevicePointer(0x10000, (4, 16), "bf16"))
    finally:
        library.scale.args[0] = ("bf16", (8, 16))


def test_last_choice(gpu_stub, cpu_library):
    library, _ = gpu_stub
    assert library.last_choice() == 2
    with pytest.raises(pit.CallError, match="illegal memory access"):
        library.last_choice(1)
    with pytest.raises(pit.ArgumentError, match=r"slot 16 is not in \[0, 16\)"):
        library.last_choice(16)
    with pytest.raises(pit.ArgumentError, match="slot -1"):
        library.last_choice(-1)
    with pytest.raises(pit.ArgumentError, match="a CPU library chooses on the host"):
        cpu_library.last_choice()


def test_bind_is_for_gpu_functions(ctx):
    """Function.bind (addresses only, for pit.torch) takes GPU functions."""
    library = pit.load(pit.compile(build_matmul(ctx), target="cpu"))
    with pytest.raises(pit.ArgumentError, match="only GPU functions bind"):
        library.sparse_matmul.bind(["f32"] * 3, [(64, 128), (128, 32), (64, 32)])
