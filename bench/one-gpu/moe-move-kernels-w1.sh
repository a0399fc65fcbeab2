#!/usr/bin/env bash
# One GPU, world size 1: moe_dispatch_combine's permute and combine kernels, move_kernels = ilp
# (generation 0's default) against frozen (the seed's kernels), in the sequential and interleaved_ce
# variants, beside the seed and the FFNs alone. Every expert is local: this times the work around
# the GEMMs, not communication. Results under $OUT.
set -u
export LD_LIBRARY_PATH=$PWD/.carry/lib NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 CUCO_CACHE_DIR=/tmp/cc
V=/tmp/moe-kernels-var
rm -rf "$V"
python3 bench/materialize_variants.py workloads/moe_dispatch_combine "$V" >/dev/null
for v in sequential interleaved_ce; do
  sed 's/^constexpr const char\* kMoveKernels = "ilp"; /constexpr const char* kMoveKernels = "frozen";/' \
    "$V/$v.cu" > "$V/${v}_frozen_kernels.cu"
  grep -q 'kMoveKernels = "frozen"' "$V/${v}_frozen_kernels.cu" || { echo "could not set move_kernels in $v"; exit 2; }
done
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/device.txt"
.carry/cuco bench workloads/moe_dispatch_combine "$V/sequential_frozen_kernels.cu" "$V/interleaved_ce_frozen_kernels.cu" \
  --world-size 1 --size E_PER_RANK=8 --no-peers \
  --only seed,sequential,sequential_frozen_kernels.cu,interleaved_ce,interleaved_ce_frozen_kernels.cu,compute_alone \
  --run-dir /tmp/moe-kernels --json "$OUT/moe-move-kernels-w1.json" > "$OUT/moe-move-kernels-w1.txt" 2> "$OUT/moe-move-kernels-w1.log"
echo "cuco bench exit $?"
cat "$OUT/moe-move-kernels-w1.txt"
