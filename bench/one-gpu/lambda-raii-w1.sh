#!/usr/bin/env bash
# Stop 71's call: the habits of a chunk's work in a lambda reaching RAII buffers through `.get()`
# (scaffold/held_accessors.h's UseHeldInLambdas) and of two source files keeping helpers of one name
# to themselves (scaffold/file_local_names.h), through `cuco eval` at W=1 (graph-habits-w1.sh), and
# any held-out harness put beside them in .carry/habits; then `cuco run` of RUN: generation 0's knobs,
# the best re-timed beside the program's overlap bound.
# Results under $OUT: h/summary.txt, h/times.txt, run.txt (cuco run's output).
# ONLY: the habits evaluated (default: every .carry/habits/<name>); RUN: the one `cuco run` searches;
# WORLD: the rank count of both (default 1; 2 or 4 on a machine of that many GPUs).
# Usage (repo root, .carry/ as in bench/one-gpu/README.md): bash bench/one-gpu/lambda-raii-w1.sh
set -u
OUT=${OUT:-/tmp/lambda-raii-out}
mkdir -p "$OUT"
RUN=${RUN-lambda_chunks_raii}  # RUN= (empty): no search
DEADLINE_S=${DEADLINE_S:-220} OUT=$OUT bash bench/one-gpu/graph-habits-w1.sh >/dev/null 2>&1
rm -f "$OUT"/h/*.json "$OUT"/h/*.err
export LD_LIBRARY_PATH=$PWD/.carry/lib PATH=$PWD/.carry/bin:$PATH NCCL_NVLS_ENABLE=0 CUCO_CACHE_DIR=/tmp/cuco-cache
if [ -n "$RUN" ]; then
  timeout "${RUN_S:-170}" .carry/cuco run ".carry/habits/$RUN/harness" --world-size "${WORLD:-1}" --max-candidates 12 \
    --run-dir /tmp/lambda-run >"$OUT/run.txt" 2>&1
  echo "rc=$?" >>"$OUT/run.txt"
fi
cat "$OUT/h/times.txt" "$OUT/h/summary.txt"
[ -z "$RUN" ] || tail -30 "$OUT/run.txt"
