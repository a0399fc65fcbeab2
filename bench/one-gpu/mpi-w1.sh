#!/usr/bin/env bash
# CUDA-aware MPI programs at W=1 (stop 89): cuco run of the corpus program dp_sgd_cuda_aware_mpi
# (programs-knobs.sh: generation 0 with its MPI collectives on the backend knob, "mpi" | "lsa" | "ce",
# and the search over them), `cuco eval` of the MPI habits and held-out MPI programs in .carry/habits
# (verdicts-w1.sh, no supervisor phases), then shims_check where a GPU is (shims-device-w1.sh: cuco's
# MPI collectives of device memory, moved by NCCL in the candidate).
# .carry/hwl-mpi: the workload cuco init made of tests/programs/dp_sgd_cuda_aware_mpi (its program.toml
# build line); .carry/habits: bench/results/2026-12-07-s88-gpu/init_carry.sh and
# `habits_check.py --no-compile --keep .carry/habits <cuco> cuda_aware_setup_bcast`.
# Results under $OUT: knobs-w1.md and knobs-w1.tgz, summary.txt and habits.tgz, shims/.
# Usage (repo root, .carry/ as in bench/one-gpu/README.md): bash bench/one-gpu/mpi-w1.sh
set -u
OUT=${OUT:-/tmp/mpi-w1-out}
mkdir -p "$OUT"
PREMADE=.carry/hwl-mpi WORLD=1 MAX=${MAX:-6} T=${T:-150} OUT=$OUT bash bench/one-gpu/programs-knobs.sh >/dev/null 2>&1
PRECOMPILE=3 PHASES= HABITS_S=${HABITS_S:-200} OUT=$OUT bash bench/one-gpu/verdicts-w1.sh >"$OUT/verdicts.txt" 2>&1
OUT=$OUT bash bench/one-gpu/shims-device-w1.sh >/dev/null 2>&1
cat "$OUT/knobs-w1.md" "$OUT/verdicts.txt" "$OUT/summary.txt"
tail -n 3 "$OUT"/shims/*.txt
