#!/usr/bin/env bash
# The whole test suite on a fresh machine: install, build, ctest. GPU tests
# live apart (tests/gpu/, run through bench/device-check.sh on a GPU machine).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
(cd build && ctest --output-on-failure -j 2 --timeout 1800)
# The parsers of outside input under libFuzzer, a bounded time each (docs/fuzzing.md). The seed is
# fixed here so that a run is repeatable; fuzzing sessions of their own (scripts/fuzz.sh) draw one.
CUCO_FUZZ_SEED=${CUCO_FUZZ_SEED:-1} scripts/fuzz.sh "${CUCO_FUZZ_SECONDS:-60}"
