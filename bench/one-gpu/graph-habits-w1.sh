#!/usr/bin/env bash
# The habit programs (tests/habits: written here, with the habits of programs written elsewhere) through
# `cuco eval` of the harness `cuco init` made of each, at W=1 (WORLD=2 on a two-GPU machine). By default
# every .carry/habits/<name> holding a harness; ONLY names some (the CUDA-graph ones were the first:
# call 5 of bench/results/2026-11-29-s38-h200, run inline, kept here as this script). Each evaluation is
# cut at 200 s and the whole at DEADLINE_S (default 540). PRECOMPILE=N: first `cuco eval --stage compile` of
# every one, N at a time (the GPU idle), so that each evaluation finds its build in the compile cache.
# .carry/habits/<name>: `python3 tests/habits/habits_check.py --no-compile --keep .carry/habits <cuco>`
# here (each program's init through its own build line, as its expect.toml says).
# Results under $OUT/h: <name>.json, <name>.err, times.txt, and summary.txt (status, reason, median ms).
# Usage (repo root, .carry/ as in bench/one-gpu/README.md): bash bench/one-gpu/graph-habits-w1.sh
set -u
OUT=${OUT:-/tmp/graph-habits-out}
DEADLINE_S=${DEADLINE_S:-540}
start=$(date +%s)
mkdir -p "$OUT/h"
export LD_LIBRARY_PATH=$PWD/.carry/lib PATH=$PWD/.carry/bin:$PATH NCCL_NVLS_ENABLE=0 CUCO_CACHE_DIR=/tmp/cuco-cache
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >"$OUT/h/device.txt"
all=$(for d in .carry/habits/*/harness; do basename "$(dirname "$d")"; done)
if [ -n "${PRECOMPILE-}" ]; then
  printf '%s\n' ${ONLY:-$all} | xargs -P "$PRECOMPILE" -I{} sh -c 'timeout 300 .carry/cuco eval .carry/habits/{}/harness \
    --stage compile --world-size "${WORLD:-1}" --run-dir /tmp/hc-{} >/dev/null 2>&1; echo "{} compile rc=$?"' \
    >"$OUT/h/precompile.txt"
  echo "precompiled in $(( $(date +%s) - start )) s" >>"$OUT/h/precompile.txt"
fi
for h in ${ONLY:-$all}; do
  left=$((DEADLINE_S - ($(date +%s) - start)))
  if [ "$left" -lt 30 ]; then echo "$h skipped: ${left} s left" >>"$OUT/h/times.txt"; continue; fi
  s=$(date +%s)
  timeout $((left < 200 ? left : 200)) .carry/cuco eval ".carry/habits/$h/harness" --world-size "${WORLD:-1}" --json \
    --run-dir "/tmp/h-$h" >"$OUT/h/$h.json" 2>"$OUT/h/$h.err"
  echo "$h rc=$? $(( $(date +%s) - s )) s" >>"$OUT/h/times.txt"
  python3 -c 'import json,sys
try: r = json.load(open(sys.argv[1]))
except Exception as e: print(sys.argv[2], "no JSON:", e); sys.exit()
print(sys.argv[2], r["status"], (r.get("timing") or {}).get("median_ms"), r["reason"][:160])' "$OUT/h/$h.json" "$h" >>"$OUT/h/summary.txt"
done
cat "$OUT/h/times.txt" "$OUT/h/summary.txt"
