#!/usr/bin/env bash
# README command 1: install what is missing, build, and run the main job on
# the example sparse program.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh
scripts/build.sh > build.log 2>&1 || { cat build.log; exit 1; }
pit_opt=${PIT_BUILD_DIR:-build}/bin/pit-opt

banner() { printf '\n== %s\n' "$*"; }

banner "The program: C = A x B, A dynamically sparse (examples/sparse_matmul.mlir)"
"$pit_opt" examples/sparse_matmul.mlir

banner "The same matmul from a front end that knows nothing of PIT, marked by pit-mark-sparse"
"$pit_opt" examples/sparse_matmul.mlir --pit-strip-sparse-marks \
  --pit-mark-sparse="op-name=linalg.matmul operand=0 micro-tiles=32x1,1x64" |
  grep linalg.matmul

banner "Its PIT form for 32x1 micro-tiles, verified (examples/sparse_matmul_stile.mlir)"
"$pit_opt" examples/sparse_matmul_stile.mlir

banner "A malformed STile is refused with a precise message"
sed 's/tile \[32, 64, 32\]/tile [64, 64, 32]/' examples/sparse_matmul_stile.mlir |
  "$pit_opt" 2>&1 >/dev/null | head -n 1 || true
