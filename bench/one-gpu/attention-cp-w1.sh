#!/usr/bin/env bash
# One GPU, world size 1: attention_cp (seed, gen0 ring variants; causal and not), and the rule-based
# generation 0 (`cuco transform`, made on the development machine) of moe_dispatch_combine and attention_cp.
export LD_LIBRARY_PATH=$PWD/.carry/lib NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 CUCO_CACHE_DIR=/tmp/cc
C=.carry/cuco
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/device.txt
python3 bench/materialize_variants.py workloads/attention_cp /tmp/acp-var >/dev/null
summ() { python3 - "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); d = d if isinstance(d, list) else [d]
for r in d:
    t = r.get("timing", {}).get("median_ms", -1); v = r.get("verify", {})
    print(f"  {r['candidate'].split('/')[-1]:28s} {r['status']:12s} {t:9.4f} ms  verify rel_l2 {v.get('rel_l2','-')} max_abs {v.get('max_abs','-')}  {r['reason'][:200]}")
PY
}
for causal in 1 0; do
  echo "== attention_cp W=1 CAUSAL=$causal"
  $C eval workloads/attention_cp workloads/attention_cp/seed.cu workloads/attention_cp/gen0.cu /tmp/acp-var/*.cu \
    .carry/g0-attention_cp.cu --world-size 1 --size CAUSAL=$causal --jobs 1 --parallel-compiles 4 \
    --run-dir /tmp/acp-$causal --json > $OUT/acp-w1-causal$causal.json 2> $OUT/acp-w1-causal$causal.err
  summ $OUT/acp-w1-causal$causal.json
done
echo "== moe_dispatch_combine rule-based gen0, W=1"
$C eval workloads/moe_dispatch_combine .carry/g0-moe_dispatch_combine.cu --world-size 1 --size E_PER_RANK=8 \
  --run-dir /tmp/moe-g0 --json > $OUT/moe-rule-w1.json 2> $OUT/moe-rule-w1.err
summ $OUT/moe-rule-w1.json
