#!/usr/bin/env bash
# Configures (once) and builds PIT in build/. Incremental after the first run.
set -euo pipefail
cd "$(dirname "$0")/.."

build_dir=${PIT_BUILD_DIR:-build}
if [ ! -f "$build_dir/build.ninja" ]; then
  cmake -G Ninja -S . -B "$build_dir" \
    -DCMAKE_BUILD_TYPE=Release \
    -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit
fi
cmake --build "$build_dir"
