#!/usr/bin/env bash
# The package as a user installs it: `pip install .[torch]` into a fresh
# virtual environment (build/package-venv; the CMake build in build/pip is
# kept between runs; torch and pytest reused from .venv), then, against the
# installed package and not the build tree, the README's Python examples
# and pit.torch's tests on the CPU.
# Run by scripts/test.sh after lit; needs scripts/setup.sh's packages.
set -euo pipefail
cd "$(dirname "$0")/.."

venv=build/package-venv
rm -rf "$venv"
python3 -m venv "$venv"
# PyTorch (gigabytes) and pytest come from .venv, which scripts/setup.sh
# filled, through a .pth file: the package itself is installed fresh.
site=$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
.venv/bin/python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])' > "$site/setup-venv.pth"
"$venv/bin/python" -m pip install -q ".[torch]"
# From a directory without a `pit` of its own, so that the import is the
# installed package's.
cd "$venv"
bin/python -c 'import pathlib, pit; assert "site-packages" in pit.__file__, pit.__file__; print("package: pit from", pathlib.Path(pit.__file__).parent)'
bin/python -m pytest -q -p no:cacheprovider ../../test/python/test_torch.py ../../test/python/test_readme.py
