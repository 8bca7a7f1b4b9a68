#!/usr/bin/env bash
# Configures (once) and builds PIT in build/. Incremental after the first run.
# The Python bindings are built for .venv's interpreter when it exists
# (scripts/setup.sh makes it).
set -euo pipefail
cd "$(dirname "$0")/.."

build_dir=${PIT_BUILD_DIR:-build}
python_args=()
if [ -x .venv/bin/python ]; then
  python_args=(-DPython_EXECUTABLE="$PWD/.venv/bin/python")
fi
if [ ! -f "$build_dir/build.ninja" ]; then
  cmake -G Ninja -S . -B "$build_dir" \
    -DCMAKE_BUILD_TYPE=Release \
    -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit \
    "${python_args[@]}"
fi
cmake --build "$build_dir"
