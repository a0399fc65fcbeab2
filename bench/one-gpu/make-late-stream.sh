#!/usr/bin/env bash
# What late-stream-w1.sh needs, made here (libclang and git are here, not on the GPU machines):
#   .carry/late/graph_late_stream   cuco init of tests/habits/graph_late_stream
#   .carry/runtime-before           this tree's runtime/ with the fix that makes the program's streams
#                                   wait for the binds' copies (IoBinder::JoinIn) reverse-applied
# and .carry/ext (bench/ext_programs.py's mgpm_jacobi_* workloads) when it is missing.
# Usage (repo root, after scripts/build.sh and bench/make-carry.sh): bash bench/one-gpu/make-late-stream.sh
set -eu
CUCO=${CUCO:-$PWD/build/src/cli/cuco}
rm -rf .carry/late .carry/runtime-before && mkdir -p .carry/late
(cd tests/habits/graph_late_stream && "$CUCO" init graphs.cu --out "$OLDPWD/.carry/late/graph_late_stream" -- nvcc -O2 graphs.cu -o graphs -lnccl) \
  >.carry/late/graph_late_stream.init.txt 2>&1
fix=${FIX:-$(git log --format=%H -1 --grep="IoBinder::JoinIn" -- runtime)}  # FIX=<commit> where the message differs
cp -r runtime .carry/runtime-before
git diff "$fix~1" "$fix" -- runtime | patch -R -p2 -s -f -d .carry/runtime-before
grep -q JoinIn .carry/runtime-before/include/cuco/program/impl/candidate_side.h && { echo "the fix is still in runtime-before"; exit 1; }
if [ ! -d .carry/ext/mgpm_jacobi_nccl_graphs ]; then
  python3 bench/ext_programs.py "$CUCO" "${EXT_ROOT:-/work/extprogs}" .carry/ext mgpm_jacobi_nccl_graphs mgpm_jacobi_nccl mgpm_jacobi_nccl_overlap
fi
du -sh .carry
