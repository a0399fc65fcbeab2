#!/usr/bin/env bash
# Issue 28 on one GPU, in one device call (about 8 minutes): the GPU side of item 2 (poison-scan-w1.sh:
# the seeds' timed iterations scan clean under the NaN poison, the skip_unsampled GPU candidates end
# wrong_result), then bench/device-timing.sh at world size 1 (doctor, and gemm_reducescatter's seed,
# best variant and parts under cuco's MPS daemon against the legacy in-process harness: item 1's
# "within 3%", for one GPU). Results under $OUT (poison/, timing-w1.tgz, summary.md, phases.txt).
# Needs .carry/ from bench/make-carry.sh. Usage (repo root on the GPU machine):
#   CUCO_GIT_COMMIT=<hash> bash bench/one-gpu/issue28-w1.sh
set -u
OUT=${OUT:-/tmp/issue28-w1-out}
mkdir -p "$OUT/poison"
t0=$(date +%s)
OUT=$OUT/poison timeout -k 10 ${POISON_S:-210} bash bench/one-gpu/poison-scan-w1.sh >"$OUT/poison/stdout.txt" 2>&1
echo "poison-scan-w1: exit $? after $(( $(date +%s) - t0 )) s" | tee "$OUT/phases-w1.txt"
left=$(( ${DEADLINE_S:-520} - ($(date +%s) - t0) ))
OUT=$OUT WORLD=1 DEADLINE_S=$left PEERS=${PEERS:-1} PHASES=${PHASES:-"doctor timing:gemm_reducescatter"} \
  bash bench/device-timing.sh >"$OUT/timing-stdout.txt" 2>&1
echo "device-timing W=1: exit $? after $(( $(date +%s) - t0 )) s" | tee -a "$OUT/phases-w1.txt"
tail -30 "$OUT/summary.md" 2>/dev/null
