"""The runtime-only wheel, for GPU machines without LLVM/MLIR: pit's
pure-Python runtime (pit.load, pit.torch and pit.nn on cached kernels) and
libpit_cuda_runtime.so, as pit.kernel_cache.runtime_files() lists them.

    python -m pit.runtime_wheel DIRECTORY

writes DIRECTORY/pit_mlir_runtime-VERSION-py3-none-PLATFORM.whl, which
`pip install` takes on the GPU machine. Its distribution is pit-mlir-runtime;
it installs the same `pit` package as pit-mlir, without the compiler, so a
Python has one or the other. Kernels come compiled: a cache directory made
by pit.torch.ahead_of_time (PIT_CACHE_DIR), or libraries from pit.compile
and pit-compile.
"""

import base64
import hashlib
import pathlib
import sys
import sysconfig
import zipfile

from . import _config
from .kernel_cache import runtime_files

DISTRIBUTION = "pit_mlir_runtime"


def _platform_tag():
    # The CUDA runtime is a native library, built for this platform; the
    # Python code runs on any Python 3.
    return sysconfig.get_platform().replace("-", "_").replace(".", "_")


def _metadata():
    return (f"Metadata-Version: 2.1\nName: pit-mlir-runtime\n"
            f"Version: {_config.VERSION}\n"
            "Summary: PIT's runtime: run kernels compiled by PIT's compiler "
            "(pit-mlir) on machines without LLVM/MLIR\n"
            "Requires-Python: >=3.9\nProvides-Extra: torch\n"
            "Requires-Dist: torch; extra == \"torch\"\n")


def _wheel_file(tag):
    return ("Wheel-Version: 1.0\nGenerator: pit.runtime_wheel\n"
            f"Root-Is-Purelib: false\nTag: {tag}\n")


def _record_line(name, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
    return f"{name},sha256={digest.decode()},{len(data)}\n"


def write_runtime_wheel(directory):
    """Writes the wheel into `directory` and returns its path."""
    tag = f"py3-none-{_platform_tag()}"
    info = f"{DISTRIBUTION}-{_config.VERSION}.dist-info"
    entries = {f"pit/{name}": path.read_bytes()
               for name, path in sorted(runtime_files().items())}
    entries[f"{info}/METADATA"] = _metadata().encode()
    entries[f"{info}/WHEEL"] = _wheel_file(tag).encode()
    record = "".join(_record_line(name, data) for name, data in entries.items())
    entries[f"{info}/RECORD"] = (record + f"{info}/RECORD,,\n").encode()
    path = pathlib.Path(directory) / f"{DISTRIBUTION}-{_config.VERSION}-{tag}.whl"
    path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as wheel:
        for name, data in entries.items():
            info_entry = zipfile.ZipInfo(name, date_time=(2026, 1, 1, 0, 0, 0))
            # Shared libraries keep their execute bit.
            info_entry.external_attr = (0o755 if name.endswith(".so") else 0o644) << 16
            wheel.writestr(info_entry, data, zipfile.ZIP_DEFLATED)
    return path


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    print(write_runtime_wheel(sys.argv[1]))
