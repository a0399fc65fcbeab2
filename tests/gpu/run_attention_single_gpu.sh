#!/usr/bin/env bash
# Builds and runs tests/gpu/blocks/attention_single_gpu.cu on a GPU machine (one GPU is enough).
# Usage (repo root): bash tests/gpu/run_attention_single_gpu.sh [out-dir]
set -euo pipefail
OUT=${1:-${OUT:-/tmp/cuco-attention}}
mkdir -p "$OUT"
NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
NCCL=$(python3 -c 'import nvidia.nccl; print(list(nvidia.nccl.__path__)[0])' 2>/dev/null || echo /usr/local/cuda)
"$NVCC" -std=c++20 -O3 -gencode=arch=compute_90a,code=sm_90a -Xptxas -v -Iruntime/include -I"$NCCL/include" \
  tests/gpu/blocks/attention_single_gpu.cu -o "$OUT/attention_single_gpu" 2>"$OUT/attention_single_gpu.ptxas.txt" ||
  { cat "$OUT/attention_single_gpu.ptxas.txt"; exit 1; }
# Registers and spills of the attention kernels (ptxas -v).
grep -A3 "Compiling entry function.*attn_" "$OUT/attention_single_gpu.ptxas.txt" | grep -E "entry|registers|spill" || true
timeout 240 "$OUT/attention_single_gpu" | tee "$OUT/attention_single_gpu.txt"
