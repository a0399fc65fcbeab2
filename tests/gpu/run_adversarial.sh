#!/usr/bin/env bash
# The adversarial suite on a GPU machine (one GPU is enough): every GPU candidate under
# tests/adversarial/{gemm_reducescatter,moe_dispatch_combine} is evaluated end to end at world size 1
# and must end with an expected verdict other than ok; the CPU candidates and fault tests run too.
# The table goes to $OUT/adversarial.txt (commit it under bench/results/).
# Usage (repo root, cuco built): bash tests/gpu/run_adversarial.sh [cuco] [out-dir]
set -uo pipefail
CUCO=${1:-build/src/cli/cuco}
OUT=${2:-${OUT:-/tmp/cuco-adversarial}}
mkdir -p "$OUT"
status=0
{
  echo "# $(date -u +%FT%TZ) $(git rev-parse --short HEAD 2>/dev/null) on $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)"
  CUCO_ADVERSARIAL_EVAL_ARGS="--world-size 1" bash tests/adversarial/run.sh "$CUCO" "gemm_reducescatter|moe_dispatch_combine" || status=1
  bash tests/adversarial/run.sh "$CUCO" cpu_matmul || status=1
} 2>&1 | tee "$OUT/adversarial.txt"
exit $status
