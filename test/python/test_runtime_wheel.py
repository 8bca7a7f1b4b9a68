"""The runtime-only wheel (pit.runtime_wheel): its contents and record, and
the package it installs, without the compiler, loading and calling a
library compiled here, and saying what it lacks."""

import base64
import hashlib
import os
import subprocess
import sys
import textwrap
import zipfile

import pytest

import pit
from pit import _config
from pit.runtime_wheel import write_runtime_wheel
from conftest import build_matmul


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    return write_runtime_wheel(tmp_path_factory.mktemp("wheel"))


def test_wheel_holds_the_runtime_and_a_valid_record(wheel):
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        info = next(name.split("/")[0] for name in names if name.endswith("/RECORD"))
        record = archive.read(f"{info}/RECORD").decode().splitlines()
        for line in record:
            name, digest, size = line.rsplit(",", 2)
            if name.endswith("/RECORD"):
                continue
            data = archive.read(name)
            expected = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
            assert digest == "sha256=" + expected.decode() and int(size) == len(data)
        metadata = archive.read(f"{info}/METADATA").decode()
    assert {"pit/__init__.py", "pit/runtime.py", "pit/torch.py", "pit/_config.py"} <= names
    # No compiler in it.
    assert not any("_pit" in name or "compiler" in name or "builders" in name for name in names)
    if _config.CUDA_ENABLED:
        assert {"pit/libpit_cuda_runtime.so", "pit/include/PIT-runtime/Entry.h",
                "pit/include/PIT-runtime/CudaRuntime.h"} <= names
    assert "Name: pit-mlir-runtime" in metadata
    assert len(record) == len(names)


def test_installed_runtime_calls_a_compiled_library(wheel, tmp_path, ctx, rng):
    site = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-index",
                    "--target", str(site), str(wheel)], check=True)
    library = pit.compile(build_matmul(ctx), target="cpu", path=tmp_path / "libmatmul.so")
    script = textwrap.dedent(f"""
        import numpy as np, pit
        assert pit.__file__.startswith({str(site)!r}), pit.__file__
        library = pit.load({str(library)!r})
        rng = np.random.default_rng({int(rng.integers(2**31))})
        a = rng.standard_normal((64, 128)).astype(np.float32)
        b = rng.standard_normal((128, 32)).astype(np.float32)
        c = np.zeros((64, 32), np.float32)
        library.sparse_matmul(a, b, c)
        error = np.linalg.norm(c - a.astype(np.float64) @ b) / np.linalg.norm(a.astype(np.float64) @ b)
        assert error < 1e-5, error
        try:
            pit.Context()
        except ImportError as missing:
            print("no compiler:", missing)
    """)
    # From a directory of its own, with only the installed wheel on the path.
    environment = {**os.environ, "PYTHONPATH": str(site)}
    result = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, env=environment,
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert "no compiler: pit.Context needs the compiler extension pit._pit" in result.stdout
