#!/usr/bin/env bash
# tests/programs/shims_check.cu where a GPU is: the ctest (programs_shims_check_*) builds the same three
# sides on the development machine, which has no GPU, so CheckDeviceBuffersOfFourRanks (cuco's MPI
# collectives on cudaMalloc'd buffers, impl/mpi_device.h) returns early there. Here it runs.
# Results under $OUT/shims: <side>.txt (build and run output, rc).
# Usage (repo root, on a GPU machine): bash bench/one-gpu/shims-device-w1.sh
set -u
OUT=${OUT:-/tmp/shims-out}
mkdir -p "$OUT/shims"
cand="runtime/src/program/candidate_side.cu runtime/src/program/candidate_p2p.cu runtime/src/program/mpi_collectives.cu runtime/src/program/program_collectives.cu runtime/src/program/p2p_bounce.cu runtime/src/program/ce_collectives.cu runtime/src/candidate/rank_context.cu runtime/src/common/driver_api.cu -Iruntime/src -lcuda"
ref="runtime/src/program/reference_check.cu runtime/src/program/nccl_emulation.cu"
for side in candidate reference reference_threads; do
  case $side in
    candidate) define=""; units=$cand ;;
    reference) define="-DCUCO_CHECK_REFERENCE"; units=$ref ;;
    reference_threads) define="-DCUCO_CHECK_REFERENCE -DCUCO_CHECK_THREADS"; units=$ref ;;
  esac
  {
    nvcc -std=c++20 -O2 $define -Iruntime/include -o "/tmp/shims_$side" tests/programs/shims_check.cu $units -lnccl \
      && "/tmp/shims_$side"
    echo "rc=$?"
  } >"$OUT/shims/$side.txt" 2>&1 &
done
wait
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >"$OUT/shims/device.txt"
tail -n 3 "$OUT"/shims/*.txt
