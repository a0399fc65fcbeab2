#!/usr/bin/env bash
# The terminal viewers on a real run (the report_run fixture): show, diff, best, export, ls,
# report; their data checked against the store with sqlite3, bad input exits 2.
# Usage: tests/report/views_test.sh <cuco> <run-dir>
set -u
CUCO=$1
RUN=$2
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fails=0
check() {  # check NAME CONDITION...
  local name=$1; shift
  if "$@"; then echo "ok   $name"; else echo "FAIL $name"; fails=$((fails + 1)); fi
}
q() { sqlite3 "$RUN/cuco.db" "$1"; }

N=$(q "select count(*) from candidates")
BEST=$(q "select id from candidates where status = 'ok' and time_ms >= 0 order by time_ms, id limit 1")
"$CUCO" best "$RUN" -o "$T/best.cc" 2>"$T/best.err"
check "best -o writes the fastest verified candidate's code" python3 -c "
import sqlite3; code, = sqlite3.connect('$RUN/cuco.db').execute('select code from candidates where id = $BEST').fetchone()
assert open('$T/best.cc').read() == code"
check "best --json names it" test "$("$CUCO" best "$RUN" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')" = "$BEST"

"$CUCO" export "$RUN" --json >"$T/e.json"
check "export --json: one row per candidate, every column" python3 -c "
import json; rows = json.load(open('$T/e.json')); assert len(rows) == $N, len(rows)
need = {'id','parent_id','extra_parent_ids','island','generation','status','reason','time_ms','speedup','mutation_kind',
        'proposer','code_hash','run_id','created_ms','finished_ms','feedback','features_json','metrics_json',
        'diff_from_parent','code','logs','knob.tile','knob.chunks','knob.placement','knob.threads','knob.unroll','knob.loop_order'}
assert all(need <= set(r) for r in rows), need - set(rows[0])"
"$CUCO" export "$RUN" --csv -o "$T/e.csv"
check "export --csv: header and one record per candidate" python3 -c "
import csv, sys; csv.field_size_limit(sys.maxsize)  # metrics_json holds every timed iteration (up to 640)
rows = list(csv.DictReader(open('$T/e.csv', newline='')))
assert len(rows) == $N and rows[0]['id'] == '1' and 'knob.chunks' in rows[0], len(rows)"
"$CUCO" export "$RUN" >/dev/null 2>"$T/x.err"
check "export without --csv/--json exits 2" bash -c "[ $? -eq 2 ] && grep -q 'exactly one of --csv and --json' '$T/x.err'"

CHILD=$(q "select id from candidates where parent_id > 0 and status = 'ok' and diff_from_parent != '' order by id desc limit 1")
"$CUCO" show "$RUN" "$CHILD" >"$T/show.txt"
check "show prints verdict, time, parent, knobs and code" bash -c "grep -q '^candidate #$CHILD' '$T/show.txt' && grep -q 'verdict     ok' '$T/show.txt' && grep -q 'knob        chunks = ' '$T/show.txt' && grep -q 'EVOLVE-BLOCK-START' '$T/show.txt'"
check "show prints how precisely the median is known" grep -q 'precision   median 95% interval .* (+-[0-9.]*%)' "$T/show.txt"
check "show --json is the export row" python3 -c "
import json, subprocess; r = json.loads(subprocess.check_output(['$CUCO', 'show', '$RUN', '$CHILD', '--json']))
assert r['id'] == $CHILD and r['status'] == 'ok' and r['code']"
"$CUCO" diff "$RUN" "$CHILD" >"$T/d1.txt"
check "diff <a>: the change from its parent" bash -c "grep -q '^+.*cuco:knob' '$T/d1.txt' && grep -q '^--- #' '$T/d1.txt'"
"$CUCO" diff "$RUN" seed "$CHILD" --json >"$T/d2.json"
check "diff seed <a> --json" python3 -c "import json; d = json.load(open('$T/d2.json')); assert d['from'] == 1 and d['to'] == $CHILD and '@@' in d['diff']"
"$CUCO" show "$RUN" 99999 >/dev/null 2>"$T/s.err"
check "show of an unknown id exits 2 naming it" bash -c "[ $? -eq 2 ] && grep -q 'no candidate 99999' '$T/s.err'"
"$CUCO" show "$T/nowhere" 1 >/dev/null 2>"$T/s2.err"
check "a folder without cuco.db exits 2" bash -c "[ $? -eq 2 ] && grep -q 'not a run directory' '$T/s2.err'"

mkdir -p "$T/runs" && ln -s "$RUN" "$T/runs/a"
"$CUCO" ls "$T/runs" --json >"$T/ls.json"
check "ls --json lists the run with its best" python3 -c "
import json; r = json.load(open('$T/ls.json')); assert len(r) == 1 and r[0]['best_id'] == $BEST and r[0]['candidates'] == $N, r"
check "ls prints a line per run" bash -c "'$CUCO' ls '$T/runs' | grep -q 'cpu_exchange'"

"$CUCO" report "$RUN" "$RUN" -o "$T/r.html" >"$T/r.out"
check "report of two runs writes one file" bash -c "grep -q 'report of 2 run(s)' '$T/r.out' && test -s '$T/r.html'"
check "the report is self-contained (no external script or link)" bash -c "! grep -Eq '<(script|link)[^>]+(src|href)=' '$T/r.html'"
CUCO_CACHE_DIR=${CUCO_CACHE_DIR:-$T/cache} "$CUCO" bench "$(cd "$(dirname "$0")/../workloads/cpu_exchange" && pwd)" --no-peers --run-dir "$T/bench" >"$T/bench.out" 2>&1
"$CUCO" report "$RUN" --bench "$T/bench/bench.json" -o "$T/rb.html" >/dev/null
# The fastest variant of this bench run (which one wins depends on the machine's load).
FASTEST=$(python3 -c "
import json; rows = json.load(open('$T/bench/bench.json'))['table']['rows']
ok = [r for r in rows if r.get('kind') == 'variant' and r.get('status') == 'ok' and isinstance(r.get('median_ms'), (int, float))]
print(min(ok, key=lambda r: r['median_ms'])['name'] if ok else 'none')")
# No ok variant means the bench itself failed: say why (its output) rather than only the chart.
[ "$FASTEST" = none ] && { echo "bench of cpu_exchange gave no ok variant:"; tail -n 30 "$T/bench.out"; }
check "report --bench: the best variant ($FASTEST) and the overlap bound as chart lines" bash -c "grep -q '\"label\":\"best variant $FASTEST\"' '$T/rb.html' && grep -q '\"label\":\"overlap bound (cuco' '$T/rb.html'"
"$CUCO" report "$RUN" --bench "$T/r.out" -o "$T/rb2.html" >/dev/null 2>"$T/rb2.err"
check "report --bench of a file that is no bench JSON exits 2 naming it" bash -c "[ $? -eq 2 ] && grep -q 'r.out: not a' '$T/rb2.err'"
echo "views_test: $fails failed"
test $fails -eq 0
