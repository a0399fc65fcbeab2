#!/usr/bin/env bash
# A run is bound to what it measures (issue 28; docs/search.md "Resume"): `cuco evolve --resume` of a
# run whose workload changed (a loosened tolerance) or whose config.toml was emptied is refused with
# exit 2, naming what changed; `--resume --accept-changes` goes on as a new lineage, recorded in the
# store and in `cuco report`'s data. One evaluation (the CPU seed) and the frozen build: 40 s on 2 busy cores.
# Usage: tests/resume_binding_test.sh <path-to-cuco>
set -u
CUCO=$1
SRC=$(cd "$(dirname "$0")/.." && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export CUCO_CACHE_DIR=${CUCO_CACHE_DIR:-$T/cache}  # ctest: the build folder's test-cache, shared by every test
fails=0
check() {  # check NAME CONDITION...
  local name=$1; shift
  if "$@"; then echo "ok   $name"; else echo "FAIL $name"; fails=$((fails + 1)); fi
}
q() { sqlite3 "$T/run/cuco.db" "$1"; }

mkdir -p "$T/wl" && cp -r "$SRC/tests/workloads/cpu_matmul/." "$T/wl/"
printf '[budget]\nmax_candidates = 1\n' >"$T/run.toml"
"$CUCO" evolve "$T/wl" --config "$T/run.toml" --run-dir "$T/run" >"$T/first.out" 2>&1
check "the first session runs" test $? -eq 0
check "the binding is recorded" test -n "$(q "select value from meta where key = 'search.binding'")"

# A tolerance loosened between two sessions: refused, field by field.
cp "$T/wl/workload.toml" "$T/workload.toml.saved"
sed -i 's/^rel_l2 = 1e-4/rel_l2 = 0.5/' "$T/wl/workload.toml"
"$CUCO" evolve --resume "$T/run" >"$T/loose.out" 2>&1
check "a loosened tolerance is refused (exit 2)" test $? -eq 2
check "... naming the field and both values" grep -q "workload.toml tolerance.rel_l2: 0.0001 -> 0.5" "$T/loose.out"
check "... and how to go on" grep -q -- "--accept-changes" "$T/loose.out"
cp "$T/workload.toml.saved" "$T/wl/workload.toml"

# An emptied config.toml: refused, not resumed with every default.
cp "$T/run/config.toml" "$T/config.saved"
: >"$T/run/config.toml"
"$CUCO" evolve --resume "$T/run" >"$T/empty.out" 2>&1
check "an emptied config.toml is refused (exit 2)" test $? -eq 2
check "... saying it is empty" grep -q "config.toml: empty" "$T/empty.out"
# A config that still parses but changed what the search does: refused too.
printf '[islands]\ncount = 3\n' | cat "$T/config.saved" - >"$T/run/config.toml"
"$CUCO" evolve --resume "$T/run" >"$T/islands.out" 2>&1
check "a changed config key is refused (exit 2)" test $? -eq 2
check "... naming it" grep -q "config.toml islands.count: 2 -> 3" "$T/islands.out"
cp "$T/config.saved" "$T/run/config.toml"

# Unchanged: resumes (nothing left to do within the budget).
"$CUCO" evolve --resume "$T/run" >"$T/same.out" 2>&1
check "an unchanged run resumes" test $? -eq 0

# Accepted: a new lineage, recorded.
sed -i 's/^rel_l2 = 1e-4/rel_l2 = 0.5/' "$T/wl/workload.toml"
"$CUCO" evolve --resume "$T/run" --accept-changes --max-candidates 2 --json >"$T/accept.json" 2>"$T/accept.err"
check "--accept-changes resumes" test $? -eq 0
check "... as lineage 2" python3 -c "
import json; j = json.load(open('$T/accept.json')); assert j['lineage'] == 2, j
assert j['lineage_changes'] == ['workload.toml tolerance.rel_l2: 0.0001 -> 0.5'], j"
check "... recorded in the store" python3 -c "
import json, sqlite3; c = sqlite3.connect('$T/run/cuco.db')
l = json.loads(c.execute(\"select value from meta where key = 'search.lineages'\").fetchone()[0])
assert [x['lineage'] for x in l] == [1, 2] and l[1]['from_id'] == 2, l"
check "... and on the candidates judged in it" test "$(q "select count(*) from candidates where id = 2 and metrics_json like '%\"lineage\":2%'")" = 1
"$CUCO" report "$T/run" -o "$T/report.html" >/dev/null 2>&1
check "the report carries the lineages" grep -q "tolerance.rel_l2: 0.0001 -&gt; 0.5\|tolerance.rel_l2: 0.0001 -\\\\u003e 0.5\|tolerance.rel_l2: 0.0001 -> 0.5" "$T/report.html"
check "--accept-changes needs --resume" sh -c "'$CUCO' evolve '$T/wl' --accept-changes --run-dir '$T/other' >/dev/null 2>&1; test \$? -eq 2"

echo "$fails failed"
[ "$fails" -eq 0 ]
