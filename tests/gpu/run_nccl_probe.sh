#!/usr/bin/env bash
# Builds and runs tests/gpu/nccl_side_stream_probe.cu on a 2-GPU machine: which setting makes the
# gemm_reducescatter ring's ncclSend/ncclRecv on a side stream hang (one case per line), then the
# hanging case again under a few NCCL environment settings. Uses the NCCL cuco's harness links (the
# nvidia.nccl wheel in PyTorch's venv, else the CUDA toolkit's).
# Usage (repo root): bash tests/gpu/run_nccl_probe.sh [out-dir]
set -uo pipefail
OUT=${1:-${OUT:-/tmp/cuco-nccl-probe}}
mkdir -p "$OUT"
NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
CUDA=$(cd "$(dirname "$NVCC")/.." && pwd)
NCCL=$(python3 -c 'import nvidia.nccl; print(list(nvidia.nccl.__path__)[0])' 2>/dev/null || echo "$CUDA")
NCCL_LIB=$( [ -d "$NCCL/lib" ] && echo "$NCCL/lib" || echo "$NCCL/lib64")
export NCCL_NVLS_ENABLE=0
"$NVCC" -std=c++17 -O2 -gencode=arch=compute_90,code=sm_90 -I"$NCCL/include" tests/gpu/nccl_side_stream_probe.cu \
  -o "$OUT/probe" -L"$NCCL_LIB" -l:libnccl.so.2 -Xlinker -rpath="$NCCL_LIB" -lcublas || exit 1
LIMIT=${LIMIT:-8}
echo "## every case (iteration limit ${LIMIT} s)" | tee "$OUT/probe.md"
timeout 400 "$OUT/probe" --iteration-limit "$LIMIT" --iterations 3 2>"$OUT/probe.log" | tee -a "$OUT/probe.md"
echo | tee -a "$OUT/probe.md"
echo "## case cuco under NCCL settings" | tee -a "$OUT/probe.md"
for e in NCCL_P2P_DISABLE=1 NCCL_PROTO=Simple NCCL_PROTO=LL128 NCCL_MAX_NCHANNELS=2 NCCL_LOCAL_REGISTER=0 \
         CUDA_DEVICE_MAX_CONNECTIONS=32; do
  printf '%s: ' "$e" | tee -a "$OUT/probe.md"
  env "$e" timeout 120 "$OUT/probe" --case cuco --iteration-limit "$LIMIT" --iterations 3 2>>"$OUT/probe.log" | tail -1 | tee -a "$OUT/probe.md"
done
