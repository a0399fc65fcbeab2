#!/usr/bin/env bash
# One GPU, world size 1: moe_dispatch_combine after moving its shared kernels into frozen code.
export LD_LIBRARY_PATH=$PWD/.carry/lib NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 CUCO_CACHE_DIR=/tmp/cc
python3 bench/materialize_variants.py workloads/moe_dispatch_combine /tmp/moe-var >/dev/null
.carry/cuco eval workloads/moe_dispatch_combine workloads/moe_dispatch_combine/seed.cu workloads/moe_dispatch_combine/gen0.cu \
  /tmp/moe-var/*.cu .carry/g0-moe_dispatch_combine.cu --world-size 1 --size E_PER_RANK=8 --jobs 1 --parallel-compiles 4 \
  --run-dir /tmp/moe-r --json > $OUT/moe-w1.json 2> $OUT/moe-w1.err
echo "eval exit $?"
python3 - $OUT/moe-w1.json <<'PY'
import json, sys
for r in json.load(open(sys.argv[1])):
    t = r.get("timing", {}).get("median_ms", -1); v = r.get("verify", {})
    print(f"{r['candidate'].split('/')[-1]:28s} {r['status']:5s} {t:7.4f} ms  verify rel_l2 {v.get('rel_l2',0):.5f} max_abs {v.get('max_abs',0):.5f} {r['reason'][:150]}")
PY
