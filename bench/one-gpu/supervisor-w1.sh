#!/usr/bin/env bash
# Issue 15 on one GPU (world size 1), phase by phase, each cut at the call's deadline; results under
# $OUT (plus $OUT/supervisor-w1.tgz with everything). Needs .carry/ (see bench/one-gpu/README.md):
#   .carry/cuco, .carry/cuco-sandbox-exec (next to it: cuco finds it there), .carry/lib (libcurl's
#   dependencies), .carry/bin/bwrap (Debian 12's bubblewrap 0.8; the GPU machines lack it).
# Phases (PHASES, default all in this order):
#   smoke      cuco doctor; cuco eval of gemm_reducescatter's and moe_dispatch_combine's seeds (verify + bench,
#              sandboxed, supervisor-timed)
#   compare    every world-size-1 workload's seed and best variant, timed by the supervisor and by the legacy
#              in-process harness in the same run (bench/legacy/compare_inprocess.py)
#   adversarial  tests/gpu/run_adversarial.sh: each must end with a verdict other than ok
#   planted    the planted wrong candidates (bench/device-planted.sh at world size 1)
#   overhead   sandbox start-up per evaluation: bwrap + cuco-sandbox-exec around /bin/true and around a CUDA init
#   evolve     cuco evolve on moe_dispatch_combine, E_PER_RANK=8, WALL seconds (bench/one-gpu/evolve-moe-w1.sh)
# MPS: started here (nvidia-cuda-mps-control -d) unless NO_MPS=1; the supervisor records which it saw.
# WORLD=2 (on a 2-GPU machine, once one is lent): phases smoke and adversarial at world size 2, which
# nothing has run yet (NCCL between ranks inside one sandbox, windows on memory the supervisor maps):
#   WORLD=2 PHASES="smoke adversarial" bash bench/one-gpu/supervisor-w1.sh
set -u
OUT=${OUT:-/tmp/sup-out}
RES=/tmp/sup-w1
PHASES=${PHASES:-"smoke compare adversarial planted overhead evolve"}
DEADLINE_S=${DEADLINE_S:-560}
start=$(date +%s)
mkdir -p "$OUT" "$RES"
export PATH=$PWD/.carry/bin:$PATH LD_LIBRARY_PATH=$PWD/.carry/lib NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
export TORCH_SYMM_MEM_DISABLE_MULTICAST=1 CUCO_CACHE_DIR=/tmp/cuco-cache
CUCO=$PWD/.carry/cuco
[ -z "${CUCO_CUDNN_FRONTEND_INCLUDE:-}" ] && [ -d .carry/cudnn-fe/include ] && export CUCO_CUDNN_FRONTEND_INCLUDE=$PWD/.carry/cudnn-fe/include
nvidia-smi --query-gpu=index,name,memory.total,driver_version --format=csv,noheader >>"$RES/device.txt" 2>&1
echo "commit: ${CUCO_GIT_COMMIT:-unknown}  date: $(date -u +%Y-%m-%dT%H:%M:%SZ)  phases: $PHASES" >>"$RES/device.txt"
MPS_CTL=$(command -v nvidia-cuda-mps-control || echo /usr/local/nvidia/bin/nvidia-cuda-mps-control)
if [ "${NO_MPS:-0}" != 1 ] && [ -x "$MPS_CTL" ] && [ ! -e /tmp/nvidia-mps/control ]; then
  "$MPS_CTL" -d && echo "MPS daemon started" >>"$RES/device.txt"
fi
ls -la /tmp/nvidia-mps >>"$RES/device.txt" 2>&1
pack() { tar czf "$OUT/supervisor-w1.tgz" -C /tmp sup-w1 2>/dev/null; cp "$RES/phases.txt" "$OUT/" 2>/dev/null; }
left() { echo $((DEADLINE_S - ($(date +%s) - start))); }
run_phase() {
  local name=$1 min=$2; shift 2
  local t; t=$(left)
  if [ "$t" -lt "$min" ]; then echo "=== $name skipped: ${t}s left, needs ${min}s" | tee -a "$RES/phases.txt"; return; fi
  echo "=== $name ($(date -u +%H:%M:%S), ${t}s left)" | tee -a "$RES/phases.txt"
  mkdir -p "$RES/$name"
  local p0; p0=$(date +%s)
  OUT="$RES/$name" timeout -s INT -k 15 "$t" "$@" >"$RES/$name/stdout.txt" 2>&1
  echo "    exit $? after $(( $(date +%s) - p0 ))s" | tee -a "$RES/phases.txt"
  tail -25 "$RES/$name/stdout.txt"
  pack
}

