#!/usr/bin/env bash
# Issue 29, item 4 on a GPU machine: the builtin search from generation 0 against the best
# hand-written variant, timed in the same call. For each workload of WORKLOADS (default the five):
#   1. `cuco evolve` from generation 0 (bench/run-evolve.sh: bench/evolve-64.toml, 64 candidates;
#      attention_cp and kv_transfer with their own archive keys: bench/evolve-{attention,kv}.toml), cut after EVOLVE_TIMEOUT s (SIGINT; default 170);
#   2. `cuco eval` of the hand-written variant HAND_<workload> names (default: the best of stop 42's
#      W=2 table), as a candidate file made by bench/materialize_variants.py;
#   3. bench/search_curve.py: best-so-far against candidates, and the candidate at which it reached
#      the variant's time (within 1%).
# Everything lands in $OUT/search-w$WORLD.tgz (the device tool brings back at most 8 files).
# Needs .carry/ (bench/make-carry.sh). Usage (repo root): WORLD=2 bash bench/device-search.sh
set -u
OUT=${OUT:-/tmp/device-search}
WORLD=${WORLD:-2}
WORKLOADS=${WORKLOADS:-"gemm_reducescatter gemm_allgather moe_dispatch_combine kv_transfer attention_cp"}
EVOLVE_TIMEOUT=${EVOLVE_TIMEOUT:-170}
HAND_gemm_reducescatter=${HAND_gemm_reducescatter:-ring_ce}
HAND_gemm_allgather=${HAND_gemm_allgather:-push_ce_whole_shards}
HAND_moe_dispatch_combine=${HAND_moe_dispatch_combine:-interleaved_ce}
HAND_kv_transfer=${HAND_kv_transfer:-per_layer_ce}
HAND_attention_cp=${HAND_attention_cp:-zigzag}
RAW=/tmp/device-search-w$WORLD
mkdir -p "$OUT" "$RAW"
export PATH=$PWD/.carry/bin:$PATH LD_LIBRARY_PATH=$PWD/.carry/lib NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
export CUCO_CACHE_DIR=/tmp/cuco-cache
[ -d .carry/cudnn-fe/include ] && export CUCO_CUDNN_FRONTEND_INCLUDE=$PWD/.carry/cudnn-fe/include
CUCO=$PWD/.carry/cuco
{ nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader; echo "commit ${CUCO_GIT_COMMIT:-unknown}, $(date -u +%FT%TZ), world $WORLD, evolve cut at $EVOLVE_TIMEOUT s"; } >"$RAW/device.txt" 2>&1
pack() { tar czf "$OUT/search-w$WORLD.tgz" -C /tmp "$(basename "$RAW")" 2>/dev/null; }
for wl in $WORKLOADS; do
  case $wl in
    attention_cp) config=bench/evolve-attention.toml ;;
    kv_transfer) config=bench/evolve-kv.toml ;;
    *) config=bench/evolve-64.toml ;;
  esac
  s=$(date +%s)
  OUT=$RAW CUCO=$CUCO WORLD=$WORLD WORKLOADS=$wl EVOLVE_TIMEOUT=$EVOLVE_TIMEOUT EVOLVE_CONFIG=$config \
    bash bench/run-evolve.sh >"$RAW/$wl-run-evolve.txt" 2>&1
  echo "$wl: search $(( $(date +%s) - s )) s" >>"$RAW/phases.txt"
  hand_var=HAND_$wl
  hand=${!hand_var}
  mkdir -p "$RAW/hand-$wl"
  python3 bench/materialize_variants.py "workloads/$wl" "$RAW/hand-$wl" >/dev/null 2>&1
  s=$(date +%s)
  file=$(ls "$RAW/hand-$wl/$hand".* 2>/dev/null | head -1)
  if [ -n "$file" ]; then
    timeout 150 "$CUCO" eval "workloads/$wl" "$file" --world-size "$WORLD" --run-dir "$RAW/hand-$wl/run" --json \
      >"$RAW/hand-$wl/$hand.json" 2>"$RAW/hand-$wl/$hand.log"
  else
    echo "no variant named $hand" >"$RAW/hand-$wl/$hand.log"
  fi
  echo "$wl: hand $hand $(( $(date +%s) - s )) s" >>"$RAW/phases.txt"
  target=$(python3 -c 'import json,sys
try:
    r = json.load(open(sys.argv[1])); r = r[0] if isinstance(r, list) else r
    print(r["timing"]["median_ms"] if r.get("status") == "ok" else "")
except Exception: print("")' "$RAW/hand-$wl/$hand.json")
  python3 bench/search_curve.py "$RAW/$wl-w$WORLD.db" ${target:+--target-ms "$target" --target-name "$hand"} \
    >"$RAW/$wl-curve.md" 2>&1
  rm -rf "$RAW/hand-$wl/run/candidates"
  pack
done
cat "$RAW/phases.txt" "$RAW"/*-curve.md
pack
