#!/usr/bin/env bash
# Programs written elsewhere built and run as their authors wrote them, without cuco: to tell a
# failure that is the program's own from one of cuco's. Each program's folder is copied from ROOT
# (bench/ext_programs.py's) into .carry/ext-src/<name>/ on the development machine:
#   mkdir -p .carry/ext-src && cp -r ROOT/ohm-neu-hpc-for-ai/week_11 .carry/ext-src/ohm_moe_mpi
#   cp -r ROOT/nccl-tutorial/st_md .carry/ext-src/tut_st_md
#   cp -r ROOT/ohm-neu-hpc-for-ai/week_07/bin .carry/ext-src/ohm_attn_single
#   cp -r ROOT/ohm-neu-hpc-for-ai/week_11 .carry/ext-src/ohm_flashmoe_sym
# then `bash bench/make-carry.sh`. ONLY picks programs (default: every one below whose folder is
# carried). Each gets TIMEOUT seconds (default 90) to run. Results under $OUT: device.txt,
# as-written.md (one row a program: build and run exit status, the run's last lines) and
# as-written.tgz (each program's build and run logs).
# Usage (repo root, a two-GPU machine): bash bench/one-gpu/as-written-w2.sh
set -u
OUT=${OUT:-/tmp/as-written}
TIMEOUT=${TIMEOUT:-90}
ONLY=${ONLY:-}
mkdir -p "$OUT/logs"
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
MPIRUN="mpirun --allow-run-as-root --oversubscribe -np 2 -x NCCL_NVLS_ENABLE -x NVSHMEM_DISABLE_NVLS"
# name | build line (in its folder) | run line (in its folder): bench/ext_programs.py's build lines.
PROGRAMS=(
  "ohm_moe_mpi|nvcc -ccbin mpicxx -DUSE_MPI -O2 deepseek_v3_moe_complete.cu -o moe -lnccl|$MPIRUN ./moe"
  "ohm_attn_single|nvcc -O2 main.cu -o main -lnccl|./main 2"
  "ohm_flashmoe_sym|nvcc -O2 flashmoe_sym.cu -o flashmoe_sym -lnccl|./flashmoe_sym"
  "tut_st_md|c++ -std=gnu++17 -Iinclude -isystem /usr/local/cuda/include csrc/main.cpp csrc/allReduce.cpp csrc/sendRecv.cpp -o st_md_main -L/usr/local/cuda/lib64 -lcudart -lnccl|./st_md_main"
)
nvidia-smi --query-gpu=index,name,memory.total,driver_version --format=csv,noheader >"$OUT/device.txt" 2>&1
echo "commit: ${CUCO_GIT_COMMIT:-unknown}  date: $(date -u +%Y-%m-%dT%H:%M:%SZ)  mpirun: $(command -v mpirun)" >>"$OUT/device.txt"
echo "| program | build | run (exit status) | the run's last lines |" >"$OUT/as-written.md"
echo "|---|---|---|---|" >>"$OUT/as-written.md"
for entry in "${PROGRAMS[@]}"; do
  IFS='|' read -r name build runline <<<"$entry"
  [ -n "$ONLY" ] && [[ " $ONLY " != *" $name "* ]] && continue
  src=$PWD/.carry/ext-src/$name
  [ -d "$src" ] || { echo "| $name | not carried | | |" >>"$OUT/as-written.md"; continue; }
  w=/tmp/as-written/$name && rm -rf "$w" && mkdir -p "$(dirname "$w")" && cp -r "$src" "$w"
  (cd "$w" && bash -c "$build") >"$OUT/logs/$name.build.log" 2>&1; b=$?
  r=""
  if [ $b -eq 0 ]; then
    (cd "$w" && timeout "$TIMEOUT" bash -c "$runline") >"$OUT/logs/$name.run.log" 2>&1; r=$?
  fi
  last=$(tail -n 4 "$OUT/logs/$name.run.log" 2>/dev/null | tr '\n|' ' /' | cut -c1-400)
  echo "| $name | exit $b | ${r:+exit $r} | $last |" >>"$OUT/as-written.md"
done
tar -C "$OUT" -czf "$OUT/as-written.tgz" logs
cat "$OUT/as-written.md"
