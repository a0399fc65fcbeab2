#!/usr/bin/env bash
# The graph knob on a program whose iteration cannot be captured (a synchronous cudaMemcpy in it):
# the reason must say so, not only "the program's own error check"; and on one where it can, the
# knob still verifies. W=1. .carry/gcheck/ holds the candidates from
# bench/results/2026-11-29-s41-h200 call 1's searches (dp_allreduce_threads_bf16's candidate 6 and
# tp_mlp_mpi's candidate 6, both graph "on"); the harnesses are .carry/hwl-knobs'. Results under $OUT.
set -u
OUT=${OUT:-/tmp/gc-out}
mkdir -p "$OUT"
export PATH=$PWD/.carry/bin:$PATH LD_LIBRARY_PATH=$PWD/.carry/lib NCCL_NVLS_ENABLE=0 CUCO_CACHE_DIR=/tmp/cuco-cache-gc
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >"$OUT/device.txt"
echo "commit: ${CUCO_GIT_COMMIT:-unknown}  date: $(date -u +%Y-%m-%dT%H:%M:%SZ)" >>"$OUT/device.txt"
for p in dp_allreduce_threads_bf16:dp_allreduce_graph_on tp_mlp_mpi:tp_mlp_graph_on; do
  wl=/tmp/gc-wl/${p%%:*}
  rm -rf "$wl" && mkdir -p /tmp/gc-wl && cp -r ".carry/hwl-knobs/${p%%:*}" "$wl"
  sed -i "s/^world_size = [0-9]*/world_size = 1/" "$wl/harness/workload.toml"
  timeout 300 .carry/cuco eval "$wl/harness" ".carry/gcheck/${p#*:}.cu" --world-size 1 --json --run-dir "/tmp/gc-${p#*:}" \
    >"$OUT/${p#*:}.json" 2>"$OUT/${p#*:}.err"
  python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(sys.argv[2], r["status"], (r.get("timing") or {}).get("median_ms"), r["reason"])' \
    "$OUT/${p#*:}.json" "${p#*:}"
done | tee "$OUT/verdicts.txt"
