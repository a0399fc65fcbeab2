#!/usr/bin/env bash
# End-to-end test of Ctrl-C on a search of the CPU test workload (tests/interrupt_test.sh tries
# random moments; here each answer is checked).
# Usage: tests/cli_ctrl_c_test.sh <path-to-cuco>
source "$(dirname "$0")/cli_common.sh"

# Ctrl-C, through a real SIGINT to a real search: the first answers at once, lets the evaluation in
# flight finish and store, exits 5; a second kills the evaluations in flight (left pending), exits
# 6; --resume then finishes either run with no candidate lost or evaluated twice.
mkdir -p "$T/wlk" && cp -r "$WL"/. "$T/wlk/"
sed -i 's|^constexpr int kUnroll = 1;.*|&\nconstexpr int kPad = 0;  // cuco:knob pad|' "$T/wlk/seed.cc"
printf '\n[[knobs]]\nname = "pad"\ndescription = "does nothing (test knob)"\nvalues = [0, 1, 2]\ndefault = 0\n' >>"$T/wlk/workload.toml"
q() { sqlite3 "$1/cuco.db" "$2" 2>/dev/null; }
interrupt_mid_evaluation() {  # RUN_DIR SIGNALS: starts a search, sends SIGNALS SIGINTs mid-evaluation; sets RC
  # A compile cache of its own: with the previous run's, the candidate in flight is a cache hit that
  # may finish inside the half second before the second SIGINT.
  CUCO_CACHE_DIR="$1.cache" "$CUCO" evolve "$T/wlk" --max-candidates 5 --run-dir "$1" >"$1.out" 2>"$1.err" &
  local pid=$! i d p
  for i in $(seq 1 3000); do
    d=$(q "$1" "select count(*) from candidates where status != 'pending'")
    p=$(q "$1" "select count(*) from candidates where status = 'pending'")
    if [ "${d:-0}" -ge 2 ] && [ "${p:-0}" -ge 1 ]; then break; fi
    sleep 0.05
  done
  kill -INT $pid
  # "At once": the whole stop line (one write(2)) is there while the search still runs, before the candidate in
  # flight (compiling into a cache of its own) ends; polled for up to 5 s, as a loaded CI machine
  # (2 cores, the Slurm test beside) took longer than a fixed half second.
  AT_ONCE=0
  for i in $(seq 1 100); do
    if grep -qE "^cuco evolve: stopping: [0-9]+ candidates in flight; Ctrl-C again to abort them$" "$1.err"; then
      kill -0 $pid 2>/dev/null && AT_ONCE=1
      break
    fi
    sleep 0.05
  done
  cp "$1.err" "$1.err-at-once"
  if [ "$2" -ge 2 ]; then kill -INT $pid; fi
  wait $pid
  RC=$?
}
interrupt_mid_evaluation "$T/int1" 1
# The count is what is in flight at the signal: under load the candidate seen pending may have
# finished just before it (0), which is as right; the answer at once is what is checked.
check "first Ctrl-C answers at once" test $AT_ONCE -eq 1
check "first Ctrl-C says what it waits for" grep -qE "^cuco evolve: stopping: [01] candidates in flight; Ctrl-C again to abort them" "$T/int1.err-at-once"
check "first Ctrl-C exits 5" test $RC -eq 5
check "first Ctrl-C: the one in flight finished and stored" test "$(q "$T/int1" "select count(*) from candidates where status = 'pending'")" = 0
check "first Ctrl-C: stopped early" test "$(q "$T/int1" "select count(*) from candidates")" -lt 5
"$CUCO" evolve --resume "$T/int1" >"$T/int1b.out" 2>&1
check "resume after Ctrl-C exits 0" test $? -eq 0
check "resume after Ctrl-C: 5 candidates, none twice, no gap" test "$(q "$T/int1" "select count(*) || '-' || count(distinct code_hash) || '-' || max(id) from candidates")" = 5-5-5
interrupt_mid_evaluation "$T/int2" 2
check "second Ctrl-C says it aborts" grep -qF "aborting the 1 candidates in flight; they stay pending and --resume evaluates them again" "$T/int2.err"
check "second Ctrl-C exits 6" test $RC -eq 6
check "second Ctrl-C: the aborted one is left pending" test "$(q "$T/int2" "select count(*) from candidates where status = 'pending'")" -ge 1
check "second Ctrl-C: summary says so" grep -q "aborted by a second Ctrl-C" "$T/int2.out"
sleep 0.5
check "second Ctrl-C: no process of the run is left" test -z "$(pgrep -f "$T/int2/candidates/")"
PENDING=$(q "$T/int2" "select group_concat(id) from candidates where status = 'pending'")
"$CUCO" evolve --resume "$T/int2" >"$T/int2b.out" 2>&1
check "resume after the abort exits 0" test $? -eq 0
check "resume evaluated the aborted ones under their ids" test \
  "$(q "$T/int2" "select count(*) from candidates where id in ($PENDING) and status = 'ok'")" = "$(echo "$PENDING" | tr , '\n' | wc -l)"
check "resume after the abort: 5 candidates, none twice, no gap" test "$(q "$T/int2" "select count(*) || '-' || count(distinct code_hash) || '-' || max(id) from candidates")" = 5-5-5

cli_done cli_ctrl_c_test
