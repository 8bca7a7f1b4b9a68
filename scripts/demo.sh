#!/usr/bin/env bash
# README command 1: install what is missing, build, and run the main job
# (scripts/run-demo.sh): the example sparse matmul through the PIT pipeline,
# run on the CPU against a dense float64 reference, compiled for the GPU,
# and run there when this machine has one.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh
scripts/build.sh > build.log 2>&1 || { cat build.log; exit 1; }
exec scripts/run-demo.sh
