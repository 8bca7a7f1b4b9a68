#!/usr/bin/env bash
# README command 2: install what is missing, build, and run the whole test
# suite: lit, then the package as `pip install .` installs it
# (scripts/check-package.sh), then three minutes of fuzzing with the
# sanitizers (scripts/fuzz.sh; PIT_FUZZ_SECONDS changes the time). CI runs
# exactly this.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh
scripts/build.sh
cmake --build "${PIT_BUILD_DIR:-build}" --target check-pit
scripts/check-package.sh
scripts/fuzz.sh --seconds "${PIT_FUZZ_SECONDS:-180}"
