#!/usr/bin/env bash
# The main job of README command 1 on an existing build (PIT_BUILD_DIR,
# default build/): the example sparse matmul through the PIT pipeline, then
# run on the CPU against a dense float64 reference, compiled for an
# H100/H200, and run there when this machine has a GPU. lit runs it too
# (test/Examples/demo.test), so that the README's command stays working.
set -euo pipefail
cd "$(dirname "$0")/.."

build=${PIT_BUILD_DIR:-build}
pit_opt=$build/bin/pit-opt
llvm_bin=/usr/lib/llvm-22/bin

banner() { printf '\n== %s\n' "$*"; }

banner "1. The program: C += A x B, A dynamically sparse (examples/sparse_matmul.mlir)"
cat examples/sparse_matmul.mlir

banner "2. The PIT rules the analysis finds for it"
"$pit_opt" examples/sparse_matmul.mlir --test-pit-rules -o /dev/null 2>&1 |
  sed -n 's/.*remark: /  /p'

banner "3. After pit-sparsify: detection, then an STile gathering A's non-zero 32x1 micro-tiles along k"
"$pit_opt" examples/sparse_matmul.mlir --pit-sparsify

banner "4. Compiled by pit-cpu-pipeline and run on the CPU (mlir-runner), two calls per sparsity,"
echo "   each with fresh random data and a fresh pattern, against dense float64 linalg in the same run"
sed -e 's/MT0/32/g; s/MT1/1/g' test/Integration/CPU/sparse-matmul.mlir |
  "$pit_opt" --pit-cpu-pipeline |
  "$llvm_bin/mlir-runner" -e main -entry-point-result=void \
    -shared-libs="$build/lib/libpit_test_runner_utils.so,/usr/lib/llvm-22/lib/libmlir_c_runner_utils.so"

banner "5. The same program through pit-to-ptx for an H100/H200 (sm_90): kernels as PTX, no GPU needed"
"$pit_opt" examples/sparse_matmul.mlir --pit-to-ptx="chip=sm_90" -o "$build/sparse_matmul.sm_90.mlir"
grep -o 'gpu.binary @[a-z_0-9]*' "$build/sparse_matmul.sm_90.mlir" | sed 's/^/  /'
echo "  PTX instructions of the STile kernel (gather loads, shared memory, barriers, atomic combine):"
# The STile kernel is the last one outlined (detection comes first).
grep 'gpu.binary @' "$build/sparse_matmul.sm_90.mlir" | tail -n 1 |
  grep -o 'ld.global[.a-z0-9]*\|st.shared[.a-z0-9]*\|bar.sync\|atom.global[.a-z0-9]*' | sort | uniq -c | sed 's/^/  /'

if [ -x "$build/bin/pit-compile" ] && [ -f "$build/lib/libpit_cuda_runtime.so" ]; then
  banner "6. pit-compile: a shared library with the checked C entry point pit_sparse_matmul"
  "$build/bin/pit-compile" examples/sparse_matmul.mlir -o "$build/libsparse_matmul.so" --chip sm_90
  nm -D --defined-only "$build/libsparse_matmul.so" | grep ' pit_' | sed 's/^/  /'
else
  banner "6. pit-compile skipped: PIT was built without the CUDA toolkit"
fi
if [ -f "$build/libsparse_matmul.so" ] && nvidia-smi -L > /dev/null 2>&1; then
  banner "7. On this machine's GPU, called from C++ (examples/sparse_matmul_gpu.cpp)"
  cuda_home=${CUDA_HOME:-/usr/local/cuda}
  c++ -O2 examples/sparse_matmul_gpu.cpp -Iinclude -I"$cuda_home/include" \
    -L"$build" -lsparse_matmul -L"$build/lib" -lpit_cuda_runtime -lcuda \
    -Wl,-rpath,"$PWD/$build" -Wl,-rpath,"$PWD/$build/lib" -o "$build/sparse_matmul_gpu"
  "$build/sparse_matmul_gpu"
else
  banner "7. No GPU here: the GPU run is scripts/gpu-check.sh (compile here, run on an H100/H200)"
  echo "  Its logs, named by date and device (each run's device.txt too): docs/gpu-check/"
  for log in docs/gpu-check/*-full.log; do
    echo "  $(basename "$log"): $(grep -h "passed" "$log")"
  done
fi
