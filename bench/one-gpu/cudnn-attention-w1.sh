#!/usr/bin/env bash
# One GPU: codesign/cudnn_attention.h (cuDNN's fused SDPA) against attention.h's kernel and
# PyTorch's SDPA: the block test built both ways, then attention_cp at world size 1 (S = 32768,
# causal and not) with the seed (cuDNN), generation 0 (cuDNN) and ring_nccl_cuco_kernel (ours).
# .carry/cudnn-fe/include holds the nvidia-cudnn-frontend==1.32.0 headers (the GPU machines lack them).
set -u
export LD_LIBRARY_PATH=$PWD/.carry/lib NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 CUCO_CACHE_DIR=/tmp/cc
export CUCO_CUDNN_FRONTEND_INCLUDE=$PWD/.carry/cudnn-fe/include
.carry/cuco doctor 2>&1 | grep -i -E "cudnn|GPU 0" | tee $OUT/doctor.txt
bash tests/gpu/run_attention_single_gpu.sh $OUT/attn > $OUT/attn.log 2>&1
echo "block tests exit $?"
grep -E "passed|^FAIL|skipped" $OUT/attn/*.txt $OUT/attn.log | head -20
rm -f $OUT/attn/attention_single_gpu $OUT/attn/attention_single_gpu_cudnn
python3 bench/materialize_variants.py workloads/attention_cp /tmp/acp-var >/dev/null
for causal in 1 0; do
  .carry/cuco eval workloads/attention_cp workloads/attention_cp/seed.cu workloads/attention_cp/gen0.cu \
    /tmp/acp-var/ring_nccl_cuco_kernel.cu --world-size 1 --size CAUSAL=$causal --jobs 1 --parallel-compiles 4 \
    --run-dir /tmp/acp-r$causal --json > $OUT/acp-causal$causal.json 2> $OUT/acp-causal$causal.err
  echo "eval CAUSAL=$causal exit $?"
  python3 - $OUT/acp-causal$causal.json <<'PY'
import json, sys
for r in json.load(open(sys.argv[1])):
    t = r.get("timing", {}); v = r.get("verify", {})
    print(f"{r['candidate'].split('/')[-1]:28s} {r['status']:5s} {t.get('median_ms', -1):8.3f} ms (min {t.get('min_ms', -1):.3f}, max {t.get('max_ms', -1):.3f})  verify rel_l2 {v.get('rel_l2', 0):.5f} {r['reason'][:200]}")
PY
done
python3 bench/attention_sdpa_compare.py 2>&1 | tail -8 | tee $OUT/sdpa.txt
