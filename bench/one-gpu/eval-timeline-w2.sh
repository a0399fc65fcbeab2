#!/usr/bin/env bash
# Where one evaluation's wall time goes at W=2 (issue 30 item 4, the search's pace on a program):
# `cuco eval` of aicomm_tp_row's generation 0 (the harness in .carry/ext, from `bench/ext_programs.py
# ... --compile aicomm_tp_row`) twice in one run dir (the first compiles, the second is the pace a
# search sees), then gemm_reducescatter's seed twice, then bench/eval_timeline.py over both run
# dirs: cuco's stage seconds beside each rank's supervisor timeline (runtime/METRICS.md).
# Results under $OUT: timeline.md, eval-*.json, device.txt.
# Usage (repo root, a two-GPU machine, .carry/ as in bench/one-gpu/README.md):
#   CUCO_GIT_COMMIT=<hash> bash bench/one-gpu/eval-timeline-w2.sh
set -u
OUT=${OUT:-/tmp/eval-timeline-out}
mkdir -p "$OUT"
export LD_LIBRARY_PATH=$PWD/.carry/lib PATH=$PWD/.carry/bin:$PATH NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
export CUCO_CACHE_DIR=/tmp/et-cache
CUCO=$PWD/.carry/cuco
nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader >"$OUT/device.txt"
echo "commit: ${CUCO_GIT_COMMIT:-unknown}  date: $(date -u +%Y-%m-%dT%H:%M:%SZ)" >>"$OUT/device.txt"
rm -rf /tmp/et-a /tmp/et-runs && cp -r .carry/ext/aicomm_tp_row /tmp/et-a
sed -i 's/^world_size = [0-9]*/world_size = 2/' /tmp/et-a/harness/workload.toml
for i in 1 2; do
  s=$(date +%s.%N)
  timeout 240 "$CUCO" eval /tmp/et-a/harness /tmp/et-a/harness/gen0_transformed.cu --world-size 2 \
    --run-dir /tmp/et-runs/aicomm --json >"$OUT/eval-aicomm-$i.json" 2>"$OUT/eval-aicomm-$i.err"
  echo "aicomm_tp_row gen0 eval $i: rc=$? in $(awk "BEGIN{print $(date +%s.%N) - $s}") s" | tee -a "$OUT/device.txt"
done
for i in 1 2; do
  s=$(date +%s.%N)
  timeout 240 "$CUCO" eval workloads/gemm_reducescatter --world-size 2 --run-dir /tmp/et-runs/gemm_rs --json \
    >"$OUT/eval-gemm_rs-$i.json" 2>"$OUT/eval-gemm_rs-$i.err"
  echo "gemm_reducescatter seed eval $i: rc=$? in $(awk "BEGIN{print $(date +%s.%N) - $s}") s" | tee -a "$OUT/device.txt"
done
{
  for r in aicomm gemm_rs; do
    echo "## $r"
    python3 bench/eval_timeline.py "/tmp/et-runs/$r"
    echo
  done
} >"$OUT/timeline.md" 2>&1
cat "$OUT/device.txt" "$OUT/timeline.md"
