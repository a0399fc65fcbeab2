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
# The tests in BESIDE mostly wait (on a Slurm scheduler and its jobs): they run beside ctest's
# slots, in a ctest of their own (in build/tests: its own Testing/ log and JUnit file,
# build/ctest-beside-junit.xml), instead of holding a slot; a failure there fails this phase too.
BESIDE='^slurm_cluster$'
run_ctest() {
  local rc=0 beside_rc=0 beside
  (cd build/tests && exec ctest -R "$BESIDE" --output-on-failure --timeout 1800 \
     --output-junit "$PWD/../ctest-beside-junit.xml") >build/ctest-beside.log 2>&1 &
  beside=$!
  (cd build && ctest --output-on-failure -j "$(nproc)" --timeout 1800 -E "$BESIDE" --output-junit ctest-junit.xml) || rc=$?
  wait "$beside" || beside_rc=$?
  echo "== the tests run beside ctest ($BESIDE; build/ctest-beside.log):"
  cat build/ctest-beside.log
  [ "$rc" -eq 0 ] && [ "$beside_rc" -eq 0 ]
}
timed ctest run_ctest
# The parsers of outside input under libFuzzer, as a regression check: the committed corpora and
# regressions replayed, then a short bounded run per target (docs/fuzzing.md; long campaigns are
# scripts/fuzz.sh by hand). The seed is fixed here so that a run is repeatable.
timed fuzz env CUCO_FUZZ_SEED="${CUCO_FUZZ_SEED:-1}" scripts/fuzz.sh "${CUCO_FUZZ_SECONDS:-15}"
printf '%s\n%s\n' "$key" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" >build/tests-passed.key
