#!/usr/bin/env bash
# Builds and runs tests/gpu/blocks/blocks_single_gpu.cu on a GPU machine (one GPU is enough).
# Usage (repo root): bash tests/gpu/run_blocks_single_gpu.sh [out-dir]
set -euo pipefail
OUT=${1:-${OUT:-/tmp/cuco-blocks}}
mkdir -p "$OUT"
NCCL=$(python3 -c 'import nvidia.nccl; print(list(nvidia.nccl.__path__)[0])' 2>/dev/null || echo /usr/local/cuda)
nvcc -std=c++20 -O2 -gencode=arch=compute_90a,code=sm_90a -Iruntime/include -Iruntime/src -I"$NCCL/include" \
  tests/gpu/blocks/blocks_single_gpu.cu runtime/src/candidate/rank_context.cu runtime/src/common/driver_api.cu \
  -o "$OUT/blocks_single_gpu" -lcublasLt -L"$NCCL/lib" -lnccl -Xlinker -rpath -Xlinker "$NCCL/lib"
timeout 240 "$OUT/blocks_single_gpu" | tee "$OUT/blocks_single_gpu.txt"
