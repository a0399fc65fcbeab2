#!/usr/bin/env bash
# The comm_ctas knob on aicomm_tp_row at W=2, as call 5 of bench/results/2026-11-30-s49-h200x2 ran it
# (there as an inline command; kept here as that command): generation 0 of the harness
# (.carry/ext/aicomm_tp_row/harness/gen0_transformed.cu, from `bench/ext_programs.py ... --compile
# aicomm_tp_row`) at backend lsa and 4 chunks, with comm_ctas all, 64, 32, 16 and all again, through
# one `cuco bench` of the harness beside its seed. Results under $OUT: bench.txt, bench.json, device.txt.
# Usage (repo root, a two-GPU machine, .carry/ as in bench/one-gpu/README.md):
#   CUCO_GIT_COMMIT=<hash> bash bench/one-gpu/comm-ctas-w2.sh
set -u
OUT=${OUT:-/tmp/comm-ctas-out}
mkdir -p "$OUT"
export LD_LIBRARY_PATH=$PWD/.carry/lib PATH=$PWD/.carry/bin:$PATH NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 CUCO_CACHE_DIR=/tmp/cc
rm -rf /tmp/a && cp -r .carry/ext/aicomm_tp_row /tmp/a
sed -i 's/^world_size = [0-9]*/world_size = 2/' /tmp/a/harness/workload.toml
C=/tmp/a/cands
mkdir -p "$C"
for v in all_a:all 64:64 32:32 16:16 all_b:all; do
  sed -e 's/kCucoBackend = "nccl"/kCucoBackend = "lsa"/' -e 's/kCucoChunks = "1"/kCucoChunks = "4"/' \
      -e "s/kCucoCommCtas = \"all\"/kCucoCommCtas = \"${v##*:}\"/" /tmp/a/harness/gen0_transformed.cu >"$C/lsa4_${v%%:*}.cu"
done
timeout 165 .carry/cuco bench /tmp/a/harness "$C/lsa4_all_a.cu" "$C/lsa4_64.cu" "$C/lsa4_32.cu" "$C/lsa4_16.cu" \
  "$C/lsa4_all_b.cu" --world-size 2 --no-peers --parallel-compiles 5 --run-dir /tmp/b \
  --label "comm_ctas ${CUCO_GIT_COMMIT:-unknown}" >"$OUT/bench.txt" 2>&1
echo "rc=$?" >>"$OUT/bench.txt"
cp /tmp/b/bench.json "$OUT/" 2>/dev/null
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >"$OUT/device.txt"
tail -30 "$OUT/bench.txt"
