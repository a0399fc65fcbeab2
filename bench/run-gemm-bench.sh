#!/usr/bin/env bash
# `cuco bench` of both GEMM workloads (gemm_reducescatter, gemm_allgather) on a GPU machine: the
# seed, every [[variants]] entry (the bound parts timed, not verified) and the PyTorch peers
# (bench/peers/), one workload after the other. Writes under $OUT, per workload:
#   <workload>-w<N>.json   everything cuco bench records (schema cuco-bench/2)
#   <workload>-w<N>.txt    the table as printed
#   <workload>-w<N>.log    cuco's progress and messages (stderr)
# plus device.txt (date, host, GPUs, driver, commit) and runs.tgz (logs and metrics of every run).
#
# Usage (repo root, on the GPU machine): CUCO=.carry/cuco bench/run-gemm-bench.sh
#   env: OUT (default /tmp/cuco-gemm-bench), CUCO (default build/src/cli/cuco), WORLD (default 2),
#        GPUS (e.g. 0,1; default all), WORKLOADS (default "gemm_reducescatter gemm_allgather"),
#        BENCH_ARGS (more arguments for cuco bench, e.g. "--only seed,compute_alone,comm_alone,peers"),
#        BENCH_EXTRA (yet more, set once for a whole bench/device-x2.sh call, e.g. "--no-peers"),
#        CUCO_GIT_COMMIT (recorded as cuco's commit where the checkout has no .git).
# The cuco binary is built on the development machine (scripts/build.sh) and carried, as in
# bench/device-check.sh. Exit status: the worst of the cuco bench runs (0 all fine, 1 an entry failed).
set -u
OUT=${OUT:-/tmp/cuco-gemm-bench}
CUCO=${CUCO:-build/src/cli/cuco}
WORLD=${WORLD:-2}
WORKLOADS=${WORKLOADS:-"gemm_reducescatter gemm_allgather"}
R=/tmp/cuco-gemm-bench-runs
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 TORCH_SYMM_MEM_DISABLE_MULTICAST=1
# attention_cp links cuDNN: the GPU machines lack the frontend headers, so they travel in .carry/.
[ -z "${CUCO_CUDNN_FRONTEND_INCLUDE:-}" ] && [ -d .carry/cudnn-fe/include ] && export CUCO_CUDNN_FRONTEND_INCLUDE=$PWD/.carry/cudnn-fe/include
export CUCO_CACHE_DIR=${CUCO_CACHE_DIR:-/tmp/cuco-cache}
mkdir -p "$OUT" "$R"

{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "host: $(hostname)"
  nvidia-smi --query-gpu=index,name,memory.total,driver_version --format=csv,noheader 2>&1
  echo "commit: ${CUCO_GIT_COMMIT:-$(git rev-parse HEAD 2>/dev/null || echo unknown)}"
  echo "torch: $(python3 -c 'import torch; print(torch.__version__, torch.version.cuda, torch.cuda.is_available())' 2>&1 | tail -1)"
} >"$OUT/device.txt"
cat "$OUT/device.txt"

worst=0
for wl in $WORKLOADS; do
  name=$wl-w$WORLD
  echo
  echo "=== cuco bench $wl, world size $WORLD ($(date -u +%H:%M:%S))"
  if [ ! -f "workloads/$wl/workload.toml" ]; then
    echo "workloads/$wl/workload.toml is missing: skipped" | tee "$OUT/$name.txt"
    continue
  fi
  # shellcheck disable=SC2086
  "$CUCO" bench "workloads/$wl" --world-size "$WORLD" ${GPUS:+--gpus "$GPUS"} --run-dir "$R/$name" \
    --json "$OUT/$name.json" --label "$(hostname) w$WORLD" ${BENCH_ARGS:-} ${BENCH_EXTRA:-} >"$OUT/$name.txt" 2>"$OUT/$name.log"
  rc=$?
  cat "$OUT/$name.txt"
  echo "exit $rc (progress and messages: $OUT/$name.log)"
  [ "$rc" -gt "$worst" ] && worst=$rc
done

# Only this call's runs (the folder keeps earlier calls' too).
tar czf "$OUT/runs.tgz" -C "$R" $(for wl in $WORKLOADS; do [ -d "$R/$wl-w$WORLD" ] && echo "$wl-w$WORLD"; done) 2>/dev/null
ls -la "$OUT"
exit "$worst"
