#!/usr/bin/env bash
# Runs the GPU harness directly (no cuco binary) on a GPU machine: builds harness_main + the
# gemm_reducescatter reference + one candidate (default: the seed), then runs the verify and the
# bench stage with W ranks, launched the way cuco's evaluator launches them, and prints each
# rank's exit status, log tail and the key figures of its metrics file. For smoke-testing the
# harness itself; verdicts are cuco's job (cuco eval).
#
# Usage (repo root): tests/gpu/run_harness_direct.sh [candidate.cu] [W]
# Environment: CUDA_HOME, NCCL_HOME (default: PyTorch's nvidia.nccl if present, else CUDA_HOME),
#   OUT (default /tmp/cuco-direct), STAGES (default "verify bench"), TIMEOUT_S (default 120).
set -uo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
CAND=${1:-$ROOT/workloads/gemm_reducescatter/seed.cu}
W=${2:-2}
OUT=${OUT:-/tmp/cuco-direct}
STAGES=${STAGES:-verify bench}
TIMEOUT_S=${TIMEOUT_S:-120}
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
NVCC="$CUDA_HOME/bin/nvcc"
if [ -z "${NCCL_HOME:-}" ]; then
  NCCL_HOME=$(python3 -c 'import nvidia.nccl as m; print(list(m.__path__)[0])' 2>/dev/null || echo "$CUDA_HOME")
fi
NCCL_LIB="$NCCL_HOME/lib"; [ -e "$NCCL_LIB/libnccl.so.2" ] || NCCL_LIB="$NCCL_HOME/lib64"
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 TORCH_SYMM_MEM_DISABLE_MULTICAST=1
WL="$ROOT/workloads/gemm_reducescatter"
mkdir -p "$OUT/build"
FLAGS=(-std=c++20 -gencode=arch=compute_90a,code=sm_90a -Xcompiler=-fPIC -O3 -I "$ROOT/runtime/include" -I "$WL"
       -I "$NCCL_HOME/include" -I "$CUDA_HOME/include")
echo "NCCL: $NCCL_HOME; candidate: $CAND; world $W; out $OUT"
"$NVCC" "${FLAGS[@]}" -c "$ROOT/runtime/src/harness_main.cu" -o "$OUT/build/harness_main.o" &
"$NVCC" "${FLAGS[@]}" -c "$WL/reference.cu" -o "$OUT/build/reference.o" &
"$NVCC" "${FLAGS[@]}" -c "$CAND" -o "$OUT/build/candidate.o" &
wait
"$NVCC" -gencode=arch=compute_90a,code=sm_90a "$OUT/build/harness_main.o" "$OUT/build/reference.o" \
  "$OUT/build/candidate.o" -o "$OUT/build/harness" -L"$NCCL_LIB" -l:libnccl.so.2 -Xlinker -rpath="$NCCL_LIB" \
  -L"$CUDA_HOME/lib64" -lcublasLt || { echo "build failed"; exit 1; }

size_args() {  # the workload's sizes for a stage, from workload.toml
  awk -v t="[sizes.$1]" '$0==t{f=1;next} /^\[/{f=0} f && /=/{gsub(/ /,""); split($0,a,"#"); print "--size", a[1]}' "$WL/workload.toml"
}
GPUS=$(seq -s, 0 $((W - 1)))
for stage in $STAGES; do
  d="$OUT/$stage"; rm -rf "$d"; mkdir -p "$d/metrics" "$d/rdv" "$d/logs"
  nonce=$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')
  echo "=== $stage: $(size_args $stage | tr '\n' ' ')"
  pids=()
  for r in $(seq 0 $((W - 1))); do
    # shellcheck disable=SC2046
    CUCO_RANK=$r CUCO_WORLD_SIZE=$W CUCO_LOCAL_RANK=$r CUCO_LOCAL_WORLD_SIZE=$W CUCO_RENDEZVOUS_DIR="$d/rdv" \
    CUCO_RUN_NONCE=$nonce CUDA_VISIBLE_DEVICES=$GPUS timeout -s KILL "$TIMEOUT_S" "$OUT/build/harness" \
      --stage "$stage" --metrics-dir "$d/metrics" $(size_args $stage) --warmup 5 --iters 20 --verify-runs 2 \
      --verify-fraction 0.25 >"$d/logs/rank$r.log" 2>&1 &
    pids+=($!)
  done
  for r in $(seq 0 $((W - 1))); do
    wait "${pids[$r]}"; rc=$?
    echo "--- rank $r exit $rc (137 = killed by the ${TIMEOUT_S} s timeout)"
    tail -n 8 "$d/logs/rank$r.log" | sed 's/^/    /'
    python3 - "$d/metrics/rank$r.json" "$nonce" <<'PY' || true
import json, sys
try:
    m = json.load(open(sys.argv[1]))
except Exception as e:
    print("    no metrics:", e); sys.exit(0)
print("    nonce ok:", m.get("nonce") == sys.argv[2], "| status:", m.get("status"), "| error:", m.get("error"))
for c in m.get("checks", []):
    print("    check %-13s #%-2d rel_l2=%s max_abs=%s nonfinite=%s poison_left=%s/%s" % (c["kind"], c["iteration"],
          c["rel_l2"], c["max_abs"], c["nonfinite"], c["poison_left"], c["output_elements"]))
if "agreement_max_abs" in m:
    print("    agreement_max_abs:", m["agreement_max_abs"], "mismatches:", m.get("agreement_mismatches"))
t = m.get("timing")
if t:
    print("    median %.4f ms (p10 %.4f p90 %.4f) tail median %.4f ms host median %.4f ms; calibration %s" % (
          t["median_ms"] or -1, t["p10_ms"] or -1, t["p90_ms"] or -1, t["tail_median_ms"] or -1,
          t["host_median_ms"] or -1, t["calibration"]))
    print("    verified:", t["verified_iterations"], "scan poison:", t["scan_poison_left"][:5], "...")
PY
  done
done
