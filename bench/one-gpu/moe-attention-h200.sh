#!/usr/bin/env bash
# One H200: moe_dispatch_combine at world size 1 (the anchor's per-rank expert work) and the attention block test.
export LD_LIBRARY_PATH=$PWD/.carry/lib NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 CUCO_CACHE_DIR=/tmp/cc
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/device.txt
python3 bench/materialize_variants.py workloads/moe_dispatch_combine /tmp/moe-var >/dev/null
.carry/cuco eval workloads/moe_dispatch_combine workloads/moe_dispatch_combine/seed.cu workloads/moe_dispatch_combine/gen0.cu \
  /tmp/moe-var/local_first_nccl.cu /tmp/moe-var/sequential.cu --world-size 1 --size E_PER_RANK=8 --jobs 1 --parallel-compiles 4 \
  --run-dir /tmp/moe-r --json > $OUT/moe-w1.json 2> $OUT/moe-w1.err
python3 - $OUT/moe-w1.json <<'PY'
import json, sys
for r in json.load(open(sys.argv[1])):
    t = r.get("timing", {}).get("median_ms", -1); v = r.get("verify", {})
    print(f"{r['candidate'].split('/')[-1]:24s} {r['status']:5s} {t:7.4f} ms  verify rel_l2 {v.get('rel_l2',0):.5f} {r['reason'][:150]}")
PY
bash tests/gpu/run_attention_single_gpu.sh $OUT/attn >/dev/null 2>&1; tail -16 $OUT/attn/attention_single_gpu.txt
python3 bench/attention_sdpa_compare.py 2>&1 | tail -6 | tee $OUT/sdpa.txt
rm -f $OUT/attn/attention_single_gpu
