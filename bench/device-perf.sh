#!/usr/bin/env bash
# Issue 29's evidence in one device call per machine: the five workloads at world size W (2 on an
# x2 machine, 4 on an x4 machine; kv_transfer has two ranks only, so it runs on the x2 call), each
# at its bench size and at one held-out size nobody tuned for: the seed, the best hand-written
# variants, every PyTorch peer (bench/peers/, self-checked), the honest overlap bound and cuco's
# own, the parts with their achieved TFLOP/s and GB/s beside the device's peak.
#
# Steps, each cut at its own limit and at the call's deadline (what does not fit is listed as
# skipped in steps.txt; run the call again with STEPS set to those, the machine keeps the cache):
#   compile   every entry of every workload compiled at once (cuco eval --stage compile), so that
#             the benches below only run; up to COMPILE_S
#   bench     cuco bench <workload> --only <entries>,peers at the bench sizes, one workload after
#             the other (timings never overlap); up to STEP_S each
#   heldout   the same at the held-out size (--size ...); up to STEP_S each
#   table     perf-w$W.md rendered from the JSON by bench/perf_table.py (also on the development
#             machine: python3 bench/perf_table.py <dir>/*.json)
# Timing is cuco's default (no MPS started here; the supervisor's own path), the environment as
# shared/notes/gpu-machines.md says: NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
# TORCH_SYMM_MEM_DISABLE_MULTICAST=1.
#
# Usage (repo root on the GPU machine, .carry/ as for bench/device-x4.sh: cuco, lib/, bin/bwrap,
# cudnn-fe/include):
#   WORLD=2 CUCO_GIT_COMMIT=<hash> bash bench/device-perf.sh        # kind nvidia-h100-x2
#   WORLD=4 CUCO_GIT_COMMIT=<hash> bash bench/device-perf.sh        # kind nvidia-h100-x4
# Env: OUT (default /tmp/cuco-perf-out), WORLD (2), WORKLOADS (default: the five at W=2, four at
# W=4), STEPS ("compile bench heldout table"), DEADLINE_S (570), STEP_S (180), COMPILE_S (240),
# COMPILE_JOBS (nvcc at once per workload, 4), COMPILE_SERIAL (1: one workload's compiles after
# the other, for a small machine: `STEPS=compile COMPILE_SERIAL=1 COMPILE_JOBS=1` checks on the
# development machine that every entry compiles), CUCO (default .carry/cuco, else build/src/cli/cuco).
# Results in $OUT (at most 8 files, what the device tool brings back): device.txt, steps.txt,
# perf-w<W>.md, benches-w<W>.tgz (<workload>-w<W>[-heldout].{json,txt,log}), runs.tgz (logs and
# metrics of every run, peers' logs included).
set -u
OUT=${OUT:-/tmp/cuco-perf-out}
WORLD=${WORLD:-2}
STEPS=${STEPS:-"compile bench heldout table"}
DEADLINE_S=${DEADLINE_S:-570}
STEP_S=${STEP_S:-180}
COMPILE_S=${COMPILE_S:-240}
COMPILE_JOBS=${COMPILE_JOBS:-4}
COMPILE_SERIAL=${COMPILE_SERIAL:-0}
START=$(date +%s)
if [ -z "${CUCO:-}" ]; then
  if [ -x .carry/cuco ]; then CUCO=$PWD/.carry/cuco; else CUCO=$PWD/build/src/cli/cuco; fi
fi
[ -d .carry/bin ] && export PATH=$PWD/.carry/bin:$PATH
[ -d .carry/lib ] && export LD_LIBRARY_PATH=$PWD/.carry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
[ -z "${CUCO_CUDNN_FRONTEND_INCLUDE:-}" ] && [ -d .carry/cudnn-fe/include ] && export CUCO_CUDNN_FRONTEND_INCLUDE=$PWD/.carry/cudnn-fe/include
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 TORCH_SYMM_MEM_DISABLE_MULTICAST=1
export CUCO_CACHE_DIR=${CUCO_CACHE_DIR:-/tmp/cuco-perf-cache}
R=/tmp/cuco-perf-runs
mkdir -p "$OUT" "$R"

