#!/usr/bin/env bash
# The adversarial suite on a GPU machine (one GPU is enough): every GPU candidate of
# tests/adversarial/expectations.tsv (gemm_reducescatter/, moe_dispatch_combine/ rows, written from the
# seeds by tests/adversarial/run.sh) is evaluated end to end at world size
# $WORLD (default 1)
# and must end with an expected verdict other than ok (the CPU candidates too with ALSO_CPU=1).
# The table goes to $OUT/adversarial.txt (commit it under bench/results/).
# Usage (repo root, cuco built): bash tests/gpu/run_adversarial.sh [cuco] [out-dir]
set -uo pipefail
CUCO=${1:-build/src/cli/cuco}
OUT=${2:-${OUT:-/tmp/cuco-adversarial}}
mkdir -p "$OUT"
status=0
{
  echo "# $(date -u +%FT%TZ) $(git rev-parse --short HEAD 2>/dev/null) on $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)"
  # MODES: "default" (every check, as cuco runs) and/or "wall" (--unsafe-skip-deny-scan: the
  # supervisor and the sandbox alone).
  for mode in ${MODES:-default wall}; do
    flag=(); [ "$mode" = wall ] && flag=(--wall)
    echo "## mode: $mode"
    W=${WORLD:-1}
    CUCO_ADVERSARIAL_EVAL_ARGS="--world-size $W" bash tests/adversarial/run.sh "$CUCO" "gemm_reducescatter" "${flag[@]}" || status=1
    # moe at one rank: top-8 routing needs 8 local experts.
    moe=(); [ "$W" = 1 ] && moe=(--size E_PER_RANK=8)
    CUCO_ADVERSARIAL_EVAL_ARGS="--world-size $W ${moe[*]}" bash tests/adversarial/run.sh "$CUCO" "moe_dispatch_combine" "${flag[@]}" || status=1
  done
  # The CPU candidates and fault tests run in CI (ctest adversarial_cpu); here with ALSO_CPU=1.
  [ "${ALSO_CPU:-0}" = 1 ] && { bash tests/adversarial/run.sh "$CUCO" cpu_matmul || status=1; }
} 2>&1 | tee "$OUT/adversarial.txt"
exit $status
