#!/usr/bin/env bash
# The whole test suite on a fresh machine: install, build, ctest. GPU tests
# live apart (tests/gpu/, run through bench/device-check.sh on a GPU machine).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
CUCO_WERROR=ON scripts/build.sh  # a warning fails CI
# Every test's time goes to build/ctest-junit.xml: scripts/slowest-tests.sh prints the slowest.
(cd build && ctest --output-on-failure -j 2 --timeout 1800 --output-junit ctest-junit.xml)
# The parsers of outside input under libFuzzer, as a regression check: the committed corpora and
# regressions replayed, then a short bounded run per target (docs/fuzzing.md; long campaigns are
# scripts/fuzz.sh by hand). The seed is fixed here so that a run is repeatable.
CUCO_FUZZ_SEED=${CUCO_FUZZ_SEED:-1} scripts/fuzz.sh "${CUCO_FUZZ_SECONDS:-15}"
