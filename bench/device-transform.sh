#!/usr/bin/env bash
# Issue 6 on a 2-GPU machine: the rule-based generation 0 (`cuco transform`) of every suite workload,
# verified through the cascade (both sizes, every rank) and timed next to its seed. Nothing in the
# workload folders changes (--out and --run-dir point under $OUT). Results under $OUT/transform.
# Usage (repo root): CUCO=.carry/cuco WORLD=2 bash bench/device-transform.sh
set -u
OUT=${OUT:-/tmp/cuco-transform}
CUCO=${CUCO:-build/src/cli/cuco}
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 TORCH_SYMM_MEM_DISABLE_MULTICAST=1
# attention_cp links cuDNN: the GPU machines lack the frontend headers, so they travel in .carry/.
[ -z "${CUCO_CUDNN_FRONTEND_INCLUDE:-}" ] && [ -d .carry/cudnn-fe/include ] && export CUCO_CUDNN_FRONTEND_INCLUDE=$PWD/.carry/cudnn-fe/include
export CUCO_CACHE_DIR=${CUCO_CACHE_DIR:-/tmp/cuco-cache}
mkdir -p "$OUT/transform"
for wl in tests/gpu/workloads/collectives_suite workloads/gemm_reducescatter workloads/gemm_allgather \
          workloads/kv_transfer workloads/moe_dispatch_combine workloads/attention_cp \
          tests/gpu/workloads/block_allgather; do
  n=$(basename "$wl")
  extra=""
  [ "$n" = kv_transfer ] && extra="--mailbox-mib 1100"  # its one send/recv moves 1074 MB
  [ "$n" = moe_dispatch_combine ] && extra="--mailbox-mib 512"  # up to T x TOPK x H bf16 to one peer
  echo "=== cuco transform $wl ($(date -u +%H:%M:%S))"
  "$CUCO" transform "$wl" $extra --out "$OUT/transform/gen0-rule-$n.cu" --run-dir "/tmp/cuco-transform-$n" \
    --json >"$OUT/transform/$n.json" 2>"$OUT/transform/$n.err"
  echo "exit $?"
  python3 - "$OUT/transform/$n.json" <<'PY'
import json, sys
try:
    r = json.load(open(sys.argv[1]))
except Exception as e:
    print("no report:", e); sys.exit(0)
a = r["attempts"][-1]
t = a.get("timing", {}).get("median_ms", -1)
print(f"generation 0: {a['status']} {a.get('reason','')[:200]}  time {t:.4f} ms" if t and t > 0 else
      f"generation 0: {a['status']} {a.get('reason','')[:300]}")
if "seed" in r:
    s = r["seed"].get("timing", {}).get("median_ms", -1)
    print(f"seed: {r['seed']['status']}  time {s:.4f} ms" + (f"  gen0/seed {t/s:.3f}" if s > 0 and t > 0 else ""))
print("note:", r["note"])
PY
done
