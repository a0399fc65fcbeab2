#!/usr/bin/env bash
# Issue 31 item 4 on a GPU: `cuco run` of a program's harness that declares no generation 0 reads once
# and decides once through the whole GPU path (generation 0 verified and accepted into workload.toml,
# then the search from the workload as accepted): CUCO_TRACE=reads prints every toolchain detection
# and every workload.toml parse. Expected: exit 0, "accepted: workload.toml now says generation0",
# exactly one "cuco trace: toolchain" line, and no "cuco trace: workload.toml ..." line twice (a
# parse is the path and the text's hash: the workload.toml as init wrote it once, as accepted once).
# Results under $OUT: device.txt, read-once.out (the run's output), read-once.txt (the counts, PASS/FAIL).
# PREMADE=.carry/hwl-knobs (bench/one-gpu/make-premade.sh, on a machine with libclang); NAME the
# program (default tp_mlp_mpi); MAX candidates (default 3).
# Usage (repo root, .carry/ as in bench/one-gpu/README.md):
#   PREMADE=.carry/hwl-knobs bash bench/one-gpu/read-once-w1.sh
set -u
OUT=${OUT:-/tmp/read-once-out}
NAME=${NAME:-tp_mlp_mpi}
MAX=${MAX:-3}
mkdir -p "$OUT"
export PATH=$PWD/.carry/bin:$PATH NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
export CUCO_CACHE_DIR=/tmp/cuco-cache-read-once LD_LIBRARY_PATH=$PWD/.carry/lib
CUCO=$PWD/.carry/cuco
nvidia-smi --query-gpu=index,name,memory.total,driver_version --format=csv,noheader >"$OUT/device.txt" 2>&1
echo "commit: ${CUCO_GIT_COMMIT:-unknown}  date: $(date -u +%Y-%m-%dT%H:%M:%SZ)  program: $NAME" >>"$OUT/device.txt"
wl=/tmp/read-once-wl/$NAME
rm -rf /tmp/read-once-wl /tmp/read-once-run && mkdir -p /tmp/read-once-wl
cp -r "${PREMADE:-.carry/hwl-knobs}/$NAME" "$wl"
CUCO_TRACE=reads timeout 900 "$CUCO" run "$wl/harness" --world-size 1 --max-candidates "$MAX" \
  --run-dir /tmp/read-once-run >"$OUT/read-once.out" 2>&1
rc=$?
detections=$(grep -c '^cuco trace: toolchain$' "$OUT/read-once.out")
twice=$(grep '^cuco trace: workload.toml' "$OUT/read-once.out" | sort | uniq -d)
accepted=$(grep -c 'accepted: workload.toml now says generation0' "$OUT/read-once.out")
verdict=PASS
[ "$rc" -eq 0 ] && [ "$detections" -eq 1 ] && [ -z "$twice" ] && [ "$accepted" -ge 1 ] || verdict=FAIL
{
  echo "exit $rc; toolchain detections: $detections; generation 0 accepted: $accepted"
  echo "workload.toml texts parsed twice: ${twice:-none}"
  echo "$verdict"
} | tee "$OUT/read-once.txt"
