#!/usr/bin/env bash
# The report tests' fixture (ctest report_run): a real `cuco evolve` of tests/workloads/cpu_exchange
# with the builtin proposer (tests/report/run.toml: 110 candidates) into <run-dir>, made afresh.
# Usage: tests/report/make_run.sh <cuco> <run-dir>
set -eu
CUCO=$1
RUN=$2
SRC=$(cd "$(dirname "$0")/../.." && pwd)
rm -rf "$RUN"
mkdir -p "$(dirname "$RUN")"
export CUCO_CACHE_DIR=${CUCO_CACHE_DIR:-$(dirname "$RUN")/cache}
start=$(date +%s)
"$CUCO" evolve "$SRC/tests/workloads/cpu_exchange" --config "$SRC/tests/report/run.toml" --run-dir "$RUN" >"$RUN.out" 2>&1 || {
  tail -20 "$RUN.out"
  exit 1
}
n=$(sqlite3 "$RUN/cuco.db" "select count(*) from candidates")
echo "make_run: $n candidates in $(($(date +%s) - start)) s: $(sqlite3 "$RUN/cuco.db" "select group_concat(status || ' ' || c, ', ') from (select status, count(*) c from candidates group by status)")"
test "$n" -ge 100
