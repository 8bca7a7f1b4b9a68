#!/usr/bin/env bash
# pit.torch on the GPU (issue 39), in two steps:
#
#   scripts/torch-gpu.sh prepare     here, without a GPU: build, then compile
#                                    for sm_90a every kernel of the GPU check
#                                    (test/GPU/check_torch.py), the examples
#                                    and the benchmark (bench/torch_ops.py)
#                                    into build/torch-gpu/cache, beside the
#                                    runtime-only package build/torch-gpu/pit
#   scripts/torch-gpu.sh run LOGDIR  on the GPU machine, from the repository
#                                    root with build/torch-gpu carried: the
#                                    check, the two examples, the benchmark
#                                    (LOGDIR/torch_ops.json)
set -euo pipefail
cd "$(dirname "$0")/.."
directory=$PWD/build/torch-gpu

case "${1:-}" in
  prepare)
    scripts/setup.sh > /dev/null
    scripts/build.sh > build.log 2>&1 || { cat build.log; exit 1; }
    rm -rf "$directory"
    export PYTHONPATH=build/python_packages PIT_CACHE_DIR=$directory/cache
    .venv/bin/python test/GPU/check_torch.py prepare "$directory"
    # pit.load calls pit-compile's libraries too (their manifest).
    build/bin/pit-compile examples/sparse_matmul.mlir --chip sm_90a --format bin \
      -o "$directory/libsparse_matmul.so"
    cp build/lib/libpit_cuda_runtime.so "$directory/"
    .venv/bin/python bench/torch_ops.py prepare "$directory"
    for example in torch_pruned_mlp torch_sparse_ffn; do
      .venv/bin/python examples/python/$example.py --ahead-of-time sm_90a
      cp examples/python/$example.py "$directory"
    done
    du -sh "$directory"
    ;;
  run)
    logs=${2:-.}
    mkdir -p "$logs"
    export PYTHONUNBUFFERED=1 PYTHONPATH=$directory PIT_CACHE_DIR=$directory/cache
    nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$logs/device.txt"
    status=0
    python3 "$directory/check_torch.py" run "$directory" 2>&1 | tee "$logs/check_torch.log" || status=1
    for example in torch_pruned_mlp torch_sparse_ffn; do
      python3 "$directory/$example.py" 2>&1 | tee "$logs/$example.log" || status=1
    done
    python3 "$directory/torch_ops.py" run "$directory" 2>&1 | tee "$logs/torch_ops.log" || status=1
    cp "$directory/torch_ops.json" "$logs/" || status=1
    exit $status
    ;;
  *)
    echo "usage: $0 prepare | run [LOGDIR]" >&2
    exit 2
    ;;
esac
