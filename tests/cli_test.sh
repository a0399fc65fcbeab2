#!/usr/bin/env bash
# End-to-end test of the `cuco` binary on the CPU test workload: exit codes,
# printed records, errors naming file and line, and the SQLite store.
# Usage: tests/cli_test.sh <path-to-cuco>
set -u
CUCO=$1
SRC=$(cd "$(dirname "$0")/.." && pwd)
WL=$SRC/tests/workloads/cpu_matmul
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export CUCO_CACHE_DIR=$T/cache
fails=0
check() {  # check NAME CONDITION...
  local name=$1; shift
  if "$@"; then echo "ok   $name"; else echo "FAIL $name"; fails=$((fails + 1)); fi
}

"$CUCO" eval "$WL" --run-dir "$T/run" >"$T/seed.out" 2>&1
check "seed exits 0" test $? -eq 0
check "seed record says ok" grep -q "^cpu_matmul: ok" "$T/seed.out"
check "seed record has a time" grep -q "ms median (max over 2 ranks" "$T/seed.out"

"$CUCO" eval "$WL" "$WL/candidates/wrong.cc" "$WL/candidates/frozen_edit.cc" --run-dir "$T/run" --json >"$T/bad.json" 2>"$T/bad.err"
check "failed candidates exit 1" test $? -eq 1
check "json holds both records" python3 -c "
import json,sys; r=json.load(open('$T/bad.json'))
assert [x['status'] for x in r]==['wrong_result','rejected'], [x['status'] for x in r]
assert r[0]['verify']['rel_l2']>1e-3
assert 'frozen_edit.cc:4: frozen code differs' in r[1]['reason'], r[1]['reason']"

check "store holds every candidate" test "$(sqlite3 "$T/run/cuco.db" "select group_concat(status) from (select status from candidates order by id)")" = "ok,wrong_result,rejected"
check "store keeps code and metrics" test "$(sqlite3 "$T/run/cuco.db" "select count(*) from candidates where length(code) > 100 and length(metrics_json) > 100")" = "3"

mkdir -p "$T/badwl" && cp "$WL"/*.cc "$T/badwl/" && sed 's/^iters = 20/iters = "many"/' "$WL/workload.toml" >"$T/badwl/workload.toml"
"$CUCO" eval "$T/badwl" --run-dir "$T/run2" >"$T/badwl.out" 2>&1
check "bad workload.toml exits 2" test $? -eq 2
check "error names file and line" grep -q "badwl/workload.toml:34: 'timing.iters' must be an integer" "$T/badwl.out"

"$CUCO" eval "$WL" "$T/missing.cc" >"$T/missing.out" 2>&1
check "missing candidate exits 2" test $? -eq 2

"$CUCO" doctor --json >"$T/doctor.json"
check "doctor --json is JSON with features" python3 -c "import json; d=json.load(open('$T/doctor.json')); assert d['features']"

"$CUCO" frobnicate >/dev/null 2>&1
check "unknown subcommand exits 2" test $? -eq 2

echo "cli_test: $fails failed"
test $fails -eq 0
