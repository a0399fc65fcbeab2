#!/usr/bin/env bash
# Every 2-GPU measurement of issues 3-6 from one entry point, phase by phase in priority order, each
# phase cut at the call's deadline. Results go to $RES/<phase>/ and, after every phase, into one
# archive $OUT/x2.tgz plus $OUT/phases.txt (the device tool returns at most 8 files).
# A device call is at most 10 minutes: run it again with PHASES set to what is left (the machine
# keeps /tmp, the compile cache and the evolve run dirs while it stays warm).
#   sweep      cuBLASLt: every algorithm the heuristic offers for the GEMM workloads' shapes (bench/gemm_algo_sweep.cu; one GPU)
#   blocks     the single-GPU co-design block tests (tests/gpu/run_blocks_single_gpu.sh)
#   probe      the NCCL side-stream hang: tests/gpu/run_nccl_probe.sh (standalone, about 2 minutes)
#   ncclretry  the NCCL side-stream variants again with the harness's streams non-blocking
#              (CUCO_HARNESS_NONBLOCKING_STREAMS=1): does that alone end the hang?
#   codesign   issue 3: block tests, block_allgather across GPUs, both GEMM workloads (bench/device-codesign.sh)
#   workloads  issue 5: cuco bench of moe_dispatch_combine, attention_cp, kv_transfer (bench/run-gemm-bench.sh)
#   gemm       issue 3: cuco bench of both GEMM workloads alone (no block tests)
#   kv, attention, moe  issue 5: one of those workloads alone
#   moefp8     issue 5: moe_dispatch_combine with the fp8 dispatch (--size FP8=1)
#   moeskew    issue 5: moe_dispatch_combine with skewed routing (--size E_PER_RANK=8 --size SKEW=1)
#   transform  issue 6: rule-based generation 0 of every suite workload, verified (bench/device-transform.sh)
#   planted    issues 5/6: planted wrong candidates at world size 2 (bench/device-planted.sh)
#   evolve-rs, evolve-ag, evolve-moe, evolve-attn
#              issue 4: cuco evolve from generation 0 (bench/run-evolve.sh), resumed where a call cut it
# Usage (repo root, on the GPU machine):
#   PHASES="codesign workloads" DEADLINE_S=570 CUCO=.carry/cuco CUCO_GIT_COMMIT=<hash> bash bench/device-x2.sh
# WORLD=1 runs the phases that make sense on one GPU (sweep blocks gemm moe moefp8 attention planted)
# at world size 1; moe_dispatch_combine then gets 8 experts on its one rank (top-8 needs 8).
# BENCH_EXTRA (e.g. --no-peers) is added to every cuco bench that bench/run-gemm-bench.sh runs.
set -u
OUT=${OUT:-/tmp/cuco-x2-out}
RES=${RES:-/tmp/cuco-x2}
export CUCO=${CUCO:-build/src/cli/cuco}
export WORLD=${WORLD:-2}
PHASES=${PHASES:-"codesign workloads moeskew transform planted evolve-rs evolve-ag"}
DEADLINE_S=${DEADLINE_S:-570}
[ -d .carry/lib ] && export LD_LIBRARY_PATH=$PWD/.carry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 TORCH_SYMM_MEM_DISABLE_MULTICAST=1
export CUCO_CACHE_DIR=${CUCO_CACHE_DIR:-/tmp/cuco-cache}
start=$(date +%s)
mkdir -p "$OUT" "$RES"
nvidia-smi --query-gpu=index,name,memory.total,driver_version --format=csv,noheader >>"$RES/device.txt" 2>&1
echo "commit: ${CUCO_GIT_COMMIT:-unknown}  date: $(date -u +%Y-%m-%dT%H:%M:%SZ)  phases: $PHASES" >>"$RES/device.txt"
pack() { tar czf "$OUT/x2.tgz" -C "$(dirname "$RES")" "$(basename "$RES")" 2>/dev/null; cp "$RES/phases.txt" "$OUT/" 2>/dev/null; }

MOE_ONE=""; [ "$WORLD" = 1 ] && MOE_ONE="--size E_PER_RANK=8"
left() { echo $((DEADLINE_S - ($(date +%s) - start))); }

