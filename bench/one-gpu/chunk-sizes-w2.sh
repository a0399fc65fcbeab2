#!/usr/bin/env bash
# The chunk_sizes knob's two values on aicomm_tp_row at world size 2, one against the other: its
# generation 0 from stop 51's search (bench/results/2026-11-30-s51-h200x2/call3) at lsa/off/4/all,
# chunk_sizes even then tapered, alternating ROUNDS times (default 2), each a `cuco eval` (verified,
# supervisor-timed). Needs .carry/ (bench/one-gpu/README.md) with .carry/ext/aicomm_tp_row.
# Results: $OUT/chunk-sizes.md (one row per evaluation) and $OUT/chunk-sizes.tgz (the evaluations' JSON).
set -u
OUT=${OUT:-/tmp/chunk-sizes-out}
ROUNDS=${ROUNDS:-2}
S=bench/results/2026-11-30-s51-h200x2/call3
mkdir -p "$OUT"
export PATH=$PWD/.carry/bin:$PATH LD_LIBRARY_PATH=$PWD/.carry/lib NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 CUCO_CACHE_DIR=/tmp/cuco-cache
CUCO=$PWD/.carry/cuco
W=/tmp/chunk-sizes/aicomm_tp_row
rm -rf "$W" && mkdir -p "$(dirname "$W")" && cp -r .carry/ext/aicomm_tp_row "$W"
cp "$S/aicomm_tp_row.workload.toml" "$W/harness/workload.toml" && cp "$S/aicomm_tp_row.gen0.cu" "$W/harness/gen0_transformed.cu"
for v in even tapered; do
  sed -e 's/kCucoBackend = "nccl"/kCucoBackend = "lsa"/' -e 's/kCucoChunks = "1"/kCucoChunks = "4"/' \
      -e "s/kCucoChunkSizes = \"even\"/kCucoChunkSizes = \"$v\"/" "$S/aicomm_tp_row.gen0.cu" >"$W/harness/lsa4_$v.cu"
done
nvidia-smi --query-gpu=index,name,memory.total,driver_version --format=csv,noheader >"$OUT/device.txt"
echo "commit: ${CUCO_GIT_COMMIT:-unknown}  date: $(date -u +%Y-%m-%dT%H:%M:%SZ)  rounds: $ROUNDS" >>"$OUT/device.txt"
echo "| round | chunk_sizes | status | median ms | stage seconds |" >"$OUT/chunk-sizes.md"
echo "|---|---|---|---|---|" >>"$OUT/chunk-sizes.md"
mkdir -p "$OUT/evals"
for r in $(seq 1 "$ROUNDS"); do
  for v in even tapered; do
    "$CUCO" eval "$W/harness" "$W/harness/lsa4_$v.cu" --world-size 2 --json --run-dir /tmp/chunk-sizes/runs \
      >"$OUT/evals/r$r-$v.json" 2>"$OUT/evals/r$r-$v.err"
    python3 - "$OUT/evals/r$r-$v.json" "$r" "$v" >>"$OUT/chunk-sizes.md" <<'PY'
import json, sys
try:
    d = json.load(open(sys.argv[1]))
    t = d.get("timing", {}).get("median_ms", "")
    st = " ".join(f"{s['stage']} {s['seconds']:.1f}" for s in d.get("stages", []))
    print(f"| {sys.argv[2]} | {sys.argv[3]} | {d.get('status')} | {t} | {st} |")
except Exception as e:
    print(f"| {sys.argv[2]} | {sys.argv[3]} | no result ({e}) | | |")
PY
    tar -C "$OUT" -czf "$OUT/chunk-sizes.tgz" evals
  done
done
cat "$OUT/chunk-sizes.md"
