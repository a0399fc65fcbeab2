#!/usr/bin/env bash
# Issue 17 item 4, the chunks knob on GPUs: each program's generation 0 (made by
# bench/one-gpu/make-chunks.sh) at every setting it wrote, through `cuco eval` (scan, compile,
# verify against the program's own code on every rank, benchmark; the harness times). Results in
# $OUT: chunks-$TAG.md (program, setting, verdict, median ms, speed-up over chunks 1 with nccl, the
# program as written) and chunks-$TAG.tgz (each eval's JSON records and its store).
# CHUNKS=.carry/chunks; WORLD (default 2); ONLY="a b" for some programs, in that order; SIZES="seq=8192
# hidden=4096" bench sizes other than the program's defaults (`cuco eval --size`; verify sizes stay).
# Usage (repo root on the GPU machine, .carry/ as in bench/one-gpu/README.md):
#   WORLD=2 ONLY="tp_mlp_mpi gemm_rs_fp16_socket" bash bench/one-gpu/chunks-knob.sh
set -u
OUT=${OUT:-/tmp/chunks-out}
WORLD=${WORLD:-2}
TAG=${TAG:-w$WORLD}
CHUNKS=${CHUNKS:-$PWD/.carry/chunks}
ONLY=${ONLY:-$(ls "$CHUNKS")}
D=$OUT/chunks-$TAG
mkdir -p "$D"
export PATH=$PWD/.carry/bin:$PATH NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
export CUCO_CACHE_DIR=/tmp/cuco-cache-$TAG LD_LIBRARY_PATH=$PWD/.carry/lib
CUCO=$PWD/.carry/cuco
nvidia-smi --query-gpu=index,name,memory.total,driver_version --format=csv,noheader >"$OUT/device.txt" 2>&1
echo "commit: ${CUCO_GIT_COMMIT:-unknown}  date: $(date -u +%Y-%m-%dT%H:%M:%SZ)  world: $WORLD  tag: $TAG  sizes: ${SIZES:-program defaults}" >>"$OUT/device.txt"
for name in $ONLY; do
  wl=/tmp/chunks-wl-$TAG/$name
  rm -rf "$wl" && mkdir -p "$(dirname "$wl")" && cp -r "$CHUNKS/$name" "$wl"
  sed -i "s/^world_size = [0-9]*/world_size = $WORLD/" "$wl/workload.toml"
  start=$(date +%s)
  sizes=()
  for kv in ${SIZES:-}; do sizes+=(--size "$kv"); done
  "$CUCO" eval "$wl" "$wl"/chunks-*.cu --world-size "$WORLD" --parallel-compiles 6 "${sizes[@]}" --run-dir "$D/$name-store" --json \
    >"$D/$name.json" 2>"$D/$name.err"
  echo "$name: cuco eval rc=$? in $(( $(date +%s) - start )) s" >>"$D/calls.txt"
  python3 bench/one-gpu/chunks_table.py "$D" >"$OUT/chunks-$TAG.md"  # after each program: a cut run keeps its rows
done
find "$D" -type f -size +4M -delete  # binaries; the records, logs and sources stay
tar -C "$OUT" -czf "$OUT/chunks-$TAG.tgz" "chunks-$TAG" && rm -rf "$D"
cat "$OUT/chunks-$TAG.md"
