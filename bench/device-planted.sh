#!/usr/bin/env bash
# The planted wrong candidates of the issue-5 workloads (written from the seeds by
# tests/gpu/make_candidates.py, tests/gpu/candidates/wrong_results.py) through the
# cascade; every one must end as wrong_result. World size 1 (one GPU) where the workload allows it:
# WORLD=2 on a 2-GPU machine for the cross-GPU paths. Results under $OUT.
# Usage (repo root): CUCO=.carry/cuco [WORLD=1] [WORKLOADS=attention_cp] bash bench/device-planted.sh
set -u
OUT=${OUT:-/tmp/cuco-planted}
CUCO=${CUCO:-build/src/cli/cuco}
WORLD=${WORLD:-1}
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 CUCO_CACHE_DIR=${CUCO_CACHE_DIR:-/tmp/cuco-cache}
# .carry/cuco needs the libraries that travel beside it (bench/make-carry.sh) and its bubblewrap.
[ -d .carry/lib ] && export LD_LIBRARY_PATH=$PWD/.carry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} PATH=$PWD/.carry/bin:$PATH
# attention_cp links cuDNN: the GPU machines lack the frontend headers, so they travel in .carry/.
[ -z "${CUCO_CUDNN_FRONTEND_INCLUDE:-}" ] && [ -d .carry/cudnn-fe/include ] && export CUCO_CUDNN_FRONTEND_INCLUDE=$PWD/.carry/cudnn-fe/include
mkdir -p "$OUT"
CAND=/tmp/cuco-planted-candidates
rm -rf "$CAND"
python3 tests/gpu/make_candidates.py planted "$CAND" >/dev/null || exit 1
extra_moe=""; [ "$WORLD" = 1 ] && extra_moe="--size E_PER_RANK=8"  # top-8 needs 8 experts at one rank
if [ -z "${WORKLOADS:-}" ]; then  # WORKLOADS names some
  WORKLOADS="moe_dispatch_combine attention_cp"
  [ "$WORLD" = 2 ] && WORKLOADS="$WORKLOADS kv_transfer"  # kv_transfer runs at world size 2 only
fi
for wl in $WORKLOADS; do
  extra=""; [ "$wl" = moe_dispatch_combine ] && extra=$extra_moe
  "$CUCO" eval workloads/$wl "$CAND/$wl"/*.cu --world-size "$WORLD" $extra --jobs 1 \
    --run-dir /tmp/cuco-planted-$wl --json >"$OUT/$wl-w$WORLD.json" 2>"$OUT/$wl-w$WORLD.err"
  python3 - "$OUT/$wl-w$WORLD.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); d = d if isinstance(d, list) else [d]
for r in d:
    v = r.get("verify", {})
    ok = r["status"] == "wrong_result"
    print(f"{'ok  ' if ok else 'FAIL'} {r['candidate'].split('/')[-1]:26s} {r['status']:12s} rel_l2 {v.get('rel_l2')}  {r['reason'][:140]}")
PY
done
