#!/usr/bin/env bash
# Issue 28: of cuco's gap to the in-process reference on a short workload, how much is MPS's own
# cost and how much cuco's window? gemm_reducescatter at world size $WORLD (0.4-0.8 ms an iteration
# at W=4, where cuco's default timing was 6-15% above the in-process harness), on one machine, one
# job at a time:
#   1. cuco bench (its default: its own MPS daemon per evaluation): seed, ring_ce, the two parts
#   2. the legacy in-process harness (bench/timing_compare.py) on the same builds, no MPS
#   3. the same harness under an MPS daemon started here for these GPUs (private pipe and log
#      folders, quit after), the condition cuco's entries and peers are timed in
#   4. the PyTorch peer (bench/peers/gemm_reducescatter.py, sequential and parts), no MPS, then
#      under that daemon
# Nothing else may use the host's GPUs meanwhile (no other MPS daemon: this one is started here).
# Writes $OUT/mps-effect.md (the four tables) and $OUT/mps-effect.tgz (records, logs).
# Usage (repo root on the GPU machine, .carry/ as for bench/device-timing.sh):
#   WORLD=4 CUCO_GIT_COMMIT=<hash> bash bench/device-mps-effect.sh
set -u
OUT=${OUT:-/tmp/cuco-mps-effect-out}
WORLD=${WORLD:-4}
WL=gemm_reducescatter
RES=/tmp/cuco-mps-effect-w$WORLD
export PATH=$PWD/.carry/bin:$PATH NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 TORCH_SYMM_MEM_DISABLE_MULTICAST=1
export CUCO_CACHE_DIR=${CUCO_CACHE_DIR:-/tmp/cuco-cache}
CUCO=${CUCO:-$PWD/.carry/cuco}
[ -d .carry/lib ] && export LD_LIBRARY_PATH=$PWD/.carry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
mkdir -p "$OUT" "$RES"
MD=$OUT/mps-effect.md
say() { echo "$*" | tee -a "$MD"; }
MPSCTL=$(command -v nvidia-cuda-mps-control || ls /usr/local/nvidia/bin/nvidia-cuda-mps-control /usr/bin/nvidia-cuda-mps-control 2>/dev/null | head -1)
DEVS=$(seq -s, 0 $((WORLD - 1)))

say "# MPS's own cost against cuco's window: $WL at W=$WORLD (commit ${CUCO_GIT_COMMIT:-unknown}, $(date -u +%Y-%m-%dT%H:%M:%SZ))"
nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader | head -"$WORLD" | sed 's/^/    /' | tee -a "$MD"

say "## 1. cuco bench (cuco's own MPS daemon)"
"$CUCO" bench "workloads/$WL" --world-size "$WORLD" --only seed,ring_ce,compute_alone,comm_alone --no-peers \
  --parallel-compiles 8 --run-dir "$RES/bench" --json "$RES/bench.json" >"$RES/bench.txt" 2>"$RES/bench.err"
echo "cuco bench: exit $?"
say '```'; sed -n '/^entry/,/^$/p' "$RES/bench.txt" >>"$MD"; say '```'

say "## 2. in-process harness, no MPS"
python3 bench/timing_compare.py --bench-json "$RES/bench.json" --world "$WORLD" --out "$RES/inproc-nomps" --rounds 3 | tee -a "$MD"

peer() {  # peer LABEL: the PyTorch peer's sequential entry and parts, every rank a process of its own
  local label=$1 rdv; rdv=$(mktemp -d)
  local pids=() r
  for r in $(seq 0 $((WORLD - 1))); do
    CUCO_RANK=$r CUCO_WORLD_SIZE=$WORLD CUCO_LOCAL_RANK=$r CUCO_LOCAL_WORLD_SIZE=$WORLD CUCO_RENDEZVOUS_DIR=$rdv \
      CUDA_VISIBLE_DEVICES=$DEVS python3 bench/peers/$WL.py --size M=8192 --size N=8192 --size K=8192 \
      --warmup 5 --iters 20 --rel-l2 0.01 --only "torch sequential,torch compute alone,torch comm alone" --out "$RES/peer-$label.json" >"$RES/peer-$label-rank$r.log" 2>&1 &
    pids+=($!)
  done
  for p in "${pids[@]}"; do wait "$p"; done
  python3 - "$RES/peer-$label.json" "$label" <<'PY' | tee -a "$MD"
import json, sys
try:
    d = json.load(open(sys.argv[1]))
except Exception as e:  # noqa: BLE001
    print("peer %s: no result (%s)" % (sys.argv[2], e)); sys.exit()
for e in d.get("entries", d if isinstance(d, list) else []):
    print("| %s | %s | %s |" % (sys.argv[2], e.get("name"), e.get("median_ms")))
PY
}
say "## 4a. PyTorch peer, no MPS (one context per GPU)"
say "| condition | entry | median ms |"; say "|---|---|---|"
CUDA_MPS_PIPE_DIRECTORY=/dev/null/no-mps peer no-mps

say "## 3. in-process harness under an MPS daemon started here; 4b. the peer under it"
export CUDA_MPS_PIPE_DIRECTORY=$RES/mps-pipe CUDA_MPS_LOG_DIRECTORY=$RES/mps-log
mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
if [ -n "$MPSCTL" ] && CUDA_VISIBLE_DEVICES=$DEVS "$MPSCTL" -d; then
  python3 bench/timing_compare.py --bench-json "$RES/bench.json" --world "$WORLD" --out "$RES/inproc-mps" --rounds 3 | tee -a "$MD"
  say "| condition | entry | median ms |"; say "|---|---|---|"
  peer mps
  echo quit | "$MPSCTL"; sleep 1
else
  say "no MPS daemon could be started ($MPSCTL)"
fi
unset CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY
tar czf "$OUT/mps-effect.tgz" -C /tmp --exclude='*.o' --exclude='legacy_harness' --exclude='cuco.db' "$(basename "$RES")" 2>/dev/null
cat "$MD"
