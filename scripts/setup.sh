#!/usr/bin/env bash
# Installs what PIT needs on a fresh Debian 12 machine, and nothing that is
# already there: running it twice is harmless.
#
# LLVM/MLIR 22 (libMLIR.so, mlir-tblgen, mlir-opt, mlir-runner, lit, FileCheck)
# comes from Debian's packages. The CUDA toolkit is optional and not installed
# here: without it the GPU parts are switched off at configure time.
set -euo pipefail

packages=(
  cmake ninja-build g++ python3
  llvm-22-dev llvm-22-tools libmlir-22-dev mlir-22-tools
)

missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null |
      grep -q "install ok installed"; then
    missing+=("$package")
  fi
done

if ((${#missing[@]} == 0)); then
  echo "setup: all packages present"
  exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then
  sudo=sudo
fi
echo "setup: installing ${missing[*]}"
$sudo apt-get update -q
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
