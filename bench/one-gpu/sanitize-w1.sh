#!/usr/bin/env bash
# A program written elsewhere, built with its own build line (plus -lineinfo) and run once at one rank
# under compute-sanitizer's memcheck, then initcheck: what `cuco eval` means by "depends on more than
# its inputs" when its seed disagrees with its frozen copy (src/search/seed_disagreement.h).
# PROG: the program's folder; BUILD: its build command (run in PROG; $MPI_CFLAGS and $MPI_LIBS are
# mpicxx's flags on this machine); ARGS: its arguments. Results under $OUT/sanitize: build.txt,
# memcheck.txt, initcheck.txt (the first errors each tool found, and its summary).
# Usage (repo root, on a GPU machine): PROG=.carry/prog/eumaster_cg BUILD="nvcc ..." ARGS="-s 4096" \
#   bash bench/one-gpu/sanitize-w1.sh
set -u
OUT=${OUT:-/tmp/sanitize-out}
D=$OUT/sanitize
mkdir -p "$D"
MPI_CFLAGS=$(mpicxx --showme:compile 2>/dev/null) MPI_LIBS=$(mpicxx --showme:link 2>/dev/null)
export MPI_CFLAGS MPI_LIBS OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0
cd "$PROG" || exit 1
bash -c "$BUILD" >"$D/build.txt" 2>&1
echo "build rc=$?" >>"$D/build.txt"
exe=$(ls -t | head -1)
for tool in memcheck initcheck; do
  timeout 150 mpirun -np 1 compute-sanitizer --tool "$tool" --print-limit 8 "./$exe" $ARGS >"$D/$tool.txt" 2>&1
  echo "$tool rc=$?" >>"$D/$tool.txt"
done
grep -h -m 3 -A 4 "^========= Invalid\|^========= Uninitialized" "$D"/memcheck.txt "$D"/initcheck.txt
grep -h "ERROR SUMMARY\|rc=" "$D"/*.txt
