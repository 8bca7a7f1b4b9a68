#!/usr/bin/env bash
# Fuzzes PIT: libFuzzer over parsing, the CPU pipeline and the GPU pipeline
# down to NVVM (tools/pit-fuzz), with AddressSanitizer and
# UndefinedBehaviorSanitizer, for a bounded time. Exits non-zero on a crash,
# leaving the input in build/fuzz/crashes/ (replay it with
# build/bin/pit-fuzz FILE, and keep it in test/Fuzz/Inputs once fixed).
#
#   scripts/fuzz.sh [--seconds N] [--jobs N]     (defaults: 180 s, 1 job)
#
# One job stops at the first crash (what CI runs). N jobs (libFuzzer's fork
# mode) go on past crashes, hangs and memory outs, saving each input, for a
# long run that collects them all; the script then fails if any were saved.
#
# Builds in build/fuzz with clang 22 (installed by setup.sh if missing);
# the seed corpus and dictionary come from the lit inputs and the ODS files
# (scripts/fuzz-inputs.py); what the fuzzer learns stays in
# build/fuzz/corpus across runs.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=180
jobs=1
while (($#)); do
  case "$1" in
    --seconds) seconds=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    *) echo "fuzz.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done

scripts/setup.sh clang-22 libclang-rt-22-dev

build_dir=build/fuzz
if [ ! -f "$build_dir/build.ninja" ]; then
  # Python and CUDA are off: the fuzzer needs neither, and nanobind's and
  # the CUDA runtime's sources are not for a sanitized clang build.
  cmake -G Ninja -S . -B "$build_dir" \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
    -DLLVM_USE_SANITIZER="Address;Undefined" \
    -DLLVM_UBSAN_FLAGS="-fsanitize=undefined -fno-sanitize=vptr,function -fno-sanitize-recover=all" \
    -DLLVM_USE_SANITIZE_COVERAGE=ON \
    -DCMAKE_DISABLE_FIND_PACKAGE_Python=ON \
    -DCMAKE_DISABLE_FIND_PACKAGE_CUDAToolkit=ON \
    -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit
fi
cmake --build "$build_dir" --target pit-fuzz

scripts/fuzz-inputs.py "$build_dir/seeds" "$build_dir/pit.dict"
mkdir -p "$build_dir/corpus" "$build_dir/crashes"
# Leaks are not crashes here: MLIR keeps some allocations for the process's
# life. A pass that takes over 60 s on one input counts as a hang.
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1
fork=()
if ((jobs > 1)); then
  fork=(-fork="$jobs" -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1)
fi
# Crashes, hangs (timeout-), memory outs and leaks fail the run; libFuzzer's
# slow-unit- files (inputs over 10 s, under the 60 s of a hang) are kept
# for a look but fail nothing.
failures() { find "$build_dir/crashes" -name 'crash-*' -o -name 'timeout-*' -o -name 'oom-*' -o -name 'leak-*' | wc -l; }
saved_before=$(failures)
"$build_dir/bin/pit-fuzz" "${fork[@]}" \
  -max_total_time="$seconds" -timeout=60 -rss_limit_mb=6144 \
  -dict="$build_dir/pit.dict" -max_len=16384 \
  -artifact_prefix="$build_dir/crashes/" -print_final_stats=1 \
  "$build_dir/corpus" "$build_dir/seeds"
saved=$(failures)
if ((saved > saved_before)); then
  echo "fuzz.sh: $((saved - saved_before)) new crashing inputs in $build_dir/crashes" >&2
  exit 1
fi