# run_phase NAME MIN_S COMMAND...: runs COMMAND with OUT=$RES/NAME, cut (SIGINT, then KILL) at the deadline.
run_phase() {
  local name=$1 min=$2; shift 2
  local t; t=$(left)
  if [ "$t" -lt "$min" ]; then echo "=== $name skipped: ${t}s left, needs ${min}s" | tee -a "$RES/phases.txt"; return; fi
  echo "=== $name ($(date -u +%H:%M:%S), ${t}s left)" | tee -a "$RES/phases.txt"
  mkdir -p "$RES/$name"
  local p0; p0=$(date +%s)
  OUT="$RES/$name" timeout -s INT -k 15 "$t" "$@" >"$RES/$name/stdout.txt" 2>&1
  local rc=$?
  echo "    exit $rc after $(( $(date +%s) - p0 ))s" | tee -a "$RES/phases.txt"
  tail -40 "$RES/$name/stdout.txt"
  pack
}

evolve_phase() {  # evolve_phase SECONDS WORKLOAD: start, or resume the run a previous call cut; stop in time for the summary
  EVOLVE_TIMEOUT=$(( $1 - 25 )) WORKLOADS=$2 bash bench/run-evolve.sh
}

for ph in $PHASES; do
  case $ph in
    sweep) run_phase sweep 60 bash -c 'nvcc -std=c++20 -O2 -gencode=arch=compute_90a,code=sm_90a bench/gemm_algo_sweep.cu \
      -o /tmp/gemm_algo_sweep -lcublasLt && /tmp/gemm_algo_sweep | tee "$OUT/gemm_algo_sweep.txt"' ;;
    blocks) run_phase blocks 150 bash -c 'bash tests/gpu/run_blocks_single_gpu.sh "$OUT"; rm -f "$OUT/blocks_single_gpu"' ;;
    probe) run_phase probe 150 bash tests/gpu/run_nccl_probe.sh ;;
    ncclretry) run_phase ncclretry 120 bash -c '
      for spec in "gemm_reducescatter ring_nccl_p2p" "gemm_allgather push_nccl_chunked" "attention_cp ring_nccl zigzag"; do
        set -- $spec; wl=$1; shift
        CUCO_HARNESS_NONBLOCKING_STREAMS=1 "$CUCO" bench workloads/$wl --world-size "$WORLD" --only "$@" --no-peers \
          --run-dir /tmp/cuco-ncclretry-$wl --json "$OUT/$wl-nonblocking.json" >"$OUT/$wl-nonblocking.txt" 2>&1
        grep -A8 "^entry" "$OUT/$wl-nonblocking.txt"
      done' ;;
    codesign) run_phase codesign 240 bash bench/device-codesign.sh ;;
    gemm) run_phase gemm 120 env WORKLOADS="gemm_reducescatter gemm_allgather" bash bench/run-gemm-bench.sh ;;
    kv) run_phase kv 90 env WORKLOADS=kv_transfer bash bench/run-gemm-bench.sh ;;
    moe) run_phase moe 150 env WORKLOADS=moe_dispatch_combine BENCH_ARGS="$MOE_ONE" bash bench/run-gemm-bench.sh ;;
    moefp8) run_phase moefp8 120 env WORKLOADS=moe_dispatch_combine BENCH_ARGS="--size FP8=1 $MOE_ONE" bash bench/run-gemm-bench.sh ;;
    attention) run_phase attention 150 env WORKLOADS=attention_cp bash bench/run-gemm-bench.sh ;;
    workloads) run_phase workloads 150 env WORKLOADS="moe_dispatch_combine attention_cp kv_transfer" bash bench/run-gemm-bench.sh ;;
    moeskew) run_phase moeskew 90 env WORKLOADS=moe_dispatch_combine BENCH_ARGS="--size E_PER_RANK=8 --size SKEW=1" bash bench/run-gemm-bench.sh ;;
    transform) if [ "$WORLD" = 1 ]; then echo "=== transform skipped: cuco transform verifies at the workload's world size (2)" | tee -a "$RES/phases.txt"
               else run_phase transform 120 bash bench/device-transform.sh; fi ;;
    planted) run_phase planted 90 bash bench/device-planted.sh ;;
    evolve-rs) run_phase evolve-rs 120 bash -c "$(declare -f evolve_phase); evolve_phase $(left) gemm_reducescatter" ;;
    evolve-ag) run_phase evolve-ag 120 bash -c "$(declare -f evolve_phase); evolve_phase $(left) gemm_allgather" ;;
    evolve-moe) run_phase evolve-moe 120 bash -c "$(declare -f evolve_phase); evolve_phase $(left) moe_dispatch_combine" ;;
    evolve-attn) run_phase evolve-attn 120 bash -c "$(declare -f evolve_phase); evolve_phase $(left) attention_cp" ;;
    *) echo "unknown phase $ph" | tee -a "$RES/phases.txt" ;;
  esac
done
echo "=== done ($(left)s left)" | tee -a "$RES/phases.txt"
pack
