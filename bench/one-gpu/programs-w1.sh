#!/usr/bin/env bash
# Issue 17 on one GPU: (1) every corpus program (tests/programs/) built with its own build line and
# run as it is at one rank (tests/programs/run_all.sh 1); (2) `cuco run` of a world-size-2 workload
# on a one-GPU machine: it must say in one line that it needs 2 GPUs and found 1, search at world
# size 1 instead (a small budget), and exit 3. Results under $OUT: device.txt, programs-w1.txt,
# program-logs/, run-gemm-rs.txt (+ .rc).
# Usage (repo root, .carry/ as in bench/one-gpu/README.md): bash bench/one-gpu/programs-w1.sh
set -u
OUT=${OUT:-/tmp/programs-out}
mkdir -p "$OUT/program-logs"
export PATH=$PWD/.carry/bin:$PATH NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
export CUCO_CACHE_DIR=/tmp/cuco-cache
nvidia-smi --query-gpu=index,name,memory.total,driver_version --format=csv,noheader >"$OUT/device.txt" 2>&1
echo "commit: ${CUCO_GIT_COMMIT:-unknown}  date: $(date -u +%Y-%m-%dT%H:%M:%SZ)" >>"$OUT/device.txt"
MPS_CTL=$(command -v nvidia-cuda-mps-control || echo /usr/local/nvidia/bin/nvidia-cuda-mps-control)
[ -x "$MPS_CTL" ] && [ ! -e /tmp/nvidia-mps/control ] && "$MPS_CTL" -d && echo "MPS daemon started" >>"$OUT/device.txt"

if [[ " ${PHASES:-programs run} " == *" programs "* ]]; then
  start=$(date +%s)
  BUILD_DIR=/tmp/progs RUN_TIMEOUT=${RUN_TIMEOUT:-120} bash tests/programs/run_all.sh 1 >"$OUT/programs-w1.txt" 2>&1
  echo "programs phase: rc=$? in $(( $(date +%s) - start )) s" >>"$OUT/programs-w1.txt"
  for d in /tmp/progs/*/; do cp "$d"/run-W1*.log "$OUT/program-logs/" 2>/dev/null; for f in "$d"/run-W1*.log; do
    [ -f "$f" ] && mv "$OUT/program-logs/$(basename "$f")" "$OUT/program-logs/$(basename "$d")-$(basename "$f")"; done; done
fi

if [[ " ${PHASES:-programs run} " == *" run "* ]]; then
  cat >/tmp/run-budget.toml <<'TOML'
[budget]
max_candidates = ${MAX_CANDIDATES:-6}
TOML
  sed -i "s/\${MAX_CANDIDATES:-6}/${MAX_CANDIDATES:-6}/" /tmp/run-budget.toml
  start=$(date +%s)
  LD_LIBRARY_PATH=$PWD/.carry/lib timeout 420 .carry/cuco run workloads/gemm_reducescatter --config /tmp/run-budget.toml \
    --run-dir /tmp/run-gemm-rs >"$OUT/run-gemm-rs.txt" 2>&1
  echo "rc=$? in $(( $(date +%s) - start )) s" >"$OUT/run-gemm-rs.rc"
fi