smoke() {
  "$CUCO" doctor > "$OUT/doctor.txt" 2>&1
  sed -n '/sandbox/,$p' "$OUT/doctor.txt" | head -20
  for wl in gemm_reducescatter moe_dispatch_combine; do
    extra=(); [ $wl = moe_dispatch_combine ] && [ "${WORLD:-1}" = 1 ] && extra=(--size E_PER_RANK=8)
    "$CUCO" eval workloads/$wl --world-size "${WORLD:-1}" "${extra[@]}" --run-dir /tmp/smoke-$wl --json > "$OUT/$wl.json" 2> "$OUT/$wl.err"
    echo "$wl: exit $?"
    python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(r["status"], r["reason"], r.get("sandbox"), (r.get("timing") or {}).get("median_ms")); [print(" ", s["stage"], s["status"], s["detail"]) for s in r["stages"]]' "$OUT/$wl.json"
    cp -r /tmp/smoke-$wl/candidates/1/*/logs "$OUT/$wl-logs" 2>/dev/null
  done
}

compare() {
  V=/tmp/sup-variants
  for wl in gemm_reducescatter gemm_allgather moe_dispatch_combine attention_cp; do
    python3 bench/materialize_variants.py workloads/$wl "$V/$wl" >/dev/null
  done
  python3 bench/legacy/compare_inprocess.py --cuco "$CUCO" --out "$OUT" --rounds 2 ${COMPARE:-\
    workloads/gemm_reducescatter:seed:seed workloads/gemm_reducescatter:$V/gemm_reducescatter/ring_ce.cu:ring_ce \
    workloads/gemm_allgather:seed:seed workloads/gemm_allgather:$V/gemm_allgather/push_ce_whole_shards.cu:push_ce_whole_shards \
    workloads/moe_dispatch_combine:seed:seed:E_PER_RANK=8 \
    workloads/moe_dispatch_combine:$V/moe_dispatch_combine/interleaved_ce.cu:interleaved_ce:E_PER_RANK=8 \
    workloads/attention_cp:seed:seed workloads/attention_cp:$V/attention_cp/zigzag_ce.cu:zigzag_ce}
}

overhead() {
  python3 - "$CUCO" <<'PY'
import subprocess, sys, time, json, os, statistics
exec_path = os.path.join(os.path.dirname(sys.argv[1]), "cuco-sandbox-exec")
box = ["bwrap", "--die-with-parent", "--new-session", "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts",
       "--cap-drop", "ALL", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp", "--tmpfs", "/dev/shm",
       "--clearenv", "--setenv", "PATH", "/usr/bin:/bin", "--", exec_path, "--seccomp", "--"]
def t(cmd, n=20):
    xs = []
    for _ in range(n):
        t0 = time.perf_counter(); subprocess.run(cmd, check=True); xs.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(xs)
plain, boxed = t(["/bin/true"]), t(box + ["/bin/true"])
print(json.dumps({"true_ms": plain, "sandboxed_true_ms": boxed, "sandbox_start_ms": boxed - plain}))
PY
}

export CUCO WORLD=${WORLD:-1}
export -f smoke compare overhead
for p in $PHASES; do
  case $p in
    smoke) run_phase smoke 120 bash -c smoke ;;
    compare) run_phase compare 200 bash -c compare ;;
    adversarial) run_phase adversarial 120 bash tests/gpu/run_adversarial.sh "$CUCO" ;;
    planted) run_phase planted 90 env CUCO="$CUCO" WORLD=1 bash bench/device-planted.sh ;;
    overhead) run_phase overhead 20 bash -c overhead ;;
    evolve) run_phase evolve 200 env WALL=${WALL:-300} bash bench/one-gpu/evolve-moe-w1.sh ;;
    *) echo "unknown phase $p" ;;
  esac
done
pack
cat "$RES/phases.txt"
