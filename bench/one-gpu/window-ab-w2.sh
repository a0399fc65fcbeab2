#!/usr/bin/env bash
# Where the GPU window opens, old against new, in one run: `cuco eval` at world size 2 of
# gemm_reducescatter's seed and of a program's harness from .carry/ext (PROGRAM, default
# nccl_ex_ubr_allreduce_mpi: a 4 MB all-reduce, shorter than the supervisor's own fill of its
# inputs), each with the runtime as it is ("new") and with runtime/ whose gpu_backend.cu is
# OLD_BACKEND ("old", default .carry/old/gpu_backend.cu, made on the development machine by
# `mkdir -p .carry/old && git show <rev>:runtime/src/supervisor/gpu_backend.cu > .carry/old/gpu_backend.cu`,
# through CUCO_RUNTIME_DIR), alternating ROUNDS times (default 2). Stops starting evaluations after
# DEADLINE_S (default 400). Results under $OUT: device.txt, window-ab.md (one row an evaluation:
# status, median, the slowest rank's raw window median and calibration) and window-ab.tgz (JSON).
set -u
OUT=${OUT:-/tmp/window-ab}
ROUNDS=${ROUNDS:-2}
PROGRAM=${PROGRAM:-nccl_ex_ubr_allreduce_mpi}
OLD_BACKEND=${OLD_BACKEND:-$PWD/.carry/old/gpu_backend.cu}
DEADLINE_S=${DEADLINE_S:-400}
start=$(date +%s)
mkdir -p "$OUT/evals"
export PATH=$PWD/.carry/bin:$PATH LD_LIBRARY_PATH=$PWD/.carry/lib NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 CUCO_CACHE_DIR=/tmp/cuco-cache
CUCO=$PWD/.carry/cuco
OLD_RT=/tmp/window-ab/runtime-old
rm -rf /tmp/window-ab && mkdir -p /tmp/window-ab && cp -r runtime "$OLD_RT" && cp "$OLD_BACKEND" "$OLD_RT/src/supervisor/gpu_backend.cu"
P=/tmp/window-ab/$PROGRAM && cp -r ".carry/ext/$PROGRAM" "$P"
nvidia-smi --query-gpu=index,name,memory.total,driver_version --format=csv,noheader >"$OUT/device.txt"
echo "commit: ${CUCO_GIT_COMMIT:-unknown}  date: $(date -u +%Y-%m-%dT%H:%M:%SZ)  rounds: $ROUNDS  old: $(md5sum <"$OLD_BACKEND" | cut -c1-12)" >>"$OUT/device.txt"
echo "| round | window | workload | status | median ms | raw median ms (slowest rank) | calibration ms |" >"$OUT/window-ab.md"
echo "|---|---|---|---|---|---|---|" >>"$OUT/window-ab.md"
for r in $(seq 1 "$ROUNDS"); do
  for side in old new; do
    for w in gemm_reducescatter "$PROGRAM"; do
      [ $(( $(date +%s) - start )) -gt "$DEADLINE_S" ] && { echo "| $r | $side | $w | skipped: past DEADLINE_S | | | |" >>"$OUT/window-ab.md"; continue; }
      dir=workloads/gemm_reducescatter; [ "$w" = "$PROGRAM" ] && dir=$P/harness
      rt=(); [ "$side" = old ] && rt=(env CUCO_RUNTIME_DIR="$OLD_RT")
      f=$OUT/evals/r$r-$side-$w
      "${rt[@]}" "$CUCO" eval "$dir" --world-size 2 --json --run-dir "/tmp/window-ab/runs-$side-$w" >"$f.json" 2>"$f.err"
      python3 - "$f.json" "$r" "$side" "$w" >>"$OUT/window-ab.md" <<'PY'
import json, statistics, sys
try:
    d = json.load(open(sys.argv[1]))
    raw, cal = [], []
    for m in d.get("rank_metrics", []):
        t = m.get("timing") or {}
        raw.append(t.get("raw_median_ms", 0)); cal.append(t.get("overhead_ms", 0))
    i = raw.index(max(raw)) if raw else -1
    med = (d.get("timing") or {}).get("median_ms", "")
    print(f"| {sys.argv[2]} | {sys.argv[3]} | {sys.argv[4]} | {d.get('status')} | {med} | {raw[i] if raw else ''} | {cal[i] if cal else ''} |")
except Exception as e:
    print(f"| {sys.argv[2]} | {sys.argv[3]} | {sys.argv[4]} | no result ({e}) | | | |")
PY
      tar -C "$OUT" -czf "$OUT/window-ab.tgz" evals
    done
  done
done
cat "$OUT/window-ab.md"
