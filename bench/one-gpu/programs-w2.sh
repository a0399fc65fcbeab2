#!/usr/bin/env bash
# What stop 39 left for two GPUs, phase by phase (PHASES, default all in this order), each cut at the
# call's deadline (DEADLINE_S, default 560). Results under $OUT/<phase>.
#   knobs   the builtin proposer's search of the programs with a GEMM next to a reduction, backend
#           "ce" (copy engines, ce_collectives.h) and chunks among the knobs, then `cuco run`'s bench of
#           the seed, the parts alone and the best: the program's overlap bound beside its best
#           (bench/one-gpu/programs-knobs.sh; the table's last sections); KNOB_PREMADE (default
#           .carry/hwl-knobs) and KNOB_PROGRAMS pick the programs, e.g. .carry/ext and aicomm_tp_row
#   ext     mgpm_jacobi_nccl_graphs after d3e4878 (the reference's global-mode captures), and the
#           other programs written elsewhere at W=2, stop 40's five new harnesses among them
#           (bench/one-gpu/programs-harness.sh; .carry/ext: `python3 bench/ext_programs.py
#           build/src/cli/cuco ROOT .carry/ext --compile`, then each <name>/runs and /transform removed);
#           EVAL_TIMEOUT (default 180 s) per evaluation: at W=2 a re-timed bench of these programs
#           outlasted 90 s (bench/results/2026-11-29-s42-h200x2, call 5)
#   habits  the CUDA-graph habits at W=2 (bench/one-gpu/graph-habits-w1.sh)
# WORLD (default 2): the ranks per evaluation (1 on a one-GPU machine: every path but the bytes
# between ranks).
# Needs .carry/ (bench/one-gpu/README.md): cuco, lib, bin, hwl-knobs, ext, habits.
# Usage (repo root, a two-GPU machine): bash bench/one-gpu/programs-w2.sh
set -u
OUT=${OUT:-/tmp/programs-w2}
PHASES=${PHASES:-"knobs ext habits"}
DEADLINE_S=${DEADLINE_S:-560}
WORLD=${WORLD:-2}
start=$(date +%s)
mkdir -p "$OUT"
export LD_LIBRARY_PATH=$PWD/.carry/lib NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
left() { echo $(( DEADLINE_S - ($(date +%s) - start) )); }
for phase in $PHASES; do
  [ "$(left)" -lt 30 ] && { echo "$phase: skipped, past DEADLINE_S" >>"$OUT/phases.txt"; continue; }
  echo "=== $phase ($(date -u +%T), $(left) s left)" >>"$OUT/phases.txt"
  case $phase in
    knobs) timeout "$(left)" env PREMADE="${KNOB_PREMADE:-.carry/hwl-knobs}" WORLD=$WORLD ONLY="${KNOB_PROGRAMS:-tp_mlp_mpi gemm_rs_fp16_socket}" \
             MAX="${MAX:-14}" T="${T:-240}" OUT="$OUT/knobs" bash bench/one-gpu/programs-knobs.sh >"$OUT/knobs.log" 2>&1 ;;
    ext) timeout "$(left)" env PREMADE=.carry/ext WORLD=$WORLD SKIP_PROGRAM=1 EVAL_TIMEOUT=${EVAL_TIMEOUT:-180} DEADLINE_S=$(( $(left) - 60 )) \
           ONLY="${EXT_PROGRAMS:-mgpm_jacobi_nccl_graphs mgpm_jacobi_nccl mgpm_jacobi_nccl_overlap nccl_ex_ring nccl_ex_allreduce ohm_attn_single ohm_flashmoe_sym ohm_moe_single ohm_attn_mpi fzj_jacobi_graphs}" \
           OUT="$OUT/ext" bash bench/one-gpu/programs-harness.sh >"$OUT/ext.log" 2>&1 ;;
    habits) timeout "$(left)" env WORLD=$WORLD OUT="$OUT/habits" bash bench/one-gpu/graph-habits-w1.sh >"$OUT/habits.log" 2>&1 ;;
    *) echo "unknown phase $phase" >>"$OUT/phases.txt" ;;
  esac
  echo "    exit $? after $(( $(date +%s) - start )) s" >>"$OUT/phases.txt"
done
cat "$OUT/phases.txt"
