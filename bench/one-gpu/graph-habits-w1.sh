#!/usr/bin/env bash
# The CUDA-graph habits (tests/habits/graph_capture_allreduce, graph_capture_launch) through
# `cuco eval` of the harness `cuco init` made of each, at W=1 (WORLD=2 on a two-GPU machine: their
# global-mode captures in the reference's rank threads, d3e4878). Call 5 of
# bench/results/2026-11-29-s38-h200 ran this loop as an inline command; kept here as that command.
# .carry/habits/<name>: `cuco init <file> --out .carry/habits/<name> -- <its build line>` run here
# (tests/habits/<name>/expect.toml names the file and the build line). Results under $OUT/h.
# Usage (repo root, .carry/ as in bench/one-gpu/README.md): bash bench/one-gpu/graph-habits-w1.sh
set -u
OUT=${OUT:-/tmp/graph-habits-out}
mkdir -p "$OUT/h"
export LD_LIBRARY_PATH=$PWD/.carry/lib PATH=$PWD/.carry/bin:$PATH NCCL_NVLS_ENABLE=0 CUCO_CACHE_DIR=/tmp/cuco-cache
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >"$OUT/h/device.txt"
for h in ${ONLY:-graph_capture_allreduce graph_capture_launch}; do
  s=$(date +%s)
  timeout 200 .carry/cuco eval ".carry/habits/$h/harness" --world-size "${WORLD:-1}" --json --run-dir "/tmp/h-$h" \
    >"$OUT/h/$h.json" 2>"$OUT/h/$h.err"
  echo "$h rc=$? $(( $(date +%s) - s )) s" >>"$OUT/h/times.txt"
done
cat "$OUT/h/times.txt"
