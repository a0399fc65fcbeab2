#!/usr/bin/env bash
# Issue 3 on a 2-GPU machine, in one call: the co-design blocks' GPU tests, then `cuco bench` of
# both GEMM workloads. Results under $OUT.
#   1. tests/gpu/run_blocks_single_gpu.sh: what one GPU can test (transfer kernel, flags, waits,
#      copy engine, scoped signals, the GEMM block) and the GEMM block's timings;
#   2. `cuco bench tests/gpu/workloads/block_allgather`: every block configuration across GPUs
#      (LSA over NVLink, copy engine, scoped flags, LSA barrier) through the trusted harness, each
#      variant verified on fresh random data with every element checked;
#   3. bench/run-gemm-bench.sh: seed, variants, bound parts and PyTorch peers of gemm_reducescatter
#      and gemm_allgather.
# Usage (repo root): CUCO=.carry/cuco CUCO_GIT_COMMIT=<hash> WORLD=2 bash bench/device-codesign.sh
set -u
OUT=${OUT:-/tmp/cuco-codesign}
CUCO=${CUCO:-build/src/cli/cuco}
WORLD=${WORLD:-2}
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 TORCH_SYMM_MEM_DISABLE_MULTICAST=1
# attention_cp links cuDNN: the GPU machines lack the frontend headers, so they travel in .carry/.
[ -z "${CUCO_CUDNN_FRONTEND_INCLUDE:-}" ] && [ -d .carry/cudnn-fe/include ] && export CUCO_CUDNN_FRONTEND_INCLUDE=$PWD/.carry/cudnn-fe/include
export CUCO_CACHE_DIR=${CUCO_CACHE_DIR:-/tmp/cuco-cache}
mkdir -p "$OUT"
echo "=== single-GPU block tests ($(date -u +%H:%M:%S))"
bash tests/gpu/run_blocks_single_gpu.sh "$OUT/single" >/dev/null 2>&1
cp "$OUT/single/blocks_single_gpu.txt" "$OUT/" 2>/dev/null && rm -rf "$OUT/single"
tail -3 "$OUT/blocks_single_gpu.txt"
echo "=== block_allgather variants across $WORLD GPUs ($(date -u +%H:%M:%S))"
"$CUCO" bench tests/gpu/workloads/block_allgather --world-size "$WORLD" --no-peers \
  --run-dir /tmp/cuco-blocks-bench --json "$OUT/blocks-w$WORLD.json" | tee "$OUT/blocks-w$WORLD.txt"
echo "=== GEMM workloads ($(date -u +%H:%M:%S))"
OUT="$OUT" CUCO="$CUCO" WORLD="$WORLD" bash bench/run-gemm-bench.sh
