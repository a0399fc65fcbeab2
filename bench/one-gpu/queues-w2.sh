#!/usr/bin/env bash
# 9e0017e on two GPUs: CUDA_DEVICE_MAX_CONNECTIONS=32 only for a program whose communication is
# captured in graphs (stop 50). Three steps, results under $OUT (packed into queues-w2.tgz but for
# timeline.md and phases.txt):
#   1. bench/one-gpu/eval-timeline-w2.sh: where an evaluation's time goes now (aicomm_tp_row's
#      generation 0 and gemm_reducescatter's seed), against the same script at b99c4eb;
#   2. graph_blocking_halo at W=2 (.carry/habits, `cuco init` at 9e0017e: its reference.cu defines
#      CUCO_PROGRAM_CAPTURES_GRAPHS), which needs the 32 queues;
#   3. mgpm_jacobi_nccl_graphs at W=2 (.carry/ext, made again at 9e0017e), the program it stands for.
# Usage (repo root, a two-GPU machine, .carry/ as in bench/one-gpu/README.md):
#   CUCO_GIT_COMMIT=<hash> bash bench/one-gpu/queues-w2.sh
set -u
OUT=${OUT:-/tmp/queues-out}
mkdir -p "$OUT"
s=$(date +%s)
OUT=$OUT/t timeout 140 bash bench/one-gpu/eval-timeline-w2.sh >"$OUT/timeline.log" 2>&1
echo "timeline: rc=$? $(( $(date +%s) - s )) s" >>"$OUT/phases.txt"
cp "$OUT/t/timeline.md" "$OUT/" 2>/dev/null
s=$(date +%s)
ONLY=graph_blocking_halo WORLD=2 OUT=$OUT/h timeout 110 bash bench/one-gpu/graph-habits-w1.sh >"$OUT/habits.log" 2>&1
echo "graph_blocking_halo: rc=$? $(( $(date +%s) - s )) s" >>"$OUT/phases.txt"
s=$(date +%s)
EXT_PROGRAMS="mgpm_jacobi_nccl_graphs" EVAL_TIMEOUT=120 PHASES="ext" DEADLINE_S=185 OUT=$OUT/w2 \
  bash bench/one-gpu/programs-w2.sh >"$OUT/ext.log" 2>&1
echo "mgpm_jacobi_nccl_graphs: rc=$? $(( $(date +%s) - s )) s" >>"$OUT/phases.txt"
(cd "$OUT" && tar czf /tmp/queues-w2.tgz t h w2 timeline.log habits.log ext.log 2>/dev/null && rm -rf t h w2 && mv /tmp/queues-w2.tgz .)
cat "$OUT/phases.txt"
