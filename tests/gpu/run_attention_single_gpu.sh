#!/usr/bin/env bash
# Builds and runs tests/gpu/blocks/attention_single_gpu.cu on a GPU machine (one GPU is enough):
# once for attention.h's kernel, once (-DCUCO_TEST_CUDNN) for codesign/cudnn_attention.h when cuDNN
# 9 and the cuDNN frontend headers are there (the nvidia.cudnn wheel or the CUDA toolkit; the
# frontend from the nvidia-cudnn-frontend wheel or $CUCO_CUDNN_FRONTEND_INCLUDE).
# Usage (repo root): bash tests/gpu/run_attention_single_gpu.sh [out-dir]
set -euo pipefail
OUT=${1:-${OUT:-/tmp/cuco-attention}}
mkdir -p "$OUT"
NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
CUDA=$(cd "$(dirname "$NVCC")/.." && pwd)
NCCL=$(python3 -c 'import nvidia.nccl; print(list(nvidia.nccl.__path__)[0])' 2>/dev/null || echo "$CUDA")
FLAGS=(-std=c++20 -O3 -gencode=arch=compute_90a,code=sm_90a -Iruntime/include -I"$NCCL/include")
"$NVCC" "${FLAGS[@]}" -Xptxas -v tests/gpu/blocks/attention_single_gpu.cu -o "$OUT/attention_single_gpu" \
  2>"$OUT/attention_single_gpu.ptxas.txt" || { cat "$OUT/attention_single_gpu.ptxas.txt"; exit 1; }
# Registers and spills of the attention kernels (ptxas -v).
grep -A3 "Compiling entry function.*attn_" "$OUT/attention_single_gpu.ptxas.txt" | grep -E "entry|registers|spill" || true
status=0
timeout 240 "$OUT/attention_single_gpu" | tee "$OUT/attention_single_gpu.txt" || status=1

CUDNN=$(python3 -c 'import nvidia.cudnn; print(list(nvidia.cudnn.__path__)[0])' 2>/dev/null || echo "$CUDA")
FE=${CUCO_CUDNN_FRONTEND_INCLUDE:-$(python3 -c 'import importlib.util, os; s = importlib.util.find_spec("cudnn"); print(os.path.join(os.path.dirname(list(s.submodule_search_locations)[0]), "include"))' 2>/dev/null || true)}
if [ ! -f "$CUDNN/include/cudnn.h" ] || [ ! -f "$FE/cudnn_frontend.h" ]; then
  echo "cuDNN attention: skipped (cudnn.h in $CUDNN/include: $([ -f "$CUDNN/include/cudnn.h" ] && echo yes || echo no); cudnn_frontend.h in '$FE': no)"
  exit $status
fi
CUDNN_LIB=$( [ -d "$CUDNN/lib64" ] && echo "$CUDNN/lib64" || echo "$CUDNN/lib")
"$NVCC" "${FLAGS[@]}" -DCUCO_TEST_CUDNN -I"$CUDNN/include" -I"$FE" tests/gpu/blocks/attention_single_gpu.cu \
  runtime/src/cudnn_sdpa.cu -o "$OUT/attention_single_gpu_cudnn" -L"$CUDNN_LIB" -l:libcudnn.so.9 -lnvrtc \
  -Xlinker -rpath="$CUDNN_LIB" 2>"$OUT/attention_single_gpu_cudnn.build.txt" || { cat "$OUT/attention_single_gpu_cudnn.build.txt"; exit 1; }
timeout 300 "$OUT/attention_single_gpu_cudnn" | tee "$OUT/attention_single_gpu_cudnn.txt" || status=1
exit $status