if [ "$WORLD" = 2 ]; then
  WORKLOADS=${WORKLOADS:-"gemm_reducescatter gemm_allgather moe_dispatch_combine kv_transfer attention_cp"}
else
  WORKLOADS=${WORKLOADS:-"gemm_reducescatter gemm_allgather moe_dispatch_combine attention_cp"}
fi

# The entries each workload runs besides its peers: the seed, the best hand-written variants known
# (bench/results, issue 29), the two parts of the bound. attention_cp runs every scheme that ever
# hung at W >= 2 (ring_nccl, zigzag) to show they no longer do.
entries() {
  case $1 in
    gemm_reducescatter) echo "seed,ring_ce,compute_alone,comm_alone" ;;
    gemm_allgather) echo "seed,push_ce,push_ce_whole_shards,compute_alone,comm_alone" ;;
    moe_dispatch_combine) echo "seed,interleaved_ce,compute_alone,comm_alone" ;;
    kv_transfer) echo "seed,per_layer_ce,per_layer_nccl,compute_alone,comm_alone" ;;
    attention_cp) echo "seed,ring_ce,ring_nccl,zigzag,zigzag_ce,compute_alone,comm_alone" ;;
  esac
}
# The held-out size of each workload: shapes nobody tuned for (the bench sizes are in workload.toml).
heldout() {
  case $1 in
    gemm_reducescatter) echo "--size M=16384 --size N=4096 --size K=8192" ;;
    gemm_allgather) echo "--size M=12288 --size N=6144 --size K=4096" ;;
    moe_dispatch_combine) echo "--size T=3072 --size E_PER_RANK=8 --size SKEW=1" ;;
    kv_transfer) echo "--size L=16 --size S=16384" ;;
    attention_cp) echo "--size S=24576" ;;
  esac
}

left() { echo $((DEADLINE_S - ($(date +%s) - START))); }
note() { echo "$*" | tee -a "$OUT/steps.txt"; }
# limit CAP: the seconds a step may take (its cap, or what is left of the call less 20 s for the table)
limit() { local l; l=$(( $(left) - 20 )); [ "$l" -gt "$1" ] && l=$1; echo "$l"; }

{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)  host: $(hostname)  world: $WORLD  commit: ${CUCO_GIT_COMMIT:-$(git rev-parse HEAD 2>/dev/null || echo unknown)}"
  nvidia-smi --query-gpu=index,name,memory.total,driver_version,clocks.max.sm --format=csv,noheader 2>&1
  nvidia-smi topo -m 2>&1 | head -12
  echo "torch: $(python3 -c 'import torch; print(torch.__version__, torch.version.cuda, torch.cuda.nccl.version())' 2>&1 | tail -1)"
  echo "nccl (torch's): $(python3 -c 'import nvidia.nccl as n; print(list(n.__path__)[0])' 2>&1 | tail -1)"
  echo "MPS: $(pgrep -f nvidia-cuda-mps-control >/dev/null && echo 'a daemon is running (not started by this script)' || echo none)"
  echo "cuco: $CUCO"
} >"$OUT/device.txt" 2>&1
cat "$OUT/device.txt"
LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-} ldd "$CUCO" 2>/dev/null | grep "not found" && { note "cuco cannot start here: a library is missing"; exit 1; }

