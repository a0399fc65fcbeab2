#!/usr/bin/env bash
# After stops without a device: every habit and held-out harness in .carry/habits through `cuco eval` at W=1,
# one at a time (graph-habits-w1.sh; evaluations sharing the GPU end `skipped`: the supervisor sees the other
# processes on it and judges nothing), then the supervisor's adversarial and planted phases without MPS
# (supervisor-w1.sh).
# Results under $OUT: summary.txt and times.txt (the habits), habits.tgz (each one's JSON and stderr),
# phases.txt and supervisor-w1.tgz (the supervisor's phases), sup.txt (their output).
# HABITS_S, SUP_S: each part's deadline; PHASES: the supervisor's phases; ONLY: some habits.
# Usage (repo root, .carry/ as in bench/one-gpu/README.md): bash bench/one-gpu/verdicts-w1.sh
set -u
OUT=${OUT:-/tmp/verdicts-out}
mkdir -p "$OUT"
DEADLINE_S=${HABITS_S:-330} OUT=$OUT bash bench/one-gpu/graph-habits-w1.sh >/dev/null 2>&1
mv "$OUT/h/summary.txt" "$OUT/h/times.txt" "$OUT/" 2>/dev/null
tar czf "$OUT/habits.tgz" -C "$OUT" h && rm -rf "$OUT/h"
if [ -n "${PHASES-adversarial planted}" ]; then
  NO_MPS=1 PHASES="${PHASES:-adversarial planted}" DEADLINE_S=${SUP_S:-220} OUT=$OUT bash bench/one-gpu/supervisor-w1.sh \
    >"$OUT/sup.txt" 2>&1
fi
sort "$OUT/summary.txt" | awk '{print $2}' | sort | uniq -c
grep -v " ok " "$OUT/summary.txt"
cat "$OUT/phases.txt" 2>/dev/null
