#!/usr/bin/env bash
# The GPU check of the compiled PIT pipeline (issues 4 and 40), in two steps:
#
#   scripts/gpu-check.sh compile      here, without a GPU: build, then compile
#                                     every case of test/GPU/kernels.py into
#                                     build/gpu-check/*.so with pit-compile,
#                                     the C++ and Python examples, and put
#                                     lit beside them (the GPU machine has
#                                     no LLVM)
#   scripts/gpu-check.sh run [LOGDIR] on the GPU machine, from the repository
#                                     root with build/gpu-check carried: the
#                                     lit suite test/Integration/GPU (the
#                                     examples, the small cases waiting and
#                                     stream-ordered, memcheck, racecheck,
#                                     all cases), each test's log in LOGDIR
#
# Elsewhere the suite's tests report themselves unsupported (the main lit
# suite runs it as a sub-suite).
set -euo pipefail
cd "$(dirname "$0")/.."

case "${1:-}" in
  compile)
    scripts/setup.sh
    scripts/build.sh > build.log 2>&1 || { cat build.log; exit 1; }
    rm -rf build/gpu-check
    python3 test/GPU/compile_kernels.py build build/gpu-check
    # The C++ example: the README's program, called from C++ on device buffers.
    build/bin/pit-compile examples/sparse_matmul.mlir -o build/gpu-check/libsparse_matmul.so
    c++ -O2 examples/sparse_matmul_gpu.cpp -Iinclude -I"${CUDA_HOME:-/usr/local/cuda}/include" \
      -Lbuild/gpu-check -lsparse_matmul -lpit_cuda_runtime \
      -L"${CUDA_HOME:-/usr/local/cuda}/lib64/stubs" -lcuda -Wl,-rpath,'$ORIGIN' \
      -o build/gpu-check/sparse_matmul_gpu
    # The Python example: built and compiled through the bindings, called
    # there through the pure-Python runtime on torch tensors.
    PYTHONPATH=build/python_packages .venv/bin/python \
      examples/python/sparse_matmul_gpu.py compile build/gpu-check/python-example > /dev/null
    # lit itself (pure Python), which runs the suite there.
    cp -r "$(llvm-config-22 --prefix)/utils/lit" build/gpu-check/lit
    ;;
  run)
    logs=$(realpath -m "${2:-.}")
    mkdir -p "$logs"
    artifacts=$PWD/build/gpu-check
    nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$logs/device.txt"
    date -u | tee -a "$logs/device.txt"
    PIT_GPU_ARTIFACTS=$artifacts PIT_GPU_LOGS=$logs python3 -c \
      'import sys; sys.path.insert(0, sys.argv.pop(1)); from lit.main import main; main()' \
      "$artifacts/lit" -v test/Integration/GPU
    ;;
  *)
    sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
    ;;
esac
