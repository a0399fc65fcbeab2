#!/usr/bin/env bash
# Stop 70's call: programs whose timed loop is in another source file (scaffold/served_file.h) on one
# GPU. The habit timed_loop_in_runner_file and the multi-file habits beside it through `cuco eval` at
# W=1 (graph-habits-w1.sh), then `cuco run` of the new habit: generation 0's knobs, the best re-timed
# beside the program's overlap bound. .carry/habits/<name> as graph-habits-w1.sh says.
# Results under $OUT: h/summary.txt, h/times.txt, run.txt (cuco run's output).
# Usage (repo root, .carry/ as in bench/one-gpu/README.md): bash bench/one-gpu/served-file-w1.sh
set -u
OUT=${OUT:-/tmp/served-file-out}
mkdir -p "$OUT"
ONLY="timed_loop_in_runner_file loop_two_calls_down gemm_once_then_allreduce cmake_project" DEADLINE_S=260 OUT=$OUT \
  bash bench/one-gpu/graph-habits-w1.sh >/dev/null 2>&1
rm -f "$OUT"/h/*.json "$OUT"/h/*.err
export LD_LIBRARY_PATH=$PWD/.carry/lib PATH=$PWD/.carry/bin:$PATH NCCL_NVLS_ENABLE=0 CUCO_CACHE_DIR=/tmp/cuco-cache
timeout 300 .carry/cuco run .carry/habits/timed_loop_in_runner_file/harness --world-size 1 --max-candidates 16 \
  --run-dir /tmp/served-run >"$OUT/run.txt" 2>&1
echo "rc=$?" >>"$OUT/run.txt"
cat "$OUT/h/times.txt" "$OUT/h/summary.txt"
tail -30 "$OUT/run.txt"
