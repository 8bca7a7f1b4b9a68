#!/usr/bin/env bash
# The benchmark of issue 5 (docs/BENCHMARKS.md), in two steps:
#
#   scripts/bench.sh compile [--sweep]
#       here, without a GPU: build, then compile every kernel of
#       bench/cases.py into build/bench/*.so with pit-compile; the run-time
#       selection libraries use bench/tables/DEVICE.json when it exists
#   scripts/bench.sh run [OUTDIR] [--tables | --sweep | --only S]
#       on the GPU machine, from the repository root with build/bench
#       carried: times PIT and its peers, prints the table, writes
#       OUTDIR/results.json; --tables measures the STile database instead
#       (OUTDIR/tables.json: copy it to bench/tables/DEVICE.json, compile
#       again); --tables --only S measures only the cases named with S and
#       keeps the rest of bench/tables/DEVICE.json
#
# Then, here: python3 bench/report.py OUTDIR/results.json docs/benchmarks
set -euo pipefail
cd "$(dirname "$0")/.."

case "${1:-}" in
  compile)
    scripts/setup.sh
    scripts/build.sh > build.log 2>&1 || { cat build.log; exit 1; }
    rm -rf build/bench
    shift
    python3 bench/compile_cases.py build build/bench "$@"
    ;;
  run)
    out=${2:-bench-results}
    shift $(( $# > 1 ? 2 : 1 ))
    export PYTHONUNBUFFERED=1
    nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
    date -u
    python3 bench/run_benchmark.py build/bench "$out" "$@"
    ;;
  *)
    sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
    ;;
esac
