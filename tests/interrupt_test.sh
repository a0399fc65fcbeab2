#!/usr/bin/env bash
# Interrupts never judge (issue 28): Ctrl-C sends SIGINT to the terminal's whole process group. Here
# `cuco evolve` of the CPU test workload (small sizes) gets one SIGINT to its whole group at a random
# point of its first 1.5 s of evaluations, TRIALS times (default 50), two at a time; every fourth a
# second one 0.3 s later (the abort). No candidate may end with a verdict other than the one an
# uninterrupted run gave its code (a candidate cut short stays pending), no reason may name a signal,
# and every tenth trial is resumed to the end, where every verdict must be the uninterrupted run's.
# Usage: tests/interrupt_test.sh <path-to-cuco> [TRIALS]
set -u
CUCO=$(realpath "$1")
TRIALS=${2:-50}
SRC=$(cd "$(dirname "$0")/.." && pwd)
WL=$SRC/tests/workloads/cpu_matmul
T=$(mktemp -d)
cleanup() {  # the groups of sessions still running (their leader's pid, in running.N until reaped)
  for f in "$T"/running.*; do [ -f "$f" ] && kill -KILL -- "-$(cat "$f")" 2>/dev/null; done
  rm -rf "$T"
}
trap cleanup EXIT
export CUCO_CACHE_DIR=${CUCO_CACHE_DIR:-$T/cache}  # ctest: the build folder's test-cache, shared by every test
cat >"$T/run.toml" <<'TOML'
seed = 7
[budget]
max_candidates = 3
[islands]
count = 1
[parallelism]
per_generation = 1
[workload]
sizes = { M = 64, N = 64, K = 64 }
TOML

# The uninterrupted run judges the whole knob space (4 configurations): which of them a session
# makes depends on measured times (selection), so every one needs its uninterrupted verdict.
sed 's/^max_candidates = 3/max_candidates = 4/' "$T/run.toml" >"$T/base.toml"
"$CUCO" evolve "$WL" --config "$T/base.toml" --run-dir "$T/base" --json >"$T/base.json" 2>"$T/base.err" || {
  echo "FAIL the uninterrupted run: $(tail -3 "$T/base.err")"; exit 1; }
sqlite3 "$T/base/cuco.db" "select code_hash, status from candidates" >"$T/base.verdicts"
if [ "$(wc -l <"$T/base.verdicts")" -ne 4 ] || grep -qv '|ok$' "$T/base.verdicts"; then
  echo "FAIL the uninterrupted run must judge the 4 configurations, all ok:"; cat "$T/base.verdicts"; exit 1
fi

# compare RUN_DIR [final]: every judged candidate as the uninterrupted run judged its code (final:
# none may be left pending either).
compare() {
  python3 - "$T/base.verdicts" "$1/cuco.db" "${2:-}" <<'PY'
import json, sqlite3, sys
base = dict(line.strip().split("|") for line in open(sys.argv[1]) if line.strip())
rows = sqlite3.connect(sys.argv[2]).execute("select id, code_hash, status, metrics_json from candidates").fetchall()
bad = []
for cid, h, status, metrics in rows:
    reason = (json.loads(metrics or "{}").get("search") or {}).get("reason", "") if metrics else ""
    if status == "pending" and sys.argv[3] != "final":
        continue
    if base.get(h) != status:
        bad.append(f"#{cid} {status} (uninterrupted: {base.get(h, 'not made')}): {reason}")
    elif "signal" in reason.lower():
        bad.append(f"#{cid} {status}, reason names a signal: {reason}")
print("\n".join(bad))
PY
}

trial() {  # trial N: one interrupted session (and, every tenth, its resume); prints failures
  local i=$1 rd=$T/t$1 pid rc
  setsid "$CUCO" evolve "$WL" --config "$T/run.toml" --run-dir "$rd" --json >"$rd.out" 2>"$rd.err" &
  pid=$!
  echo "$pid" >"$T/running.$i"
  # From the first evaluation on (cuco's handler is in place by then; before it, a background job
  # of a script ignores SIGINT), at a random point of the next 1.5 s.
  for _ in $(seq 300); do [ -d "$rd/candidates/1" ] || ! kill -0 "$pid" 2>/dev/null && break; sleep 0.05; done
  sleep "$(awk -v s="$RANDOM" 'BEGIN { srand(s); printf "%.3f", 1.5 * rand() }')"
  kill -INT -- "-$pid" 2>/dev/null
  if [ $((i % 4)) -eq 0 ]; then sleep 0.3; kill -INT -- "-$pid" 2>/dev/null; fi
  for _ in $(seq 600); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  if kill -0 "$pid" 2>/dev/null; then kill -KILL -- "-$pid"; echo "trial $i: cuco still ran 60 s after the SIGINT"; fi
  wait "$pid"; rc=$?
  rm -f "$T/running.$i"
  echo "$rc" >>"$T/exits"
  # 0: done before the signal; 5: stopped; 6: aborted; 130: the signal came before its handler.
  case $rc in 0|5|6|130) ;; *) echo "trial $i: exit $rc: $(tail -2 "$rd.err")" ;; esac
  [ -f "$rd/cuco.db" ] || return 0
  local bad; bad=$(compare "$rd")
  [ -z "$bad" ] || echo "trial $i: $bad"
  if [ $((i % 10)) -eq 0 ]; then
    "$CUCO" evolve --resume "$rd" --json >"$rd.resumed.out" 2>&1 || echo "trial $i: resume failed: $(tail -2 "$rd.resumed.out")"
    bad=$(compare "$rd" final)
    [ -z "$bad" ] || echo "trial $i resumed: $bad"
  fi
}

start=$SECONDS
: >"$T/failures"
for ((i = 1; i <= TRIALS; i += 2)); do
  trial "$i" >>"$T/failures" &
  a=$!
  if [ $((i + 1)) -le "$TRIALS" ]; then trial $((i + 1)) >>"$T/failures" & b=$!; else b=""; fi
  wait $a ${b:+$b}
done
pending=0
for ((i = 1; i <= TRIALS; i++)); do
  [ -f "$T/t$i/cuco.db" ] && pending=$((pending + $(sqlite3 "$T/t$i/cuco.db" "select count(*) from candidates where status = 'pending'")))
done
exits=$(sort "$T/exits" | uniq -c | awk '{ printf "%s%s x %s", (NR > 1 ? ", " : ""), $2, $1 }')
echo "$TRIALS interrupted sessions in $((SECONDS - start)) s (exit codes: $exits); $pending candidates left pending by their interrupt"
if [ -s "$T/failures" ]; then
  echo "FAIL verdicts changed by an interrupt:"; cat "$T/failures"; exit 1
fi
echo "0 verdicts changed"
