#!/usr/bin/env bash
# Benches a workload's hand-written entries beside knob settings that are not [[variants]], in one
# `cuco bench` (timings never overlap): each probe becomes a [[variants]] entry of a copy of the
# workload under /tmp (the repo's workload.toml is not touched). A probe is NAME:KNOB=VALUE,...;
# a probe whose first knob is part=compute or part=comm is a bound part.
# Results: $OUT/<workload>-probe.txt (the bench table, then every rank's median) and
# $OUT/<workload>-probe.json.
# Usage (repo root on the GPU machine, .carry/ as in bench/one-gpu/README.md):
#   WORKLOAD=gemm_allgather WORLD=2 ENTRIES="push_ce_whole_shards compute_alone" \
#     PROBES="wv:wait_mode=wait_value algos8:gemm_algos=8" bash bench/device-knob-probe.sh
# ENTRIES (the workload's own entries to bench too; the probes are always benched), EXTRA (more
# `cuco bench` options, e.g. --size S=24576).
set -u
OUT=${OUT:-/tmp/cuco-knob-probe}
WORLD=${WORLD:-2}
WORKLOAD=${WORKLOAD:?WORKLOAD= names a folder under workloads/}
mkdir -p "$OUT"
export PATH=$PWD/.carry/bin:$PATH NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
export CUCO_CACHE_DIR=${CUCO_CACHE_DIR:-/tmp/cuco-cache}
[ -d .carry/lib ] && export LD_LIBRARY_PATH=$PWD/.carry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
[ -d .carry/cudnn-fe/include ] && export CUCO_CUDNN_FRONTEND_INCLUDE=$PWD/.carry/cudnn-fe/include
WL=/tmp/$WORKLOAD-knob-probe
rm -rf "$WL" && cp -r "workloads/$WORKLOAD" "$WL"
names=""
for probe in ${PROBES:-}; do
  name=${probe%%:*}
  names="$names $name"
  python3 - "$probe" >>"$WL/workload.toml" <<'PY'
import sys
name, spec = sys.argv[1].split(":", 1)
knobs = [kv.split("=", 1) for kv in spec.split(",")]
def value(v):
    return v if v.lstrip("-").isdigit() or v in ("true", "false") else f'"{v}"'
part = dict(knobs).get("part")
print(f'\n[[variants]]\nname = "{name}"\ndescription = "probe: {spec}"')
print("knobs = { " + ", ".join(f"{k} = {value(v)}" for k, v in knobs) + " }")
if part in ("compute", "comm"):
    print(f'part = "{part}"')
PY
done
${CUCO:-.carry/cuco} bench "$WL" --world-size "$WORLD" --no-peers --parallel-compiles 8 ${EXTRA:-} \
  --only ${ENTRIES:-} $names --run-dir "/tmp/$WORKLOAD-probe-run" --json "$OUT/$WORKLOAD-probe.json" \
  >"$OUT/$WORKLOAD-probe.txt" 2>"$OUT/$WORKLOAD-probe.err"
echo "exit $?" >>"$OUT/$WORKLOAD-probe.txt"
python3 - "$OUT/$WORKLOAD-probe.json" >>"$OUT/$WORKLOAD-probe.txt" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print("\nrank medians (ms):")
for e in d["entries"]:
    t = (e.get("record") or {}).get("timing") or {}
    print(f"  {e['name']:<24} {t.get('rank_median_ms')}")
PY
cat "$OUT/$WORKLOAD-probe.txt"