# compile: materialise the chosen variants (as cuco bench does) and compile them with the seeds,
# all workloads at once; the benches then find every entry in the cache.
step_compile() {
  local t; t=$(limit "$COMPILE_S")
  [ "$t" -lt 30 ] && { note "compile skipped: ${t}s left"; return; }
  note "=== compile ($(date -u +%H:%M:%S), up to ${t}s)"
  local t0; t0=$(date +%s)
  local pids="" rc=0
  for wl in $WORKLOADS; do
    local d="$R/compile/$wl"
    mkdir -p "$d/variants"
    python3 bench/materialize_variants.py "workloads/$wl" "$d/variants" --with-parts >/dev/null 2>"$d/materialize.err"
    local files="workloads/$wl/seed.cu"
    for e in $(entries "$wl" | tr ',' ' '); do
      [ "$e" != seed ] && [ -f "$d/variants/$e.cu" ] && files="$files $d/variants/$e.cu"
    done
    # shellcheck disable=SC2086
    timeout -s INT -k 10 "$t" "$CUCO" eval "workloads/$wl" $files --stage compile --parallel-compiles "$COMPILE_JOBS" \
      --world-size "$WORLD" --run-dir "$d/run" --json >"$d/compile.json" 2>"$d/compile.log" &
    if [ "$COMPILE_SERIAL" = 1 ]; then wait "$!" || rc=$?; t=$(limit "$COMPILE_S"); else pids="$pids $!"; fi
  done
  for p in $pids; do wait "$p" || rc=$?; done
  note "    compile: exit $rc after $(( $(date +%s) - t0 ))s ($(grep -ho '"status": *"[a-z_]*"' "$R"/compile/*/compile.json 2>/dev/null | sort | uniq -c | tr -s ' ' | tr '\n' ';'))"
}

# bench WORKLOAD TAG [ARGS...]: one cuco bench, its JSON, table and log in $OUT.
run_bench() {
  local wl=$1 tag=$2; shift 2
  local name="$wl-w$WORLD$tag" t
  t=$(limit "$STEP_S")
  if [ "$t" -lt 40 ]; then note "$name skipped: ${t}s left"; return; fi
  note "=== $name ($(date -u +%H:%M:%S), up to ${t}s)"
  local t0; t0=$(date +%s)
  timeout -s INT -k 15 "$t" "$CUCO" bench "workloads/$wl" --world-size "$WORLD" --only "$(entries "$wl"),peers" \
    --run-dir "$R/$name" --json "$OUT/$name.json" --label "$(hostname) w$WORLD$tag" --parallel-compiles 8 \
    --verify-limit 90 --bench-limit 120 --peer-limit $((t > 60 ? t - 30 : 30)) "$@" \
    >"$OUT/$name.txt" 2>"$OUT/$name.log"
  local rc=$?
  note "    exit $rc after $(( $(date +%s) - t0 ))s"
  sed -n '/^entry/,/^records:/p' "$OUT/$name.txt"
}

for step in $STEPS; do
  case $step in
    compile) step_compile ;;
    bench) for wl in $WORKLOADS; do run_bench "$wl" ""; done ;;
    heldout)
      # shellcheck disable=SC2046
      for wl in $WORKLOADS; do run_bench "$wl" "-heldout" $(heldout "$wl"); done ;;
    table)
      # Only the JSON the steps wrote (a call of heldout alone has no bench-size file).
      # shellcheck disable=SC2046
      python3 bench/perf_table.py --title "W=$WORLD, $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)" \
        $(ls "$OUT"/*-w"$WORLD".json "$OUT"/*-w"$WORLD"-heldout.json 2>/dev/null) >"$OUT/perf-w$WORLD.md" 2>>"$OUT/steps.txt"
      cat "$OUT/perf-w$WORLD.md" ;;
    *) note "unknown step $step" ;;
  esac
done
# Every run's logs and metrics (the stores and compiled binaries stay behind).
tar czf "$OUT/runs.tgz" -C "$R" --exclude='*.db' --exclude='*.db-*' --exclude='harness' --exclude='candidate' \
  --exclude='compile' . 2>/dev/null
# The device tool brings back at most 8 files: the per-workload JSON, text and logs go in one archive.
(cd "$OUT" && tar czf "benches-w$WORLD.tgz" ./*-w"$WORLD"*.json ./*-w"$WORLD"*.txt ./*-w"$WORLD"*.log 2>/dev/null &&
  rm -f ./*-w"$WORLD"*.json ./*-w"$WORLD"*.txt ./*-w"$WORLD"*.log)
note "=== done ($(left)s left of ${DEADLINE_S}s)"
