"""Compiled PIT libraries cached on disk, so that a program is compiled once:
a model's first call compiles, later calls and later processes load.

An entry's key is a hash of what decides the compiled code: the program's
MLIR text, the target ("cpu", "sm_80", "sm_90a"), the compile options and
the compiler's version and source revision. Entries live in $PIT_CACHE_DIR,
or else $XDG_CACHE_HOME/pit (~/.cache/pit), in a directory per compiler
version and revision: KEY.so, and KEY.mlir, the program, for whoever wants
to see or recompile it.

A machine without the compiler (a GPU machine with only the runtime) uses
entries compiled elsewhere for its target: copy the directory there, with
libpit_cuda_runtime.so, which GPU libraries find next to themselves and
which this module puts beside the first GPU library it writes.
"""

import filecmp
import hashlib
import json
import os
import pathlib
import shutil
import tempfile

from . import _config
from .errors import CallError
from .runtime import load

CACHE_DIR_VARIABLE = "PIT_CACHE_DIR"
# The package's modules that run cached kernels without the compiler.
RUNTIME_MODULES = ("__init__.py", "errors.py", "runtime.py", "kernel_cache.py",
                   "torch.py", "nn.py", "_config.py", "_revision.py")
_GPU_RUNTIME = "libpit_cuda_runtime.so"

# Libraries loaded by this process, by path.
_loaded = {}


def compiler_version():
    """The compiler's version and source revision, as the key takes them."""
    try:
        from ._revision import REVISION
    except ImportError:  # a runtime-only copy of the package
        REVISION = "unknown"
    return f"{_config.VERSION}+{REVISION}"


def cache_dir():
    configured = os.environ.get(CACHE_DIR_VARIABLE)
    if configured:
        return pathlib.Path(configured)
    base = os.environ.get("XDG_CACHE_HOME") or pathlib.Path.home() / ".cache"
    return pathlib.Path(base) / "pit"


def entry_dir():
    """Where this compiler's entries live: a directory of the cache per
    compiler version and revision, with the CUDA runtime its GPU libraries
    link beside them."""
    return cache_dir() / compiler_version()


def entry_key(source, target, options):
    signature = json.dumps({"source": source, "target": target,
                            "options": options, "compiler": compiler_version()},
                           sort_keys=True)
    return hashlib.sha256(signature.encode()).hexdigest()[:32]


def compiled_path(source, target, options=None):
    """The path of the library of the MLIR program `source` for `target` in
    the disk cache, compiled there first if missing. `options` are
    pit.compile's keyword arguments."""
    options = dict(options or {})
    key = entry_key(source, target, options)
    directory = entry_dir()
    path = directory / f"{key}.so"
    if not path.exists():
        _compile_into(directory, key, source, target, options)
    return path


def library(source, target, options=None):
    """compiled_path's library, loaded once per process."""
    path = compiled_path(source, target, options)
    loaded = _loaded.get(path)
    if loaded is None:
        loaded = _loaded[path] = load(path)
    return loaded


def _compile_into(directory, key, source, target, options):
    """Compiles `source` to DIRECTORY/KEY.so, written under a temporary name
    and renamed, so that a process reading the cache meanwhile never loads a
    partial file."""
    try:
        from . import compiler
        from ._pit import Context, Module
    except ImportError as error:
        raise CallError(
            f"no compiled library for this call in {directory} (key {key}, "
            f"target {target}, compiler {compiler_version()}), and this "
            f"Python cannot compile it: {error}. Compile it where PIT's "
            "compiler is installed (pit.torch.ahead_of_time) and copy the "
            "cache directory here") from error
    directory.mkdir(parents=True, exist_ok=True)
    (directory / f"{key}.mlir").write_text(source)
    module = Module.parse(Context(), source)
    descriptor, temporary = tempfile.mkstemp(dir=directory, prefix=f".{key}-",
                                             suffix=".so")
    os.close(descriptor)
    try:
        compiler.compile(module, target=target, path=temporary, **options)
        os.replace(temporary, directory / f"{key}.so")
    finally:
        if os.path.exists(temporary):
            os.unlink(temporary)
    runtime = pathlib.Path(_config.LIBRARY_DIR) / _GPU_RUNTIME
    beside = directory / _GPU_RUNTIME
    if target != compiler.CPU and runtime.exists() and not (
            beside.exists() and filecmp.cmp(runtime, beside, shallow=False)):
        # Renamed into place: a process may have the old one mapped.
        descriptor, copy = tempfile.mkstemp(dir=directory, prefix=".runtime-", suffix=".so")
        os.close(descriptor)
        shutil.copy(runtime, copy)
        os.replace(copy, beside)


def runtime_files():
    """{path in the package: source file} of the runtime-only package:
    RUNTIME_MODULES, and the CUDA runtime with its C headers (the entry
    points', the runtime's) where this build has them."""
    package = pathlib.Path(__file__).parent
    files = {name: package / name for name in RUNTIME_MODULES}
    runtime = pathlib.Path(_config.LIBRARY_DIR) / _GPU_RUNTIME
    if runtime.exists():
        files[_GPU_RUNTIME] = runtime
    include = pathlib.Path(_config.INCLUDE_DIR)
    for header in sorted(include.glob("PIT-runtime/*.h")):
        files[header.relative_to(include.parent).as_posix()] = header
    return files


def copy_runtime_package(directory):
    """Puts the runtime-only package (runtime_files()) in DIRECTORY/pit:
    with a copy of the cache, what a machine without the compiler needs to
    run pit.torch's ops."""
    package = pathlib.Path(directory) / "pit"
    for name, path in runtime_files().items():
        (package / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(path, package / name)
