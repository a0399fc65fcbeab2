#!/usr/bin/env bash
# Issue 28 item 2 on one GPU (world size 1): the GPU supervisor's NaN poison and the judged
# per-iteration scans, which the CPU tests cannot reach (bf16 outputs). Results under $OUT:
#   seeds.txt   each workload's seed through `cuco eval`: status, and every timed iteration's
#               scan_poison_left / scan_nonfinite / scan_poison_expected of each rank. Expected: ok,
#               every scan 0 (before issue 28: about elements/65536 poison matches per iteration,
#               "20/20 poisoned").
#   adversarial.txt  tests/adversarial/run.sh on the skip_unsampled GPU candidates (no work in timed
#               iteration 9): each must end wrong_result (3 in 4 with "timed iteration 9 (not one of
#               the sampled checks)", else its sampled check).
# Needs .carry/ as bench/one-gpu/README.md says (.carry/cuco, .carry/cuco-sandbox-exec, .carry/lib,
# .carry/bin/bwrap). Run from the repo root: OUT=... bash bench/one-gpu/poison-scan-w1.sh
set -u
OUT=${OUT:-/tmp/poison-out}
mkdir -p "$OUT"
export PATH=$PWD/.carry/bin:$PATH LD_LIBRARY_PATH=$PWD/.carry/lib NCCL_NVLS_ENABLE=0 CUCO_CACHE_DIR=/tmp/cuco-cache
CUCO=$PWD/.carry/cuco
nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader >"$OUT/device.txt" 2>&1
echo "commit: ${CUCO_GIT_COMMIT:-unknown}  date: $(date -u +%Y-%m-%dT%H:%M:%SZ)" >>"$OUT/device.txt"
for wl in gemm_reducescatter moe_dispatch_combine; do
  extra=(); [ $wl = moe_dispatch_combine ] && extra=(--size E_PER_RANK=8)
  timeout 400 "$CUCO" eval workloads/$wl --world-size 1 "${extra[@]}" --run-dir /tmp/poison-$wl --json \
    >"$OUT/$wl.json" 2>"$OUT/$wl.err"
  python3 - "$OUT/$wl.json" "$wl" <<'PY' | tee -a "$OUT/seeds.txt"
import json, sys
r = json.load(open(sys.argv[1])); r = r[0] if isinstance(r, list) else r
print(sys.argv[2], r["status"], r["reason"][:200])
for m in r.get("rank_metrics") or []:
    t = m.get("timing") or {}
    print("  rank", m.get("rank"), "poison_left", t.get("scan_poison_left"), "nonfinite", t.get("scan_nonfinite"),
          "expected", t.get("scan_poison_expected"), "elements", t.get("scan_elements"))
PY
done
CUCO_ADVERSARIAL_EVAL_ARGS="--world-size 1" timeout 900 bash tests/adversarial/run.sh "$CUCO" "gemm_reducescatter/skip_unsampled" \
  >"$OUT/adversarial.txt" 2>&1
CUCO_ADVERSARIAL_EVAL_ARGS="--world-size 1 --size E_PER_RANK=8" timeout 900 bash tests/adversarial/run.sh "$CUCO" \
  "moe_dispatch_combine/skip_unsampled" >>"$OUT/adversarial.txt" 2>&1
tail -8 "$OUT/adversarial.txt"
