#!/usr/bin/env bash
# Issue 2 on a GPU machine (2x H200 through the device tool): cuco doctor; cuco eval of the
# gemm_reducescatter seed; every planted cheat (with the deny-list scan, then without it so
# the harness's runtime defences are shown on their own); a device-side deadlock killed and
# the same GPUs passing the next evaluation; the workload in program mode under mpirun.
#
# Usage (repo root): CUCO=.carry/cuco bench/device-check.sh   (results under $OUT)
# The cuco binary is built on the development machine (scripts/build.sh) and carried: the GPU
# machines lack the headers cuco builds against, not the libraries it runs with.
set -u
OUT=${OUT:-/tmp/cuco-device-check}
CUCO=${CUCO:-build/src/cli/cuco}
CANDS=/tmp/cuco-device-candidates  # the planted cheats, written from the seed by tests/gpu/make_candidates.py
CAND=$CANDS/gemm_reducescatter
WL=workloads/gemm_reducescatter
R=/tmp/cuco-device-runs
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 TORCH_SYMM_MEM_DISABLE_MULTICAST=1
export CUCO_CACHE_DIR=/tmp/cuco-cache
mkdir -p "$OUT" "$R"
rm -rf "$CANDS"
python3 tests/gpu/make_candidates.py planted "$CANDS" --workload gemm_reducescatter >/dev/null || exit 1
step() { echo; echo "=== $* ($(date -u +%H:%M:%S))"; }

{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "host: $(hostname)"
  nvidia-smi --query-gpu=index,name,memory.total,driver_version --format=csv,noheader
  echo "commit: $(git rev-parse HEAD 2>/dev/null || echo unknown)"
} >"$OUT/device.txt" 2>&1
cat "$OUT/device.txt"

step doctor
"$CUCO" doctor | tee "$OUT/doctor.txt"
"$CUCO" doctor --json >"$R/doctor.json"

step "eval seed (harness mode)"
"$CUCO" eval "$WL" --run-dir "$R/seed" --json >"$R/seed.json"; echo "exit $?"

step "deadlock, then the seed again on the same GPUs"
"$CUCO" eval "$WL" "$CAND/deadlock.cu" --run-dir "$R/deadlock" --verify-limit 45 --json >"$R/deadlock.json"; echo "exit $?"
"$CUCO" eval "$WL" --run-dir "$R/after_deadlock" --json >"$R/after_deadlock.json"; echo "exit $?"

step "planted cheats, deny-list scan on"
ls "$CAND"/*.cu | grep -v deadlock.cu >"$R/cheat_list.txt"
"$CUCO" eval "$WL" $(cat "$R/cheat_list.txt") --run-dir "$R/cheats" --jobs 2 --parallel-compiles 12 \
  --verify-limit 60 --json >"$R/cheats.json"; echo "exit $?"

step "planted cheats, deny-list scan OFF (runtime defences alone)"
"$CUCO" eval "$WL" "$CAND/side_stream.cu" "$CAND/ref_peek.cu" "$CAND/exit_early.cu" "$CAND/write_metrics.cu" \
  "$CAND/timer.cu" --unsafe-skip-deny-scan --run-dir "$R/noscan" --jobs 1 --parallel-compiles 8 \
  --verify-limit 60 --json >"$R/noscan.json"; echo "exit $?"

step "program mode under mpirun"
"$CUCO" eval workloads/gemm_reducescatter_program --run-dir "$R/program" --json >"$R/program.json"; echo "exit $?"

step summary
python3 bench/summarize_eval.py "$R"/seed.json "$R"/deadlock.json "$R"/after_deadlock.json "$R"/cheats.json \
  "$R"/noscan.json "$R"/program.json | tee "$OUT/summary.md"
python3 - "$R" >"$OUT/records.json" <<'PY'
import json, os, sys
r = sys.argv[1]
out = {}
for name in ["doctor", "seed", "deadlock", "after_deadlock", "cheats", "noscan", "program"]:
    p = os.path.join(r, name + ".json")
    try:
        out[name] = json.load(open(p))
    except Exception as e:
        out[name] = {"error": str(e)}
json.dump(out, sys.stdout, indent=1)
PY
tar czf "$OUT/runs.tgz" -C "$R" . 2>/dev/null
ls -la "$OUT"
