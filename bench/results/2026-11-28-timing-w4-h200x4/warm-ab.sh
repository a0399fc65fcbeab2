#!/usr/bin/env bash
# Issue 28: is the bimodal timing of short entries (gemm_reducescatter at W=4: compute_alone 0.40 or
# 0.54 ms between calls, 0.37 ms in one process) the GPU entering each window from idle? A/B on one
# machine, alternating: cuco bench of the seed and the two parts with no warm-up kernel before the
# window (A) and with CUCO_SUPERVISOR_WARM_US of busy SMs before it (B), the SM clock sampled
# every 20 ms meanwhile. Writes $OUT/warm-ab.md and $OUT/warm-ab.tgz.
# Kept here as the exact command of call 4: CUCO_SUPERVISOR_WARM_US was a diagnostic knob of the
# tree it ran on (a busy kernel on every SM before each window, gpu_backend.cu), not committed,
# since it changed nothing (README.md beside this file).
# Usage (repo root on the GPU machine, .carry/ as for bench/device-timing.sh):
#   WORLD=4 WARM_US=200 bash bench/device-warm-ab.sh
set -u
OUT=${OUT:-/tmp/cuco-warm-ab-out}
WORLD=${WORLD:-4}
WARM_US=${WARM_US:-200}
ROUNDS=${ROUNDS:-2}
RES=/tmp/cuco-warm-ab
export PATH=$PWD/.carry/bin:$PATH NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 TORCH_SYMM_MEM_DISABLE_MULTICAST=1
export CUCO_CACHE_DIR=${CUCO_CACHE_DIR:-/tmp/cuco-cache}
CUCO=${CUCO:-$PWD/.carry/cuco}
[ -d .carry/lib ] && export LD_LIBRARY_PATH=$PWD/.carry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
mkdir -p "$OUT" "$RES"
MD=$OUT/warm-ab.md
echo "# warm-up A/B: gemm_reducescatter W=$WORLD, warm ${WARM_US} us ($(date -u +%FT%TZ))" >"$MD"
"$CUCO" eval workloads/gemm_reducescatter --stage compile --world-size "$WORLD" >/dev/null 2>&1
nvidia-smi --query-gpu=timestamp,index,clocks.sm,power.draw --format=csv,noheader -lms 20 >"$RES/clocks.csv" 2>/dev/null &
SMI=$!
for r in $(seq 1 "$ROUNDS"); do
  for w in 0 "$WARM_US"; do
    name=r$r-warm$w
    CUCO_SUPERVISOR_WARM_US=$w "$CUCO" bench workloads/gemm_reducescatter --world-size "$WORLD" \
      --only seed,compute_alone,comm_alone --no-peers --parallel-compiles 8 --run-dir "$RES/$name" \
      --json "$RES/$name.json" >"$RES/$name.txt" 2>&1
    { echo "## $name (exit $?)"; echo '```'; sed -n '/^entry/,/^$/p' "$RES/$name.txt"; echo '```'; } | tee -a "$MD"
  done
done
kill $SMI 2>/dev/null
tar czf "$OUT/warm-ab.tgz" -C /tmp --exclude='*.o' --exclude='cuco.db' "$(basename "$RES")" 2>/dev/null
