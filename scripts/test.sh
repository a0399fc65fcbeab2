#!/usr/bin/env bash
# The whole test suite on a fresh machine: install, build, ctest. GPU tests
# live apart (tests/gpu/, run through bench/device-check.sh on a GPU machine).
# Ends with each phase's wall time (bench/results/*-ci-times/ keeps a clean clone's).
set -euo pipefail
cd "$(dirname "$0")/.."
phases=()
timed() {  # timed NAME COMMAND...: runs it, notes its wall time
  local t0=$SECONDS
  "${@:2}"
  phases+=("$1 $((SECONDS - t0)) s")
}
trap 'echo "test.sh phases: ${phases[*]:-none}; total ${SECONDS} s"' EXIT
timed install scripts/install-deps.sh
timed build env CUCO_WERROR=ON scripts/build.sh  # a warning fails CI
# A tree that passed as it is needs no second run: the key of what the suite depends on
# (scripts/test-key.sh) is kept after a run that passed; CUCO_TEST_RERUN=1 runs it all the same.
key=$(scripts/test-key.sh)
if [ "${CUCO_TEST_RERUN:-0}" != 1 ] && [ -f build/tests-passed.key ] && [ "$(head -1 build/tests-passed.key)" = "$key" ]; then
  echo "test.sh: nothing changed since the run that passed at $(sed -n 2p build/tests-passed.key) (scripts/test-key.sh:" \
       "$key); ctest and the fuzz phase not run again (CUCO_TEST_RERUN=1 runs them)"
  exit 0
fi
rm -f build/tests-passed.key
# Every test's time goes to build/ctest-junit.xml: scripts/slowest-tests.sh prints the slowest.
timed ctest bash -c "cd build && ctest --output-on-failure -j $(nproc) --timeout 1800 --output-junit ctest-junit.xml"
# The parsers of outside input under libFuzzer, as a regression check: the committed corpora and
# regressions replayed, then a short bounded run per target (docs/fuzzing.md; long campaigns are
# scripts/fuzz.sh by hand). The seed is fixed here so that a run is repeatable.
timed fuzz env CUCO_FUZZ_SEED="${CUCO_FUZZ_SEED:-1}" scripts/fuzz.sh "${CUCO_FUZZ_SECONDS:-15}"
printf '%s\n%s\n' "$key" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" >build/tests-passed.key
