#!/usr/bin/env bash
# Where a harness's compile time goes: the CPU seconds (user) nvcc spends on one unit, as cuco's
# builder compiles it (the flags of a harness-mode CUDA workload), for
#   - units holding only headers: the CUDA runtime and the C++ library (the floor every unit pays),
#     then cuco's program headers one by one on each side (what each adds);
#   - the reference and the seed of a real harness: `cuco init` of tests/programs/tp_mlp_mpi.
# A reference is compiled once per workload (frozen, cached), a candidate once per code the search
# tries (a knob setting compiles only its values), and CI compiles both for every program it checks.
# Usage (repo root, after scripts/build.sh): bash bench/compile-cost.sh [OUT_DIR]   (about 3 min, 2 cores)
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${1:-/tmp/compile-cost}
rm -rf "$OUT" && mkdir -p "$OUT"
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
FLAGS=(-gencode=arch=compute_90a,code=sm_90a -Xcompiler=-fPIC -O3 -std=c++17 -DNVTX_NO_IMPL -I"$PWD/runtime/include")
# user CPU seconds of compiling $2 (a file) with extra flags $3..
cost() {
  local name=$1 file=$2; shift 2
  /usr/bin/time -f "%U" -o "$OUT/t" "$NVCC" "${FLAGS[@]}" "$@" -c "$file" -o "$OUT/x.o" 2>"$OUT/$name.err" >/dev/null
  printf '%-46s %6.2f s\n' "$name" "$(cat "$OUT/t")"
}
unit() {  # a unit of these lines
  printf '%b' "$2" >"$OUT/$1.cu"
  cost "$1" "$OUT/$1.cu"
}
{
  echo "nvcc: $("$NVCC" --version | tail -1); host: $(nproc) cores; $(date -u +%F)"
  echo "## header-only units"
  unit floor_cuda_runtime '#include <cuda_runtime.h>\n#include <string>\n#include <vector>\n#include <algorithm>\n'
  unit floor_plus_std_threads '#include <cuda_runtime.h>\n#include <functional>\n#include <thread>\n#include <map>\n#include <set>\n#include <mutex>\n#include <condition_variable>\n#include <memory>\n#include <string>\n#include <vector>\n'
  unit nccl_h '#include <nccl.h>\n'
  unit nccl_device_h '#include <nccl.h>\n#include <nccl_device.h>\n'
  inc='#define CUCO_PROGRAM_WORKLOAD "x"\n'
  for h in cuco/program/program.h cuco/program/impl/reference_engine.h cuco/program/impl/reference_shims.h \
           cuco/program/mpi.h cuco/program/reference.h; do
    inc="$inc#include <$h>\n"
    unit "ref+$(basename "$h" .h)" "$inc"
  done
  inc=''
  for h in cuco/harness.h cuco/program/program.h cuco/program/impl/candidate_side.h cuco/program/codesign.h \
           cuco/program/impl/chunk_overlap.h cuco/program/impl/candidate_shims.h cuco/program/candidate.h; do
    inc="$inc#include <$h>\n"
    unit "cand+$(basename "$h" .h)" "$inc"
  done
  echo "## a real harness (tests/programs/tp_mlp_mpi through cuco init)"
  P=tests/programs/tp_mlp_mpi
  build/src/cli/cuco init "$P/main.cu" "$P/mlp.cu" --out "$OUT/wl" -- nvcc -O2 -std=c++17 -I"$P/../common" \
    "$P/main.cu" "$P/mlp.cu" -o "$OUT/tp_mlp" -lnccl -lcublas -lmpi >"$OUT/init.log" 2>&1
  H=$OUT/wl/harness
  # The workload's own [build] flags, its relative folders made absolute as the builder makes them.
  mapfile -t OWN < <(python3 -c 'import sys, tomllib, os
h = sys.argv[1]
for f in tomllib.load(open(h + "/workload.toml", "rb"))["build"]["flags"]:
    print("-I" + os.path.join(h, f[2:]) if f.startswith("-I") and not f.startswith("-I/") else f)' "$H")
  cost tp_mlp_reference "$H/reference.cu" "${OWN[@]}" -I"$H"
  cost tp_mlp_seed_candidate "$H/seed.cu" "${OWN[@]}" -I"$H" -Xptxas -O0
} | tee "$OUT/summary.txt"
