#!/usr/bin/env bash
# End-to-end test of `cuco evolve` on the CPU test workload (no GPU): the builtin proposer finds
# the fast loop order; a run killed with SIGKILL mid-evaluation is finished by --resume with no
# candidate lost or evaluated twice; config errors name file and line.
# Usage: tests/evolve_test.sh <path-to-cuco>
set -u
CUCO=$1
SRC=$(cd "$(dirname "$0")/.." && pwd)
WL=$SRC/tests/workloads/cpu_matmul
T=$(mktemp -d)
BG=""
trap '[ -n "$BG" ] && kill -9 $BG 2>/dev/null; rm -rf "$T"' EXIT
export CUCO_CACHE_DIR=${CUCO_CACHE_DIR:-$T/cache}  # ctest: the build folder's test-cache, shared by every test
fails=0
check() {  # check NAME CONDITION...
  local name=$1; shift
  if "$@"; then echo "ok   $name"; else echo "FAIL $name"; fails=$((fails + 1)); fi
}
q() { sqlite3 "$1/cuco.db" "$2"; }

# 1. The builtin proposer over loop_order x unroll (4 configurations), 2 islands, 12 candidates.
cat >"$T/run.toml" <<'TOML'
seed = 3
[budget]
max_candidates = 12
[islands]
count = 2
TOML
"$CUCO" evolve "$WL" --config "$T/run.toml" --run-dir "$T/r1" >"$T/r1.out" 2>"$T/r1.err"
check "evolve exits 0" test $? -eq 0
check "the knob space is exhausted after 4 candidates" grep -q "knob space exhausted: all 4 configurations" "$T/r1.out"
check "every candidate passed" test "$(q "$T/r1" "select count(*) from candidates where status = 'ok'")" = 4
check "no code evaluated twice" test "$(q "$T/r1" "select count(distinct code_hash) from candidates")" = 4
BEST=$(q "$T/r1" "select id from candidates where status = 'ok' order by time_ms limit 1")
# Which configuration is fastest is a timing (benchmarks judge it, not tests: on a loaded machine
# the CPU timings swap); what the search must get right is that the best it names and writes is
# the fastest verified candidate it stored.
check "summary names the best and its file" grep -q "best: candidate $BEST at .* ms, .*x over the seed" "$T/r1.out"
check "best code written is the fastest stored candidate's" python3 -c "
import sqlite3; c = sqlite3.connect('$T/r1/cuco.db')
code, = c.execute(\"select code from candidates where status = 'ok' order by time_ms limit 1\").fetchone()
assert open('$T/r1/best.cc').read() == code"
check "run dir holds config, store and logs" test -f "$T/r1/config.toml" -a -f "$T/r1/cuco.db" -a -s "$T/r1/logs/evolve.log"
check "candidates carry parent, diff, kind, feedback and features" test \
  "$(q "$T/r1" "select count(*) from candidates where id > 1 and parent_id > 0 and diff_from_parent like '%cuco:knob%' and mutation_kind in ('knobs','crossover','compose') and proposer = 'builtin' and feedback like 'ok %x over seed%' and features_json like '%loop_order%'")" = 3
check "progress lines on stderr" grep -q "^gen 1 explore | .* candidates" "$T/r1.err"
check "meta-summary stored" test -n "$(q "$T/r1" "select value from meta where key = 'search.meta_summary'")"

"$CUCO" evolve --resume "$T/r1" >"$T/r1b.out" 2>&1
check "resuming a finished run evaluates nothing new" test "$(q "$T/r1" "select count(*) from candidates")" = 4

# 2. A bigger space (a third knob, 12 configurations), killed with SIGKILL mid-evaluation.
mkdir -p "$T/wl" && cp -r "$WL"/. "$T/wl/"
sed -i 's|^constexpr int kUnroll = 1;.*|&\nconstexpr int kPad = 0;  // cuco:knob pad|' "$T/wl/seed.cc"
printf '\n[[knobs]]\nname = "pad"\ndescription = "does nothing (test knob)"\nvalues = [0, 1, 2]\ndefault = 0\n' >>"$T/wl/workload.toml"
cat >"$T/run2.toml" <<'TOML'
seed = 5
[budget]
max_candidates = 10
[islands]
count = 2
TOML
"$CUCO" evolve "$T/wl" --config "$T/run2.toml" --run-dir "$T/r2" >"$T/r2a.out" 2>&1 &
BG=$!
killed=no
for _ in $(seq 1 1500); do
  if [ -f "$T/r2/cuco.db" ]; then
    done_n=$(q "$T/r2" "select count(*) from candidates where status != 'pending'" 2>/dev/null || echo 0)
    pend_n=$(q "$T/r2" "select count(*) from candidates where status = 'pending'" 2>/dev/null || echo 0)
    if [ "${done_n:-0}" -ge 4 ] && [ "${pend_n:-0}" -ge 1 ]; then kill -9 $BG; killed=yes; break; fi
  fi
  sleep 0.02
done
wait $BG 2>/dev/null
BG=""
check "killed mid-evaluation" test $killed = yes
sleep 1  # let the killed run's rank processes finish
q "$T/r2" "select id, code_hash, status, finished_ms from candidates where status != 'pending' order by id" >"$T/before.txt"
PENDING=$(q "$T/r2" "select group_concat(id) from candidates where status = 'pending'")
BEFORE_N=$(wc -l <"$T/before.txt")
"$CUCO" evolve --resume "$T/r2" >"$T/r2b.out" 2>"$T/r2b.err"
check "resume exits 0" test $? -eq 0
check "resume says it re-evaluated the pending ones" grep -q "left in flight by the killed session evaluated again" "$T/r2b.out"
check "the budget is met exactly" test "$(q "$T/r2" "select count(*) from candidates")" = 10
check "nothing left pending" test "$(q "$T/r2" "select count(*) from candidates where status = 'pending'")" = 0
check "no code evaluated twice" test "$(q "$T/r2" "select count(distinct code_hash) from candidates")" = 10
q "$T/r2" "select id, code_hash, status, finished_ms from candidates order by id" | head -n "$BEFORE_N" | grep -v -E "^($(echo "$PENDING" | tr , '|'))\|" >"$T/after.txt"
check "finished candidates untouched by the resume (not lost, not re-run)" diff "$T/before.txt" "$T/after.txt"
check "the pending ones finished under their ids" test \
  "$(q "$T/r2" "select count(*) from candidates where id in ($PENDING) and status = 'ok'")" = "$(echo "$PENDING" | tr , '\n' | wc -l)"
check "ids run 1..10 with no gap" test "$(q "$T/r2" "select min(id) || '-' || max(id) from candidates")" = "1-10"

# 3. Bad input.
printf 'seed = 1\n[budget]\nmax_candidats = 3\n' >"$T/bad.toml"
"$CUCO" evolve "$WL" --config "$T/bad.toml" --run-dir "$T/r3" >"$T/bad.out" 2>&1
check "bad config exits 2" test $? -eq 2
check "bad config error names file and line" grep -q "bad.toml:3: unknown key 'budget.max_candidats'" "$T/bad.out"
printf '[budget]\nmax_candidates = 1\n[proposer]\nname = "llm"\n' >"$T/llm.toml"
"$CUCO" evolve "$WL" --config "$T/llm.toml" --run-dir "$T/r4" >"$T/llm.out" 2>&1
rc=$?
check "llm proposer without an endpoint: error naming the config line" bash -c "[ $rc -ne 0 ] && grep -q 'llm.toml:4' '$T/llm.out'"

# 4. The LLM path end to end, with an external agent command as the model (no network): its
# answer is a SEARCH/REPLACE diff that switches the loop order; a second answer no longer applies
# to its parent and must be stored as a failed candidate, never crash the run.
cat >"$T/agent.sh" <<'AGENT'
#!/bin/sh
cat >/dev/null
printf 'SUMMARY: unit-stride inner loop (ikj)\n<<<<<<< SEARCH\nconstexpr const char* kLoopOrder = "ijk";  // cuco:knob loop_order\n=======\nconstexpr const char* kLoopOrder = "ikj";  // cuco:knob loop_order\n>>>>>>> REPLACE\n'
AGENT
chmod +x "$T/agent.sh"
printf 'seed = 3\n[budget]\nmax_candidates = 4\n[islands]\ncount = 1\n[mutation.explore]\nknobs = 0\ndiff = 1\nrewrite = 0\ncrossover = 0\n[mutation.exploit]\nknobs = 0\ndiff = 1\nrewrite = 0\ncrossover = 0\n[proposer]\nname = "llm"\n[proposer.llm]\nprovider = "command"\nmodel = "agent"\ncommand = "%s"\n' "$T/agent.sh" >"$T/agent.toml"
"$CUCO" evolve "$WL" --config "$T/agent.toml" --run-dir "$T/r5" >"$T/agent.out" 2>&1
check "llm (command) run exits 0" test $? -eq 0
check "llm candidate stored with its proposer" test "$(q "$T/r5" "select count(*) from candidates where proposer like 'llm:%' and status = 'ok'")" -ge 1
check "llm diff switched the loop order" test "$(q "$T/r5" "select count(*) from candidates where proposer like 'llm:%' and code like '%kLoopOrder = \"ikj\"%'")" -ge 1
check "prompts logged under the run dir" bash -c "ls '$T/r5/llm/' | grep -q ."
"$CUCO" evolve "$WL" --run-dir "$T/r1" >"$T/again.out" 2>&1
check "an existing run dir needs --resume" bash -c "[ $? -eq 2 ] && grep -q 'already holds a run' '$T/again.out'"
"$CUCO" evolve --resume "$T/r1" --config "$T/run.toml" >/dev/null 2>&1
check "--resume with --config exits 2" test $? -eq 2

# 6. --world-size and --size: recorded in the run's config.toml ([workload]), kept by --resume.
printf 'seed = 3\n[budget]\nmax_candidates = 2\n[islands]\ncount = 1\n' >"$T/small.toml"
"$CUCO" evolve "$WL" --config "$T/small.toml" --run-dir "$T/r6" --world-size 1 --size M=96 >"$T/r6.out" 2>&1
check "--world-size 1 --size M=96 run exits 0" test $? -eq 0
check "config.toml records them" bash -c "grep -q '^world_size = 1' '$T/r6/config.toml' && grep -q '^sizes = { M = 96 }' '$T/r6/config.toml'"
"$CUCO" evolve --resume "$T/r6" --size M=48 >"$T/r6b.out" 2>&1
check "--resume with --size exits 2" bash -c "[ $? -eq 2 ] && grep -q 'keeps the run' '$T/r6b.out'"
"$CUCO" evolve "$WL" --config "$T/small.toml" --run-dir "$T/r7" --world-size 3 >"$T/r7.out" 2>&1
check "a world size the workload lacks exits 2, naming its world_sizes" bash -c "[ $? -eq 2 ] && grep -q -- '--world-size 3: not among the world_sizes of' '$T/r7.out'"
"$CUCO" evolve "$WL" --config "$T/small.toml" --run-dir "$T/r8" --size Q=3 >"$T/r8.out" 2>&1
check "an unknown size exits 2, naming the bench sizes" bash -c "[ $? -eq 2 ] && grep -q -- '--size Q=3: expected NAME=VALUE with NAME one of the bench sizes' '$T/r8.out'"

echo "evolve_test: $fails failed"
test $fails -eq 0
