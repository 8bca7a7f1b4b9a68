#!/usr/bin/env bash
# Installs what PIT needs on a fresh Debian 12 machine, and nothing that is
# already there: running it twice is harmless.
#
# LLVM/MLIR 22 (libMLIR.so, mlir-tblgen, mlir-opt, mlir-runner, lit, FileCheck)
# comes from Debian's packages. The CUDA toolkit is optional and not installed
# here: without it the GPU parts are switched off at configure time.
#
# The Python bindings' dependencies (nanobind, numpy, pytest) and PyTorch
# (pit.torch, pit.nn; PyPI's wheel, which runs on a machine without a GPU) go
# into the virtual environment .venv, made with the machine's python3;
# build.sh points CMake at it.
#
# Arguments name more Debian packages to install the same way (fuzz.sh asks
# for clang and its fuzzing runtime).
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
  cmake ninja-build g++ python3
  llvm-22-dev llvm-22-tools libmlir-22-dev mlir-22-tools
  "$@"
)
python_packages=(nanobind numpy pytest torch)

missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null |
      grep -q "install ok installed"; then
    missing+=("$package")
  fi
done
# A python3 without ensurepip (Debian's own, without python3-venv) cannot
# make a virtual environment.
if [ ! -x .venv/bin/python ] && ! python3 -c 'import ensurepip' 2>/dev/null; then
  missing+=(python3-venv python3-dev)
fi

if ((${#missing[@]} == 0)); then
  echo "setup: all packages present"
else
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    sudo=sudo
  fi
  echo "setup: installing ${missing[*]}"
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

if [ ! -x .venv/bin/python ]; then
  echo "setup: creating .venv"
  python3 -m venv .venv
fi
if ! .venv/bin/python -c 'import nanobind, numpy, pytest, torch' 2>/dev/null; then
  echo "setup: installing ${python_packages[*]} into .venv"
  .venv/bin/python -m pip install -q "${python_packages[@]}"
else
  echo "setup: .venv has ${python_packages[*]}"
fi
