#!/usr/bin/env bash
# The GPU check of the compiled PIT pipeline (issue 4), in two steps:
#
#   scripts/gpu-check.sh compile      here, without a GPU: build, then compile
#                                     every case of test/GPU/kernels.py into
#                                     build/gpu-check/*.so with pit-compile
#   scripts/gpu-check.sh run [LOGDIR] on the GPU machine, from the repository
#                                     root with build/gpu-check carried: the
#                                     C++ and Python examples, the small
#                                     cases (waiting, then stream-ordered),
#                                     memcheck (small cases; all cases at
#                                     99%), racecheck (small cases at 90%,
#                                     panel kernels left out), then all
#
# Each run step prints "N passed, N failed" and writes its log to LOGDIR.
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
    ;;
  run)
    logs=${2:-.}
    mkdir -p "$logs"
    artifacts=$PWD/build/gpu-check
    cd test/GPU
    export PYTHONUNBUFFERED=1
    nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$logs/device.txt"
    date -u | tee -a "$logs/device.txt"
    status=0
    "$artifacts/sparse_matmul_gpu" 2>&1 | tee "$logs/cpp-example.log" || status=1
    python3 "$artifacts/python-example/sparse_matmul_gpu.py" run "$artifacts/python-example" \
      2>&1 | tee "$logs/python-example.log" || status=1
    python3 check_on_device.py "$artifacts" --only-prefix small_ 2>&1 | tee "$logs/small.log" || status=1
    # The same calls stream-ordered on a lent stream, as torch users make them.
    python3 check_on_device.py "$artifacts" --only-prefix small_ --stream-ordered \
      2>&1 | tee "$logs/small-ordered.log" || status=1
    # memcheck: every sparsity of the small cases, and every case at 99%.
    compute-sanitizer --tool memcheck --error-exitcode 3 \
      python3 check_on_device.py "$artifacts" --only-prefix small_ --calls 1 \
      2>&1 | tee "$logs/memcheck.log" || status=1
    compute-sanitizer --tool memcheck --error-exitcode 3 \
      python3 check_on_device.py "$artifacts" --calls 1 --sparsities 0.99 \
      2>&1 | tee "$logs/memcheck-all.log" || status=1
    # racecheck: the small cases at 90%, but for the panel kernels, whose
    # reused named-barrier turns it reports though they are ordered
    # (bench/probes/barrier_handover.cu).
    compute-sanitizer --tool racecheck --racecheck-report hazard --error-exitcode 3 \
      python3 check_on_device.py "$artifacts" --only-prefix small_ --calls 1 \
      --sparsities 0.9 --skip _panel _grouped \
      2>&1 | tee "$logs/racecheck.log" || status=1
    python3 check_on_device.py "$artifacts" 2>&1 | tee "$logs/full.log" || status=1
    exit $status
    ;;
  *)
    sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
    ;;
esac
