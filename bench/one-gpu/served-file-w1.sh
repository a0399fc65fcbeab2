#!/usr/bin/env bash
# Stop 70's call: programs whose timed loop is in another source file (scaffold/served_file.h) on one
# GPU. The habit timed_loop_in_runner_file and the multi-file habits beside it through `cuco eval` at
# W=1 (graph-habits-w1.sh), then `cuco run` of the new habit: generation 0's knobs, the best re-timed
# beside the program's overlap bound. .carry/habits/<name> as graph-habits-w1.sh says.
# Results under $OUT: h/summary.txt (the planted and chunks candidates' verdicts too), h/times.txt, run.txt (cuco run's output).
# ONLY: the habits evaluated (default below); RUN: the one `cuco run` searches (timed_loop_in_runner_file).
# Usage (repo root, .carry/ as in bench/one-gpu/README.md): bash bench/one-gpu/served-file-w1.sh
set -u
OUT=${OUT:-/tmp/served-file-out}
mkdir -p "$OUT"
RUN=${RUN:-timed_loop_in_runner_file}
ONLY=${ONLY:-"timed_loop_in_runner_file loop_two_calls_down gemm_once_then_allreduce cmake_project"} DEADLINE_S=260 OUT=$OUT \
  bash bench/one-gpu/graph-habits-w1.sh >/dev/null 2>&1
rm -f "$OUT"/h/*.json "$OUT"/h/*.err
export LD_LIBRARY_PATH=$PWD/.carry/lib PATH=$PWD/.carry/bin:$PATH NCCL_NVLS_ENABLE=0 CUCO_CACHE_DIR=/tmp/cuco-cache
timeout 300 .carry/cuco run ".carry/habits/$RUN/harness" --world-size 1 --max-candidates 16 \
  --run-dir /tmp/served-run >"$OUT/run.txt" 2>&1
echo "rc=$?" >>"$OUT/run.txt"
# Planted candidates of RUN's harness (.carry/planted70/*.cu, each must end not ok), then its generation 0
# at chunks settings (.carry/chunks/$RUN/chunks-*-{2,4}.cu from make-chunks.sh, each must end ok): status and reason.
for c in .carry/planted70/*.cu .carry/chunks/"$RUN"/chunks-*-[24].cu; do
  [ -f "$c" ] || continue
  timeout 90 .carry/cuco eval ".carry/habits/$RUN/harness" "$c" --world-size 1 --json --run-dir "/tmp/pl-$(basename "$c" .cu)" \
    >/tmp/pl.json 2>/dev/null
  python3 -c 'import json,sys
try: r = json.load(open("/tmp/pl.json")); print(sys.argv[1], r["status"], r["reason"][:200])
except Exception as e: print(sys.argv[1], "no JSON:", e)' "$(basename "$c")" >>"$OUT/h/summary.txt"
done
cat "$OUT/h/times.txt" "$OUT/h/summary.txt"
tail -30 "$OUT/run.txt"
