#!/usr/bin/env bash
# Compile-checks the GPU side of cuco without a GPU: the harness runtime, the gemm_reducescatter
# reference and seed (linked into a harness executable), every planted candidate (objects only),
# the program-mode workload (object only, against a stand-in mpi.h), and the frozen text of every
# candidate against the seed. Exits non-zero on the first class of failure, after reporting all.
#
# Usage (repo root or anywhere): tests/gpu/build_harness_local.sh [--keep] [--strict]
#   --keep     keep the build folder (printed) instead of deleting it
#   --strict   also compile the harness, reference and seed with -Wall -Wextra (host) and fail on
#              any warning in cuco's own files
# Environment: CUDA_HOME (default /usr/local/cuda), NCCL_HOME (default: CUDA_HOME if it has
# nccl.h, else PyTorch's nvidia.nccl, else /usr), CUCO_ARCH (default sm_90a), JOBS (default nproc).
set -uo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
KEEP=0
STRICT=0
for a in "$@"; do
  case "$a" in
    --keep) KEEP=1 ;;
    --strict) STRICT=1 ;;
    *) echo "unknown argument: $a" >&2; exit 2 ;;
  esac
done

CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
NVCC="$CUDA_HOME/bin/nvcc"
[ -x "$NVCC" ] || NVCC=$(command -v nvcc || true)
[ -n "$NVCC" ] && [ -x "$NVCC" ] || { echo "nvcc not found (set CUDA_HOME)" >&2; exit 2; }
if [ -z "${NCCL_HOME:-}" ]; then
  if [ -f "$CUDA_HOME/include/nccl.h" ]; then
    NCCL_HOME=$CUDA_HOME
  elif p=$(python3 -c 'import nvidia.nccl as m; print(list(m.__path__)[0])' 2>/dev/null) && [ -f "$p/include/nccl.h" ]; then
    NCCL_HOME=$p
  else
    NCCL_HOME=/usr
  fi
fi
NCCL_LIB="$NCCL_HOME/lib"
[ -e "$NCCL_LIB/libnccl.so.2" ] || NCCL_LIB="$NCCL_HOME/lib64"
[ -e "$NCCL_LIB/libnccl.so.2" ] || NCCL_LIB="$NCCL_HOME/lib/x86_64-linux-gnu"
ARCH=${CUCO_ARCH:-sm_90a}
JOBS=${JOBS:-$(nproc)}
WL="$ROOT/workloads/gemm_reducescatter"
CAND="$ROOT/tests/gpu/candidates/gemm_reducescatter"
PROG="$ROOT/workloads/gemm_reducescatter_program"

B=$(mktemp -d /tmp/cuco-gpu-build.XXXXXX)
cleanup() { if [ "$KEEP" = 1 ]; then echo "build folder kept: $B"; else rm -rf "$B"; fi; }
trap cleanup EXIT

# The evaluator's compile flags (src/evaluate/builder.cc) plus the workload's [build] flags.
GENCODE="-gencode=arch=compute_${ARCH#sm_},code=$ARCH"
FLAGS=(-std=c++20 "$GENCODE" -Xcompiler=-fPIC -O3 -I "$ROOT/runtime/include" -I "$WL" -I "$NCCL_HOME/include" -I "$CUDA_HOME/include")
LINK=(-L"$NCCL_LIB" -l:libnccl.so.2 -Xlinker -rpath="$NCCL_LIB" -L"$CUDA_HOME/lib64" -lcublasLt)
echo "nvcc: $NVCC ($("$NVCC" --version | tail -1))"
echo "NCCL: $NCCL_HOME ($(grep -m1 -o 'NCCL_VERSION_CODE [0-9]*' "$NCCL_HOME/include/nccl.h" 2>/dev/null))"
echo "arch: $ARCH, jobs: $JOBS, build folder: $B"

FAIL=0
# compile NAME SOURCE [extra flags...]: NAME.o and NAME.log in $B; prints one line.
compile() {
  local name=$1 src=$2
  shift 2
  local t0=$SECONDS flags
  mapfile -t flags <"$B/flags"
  if "$NVCC" "${flags[@]}" "$@" -c "$src" -o "$B/$name.o" >"$B/$name.log" 2>&1; then
    local w
    w=$(grep -ci 'warning' "$B/$name.log")
    echo "  ok    $name ($((SECONDS - t0)) s, $w warning lines)"
  else
    echo "  FAIL  $name ($((SECONDS - t0)) s):"
    sed 's/^/        /' "$B/$name.log" | head -30
    return 1
  fi
}
export -f compile
export NVCC B
printf '%s\n' "${FLAGS[@]}" >"$B/flags"

echo "== frozen text of the candidates"
frozen() { awk '/EVOLVE-BLOCK-START/{print; f=1; next} /EVOLVE-BLOCK-END/{f=0} !f' "$1"; }
frozen "$WL/seed.cu" >"$B/seed.frozen"
for f in "$CAND"/*.cu; do
  n=$(basename "$f" .cu)
  if frozen "$f" | cmp -s - "$B/seed.frozen"; then
    [ "$n" = frozen_edit ] && { echo "  FAIL  frozen_edit.cu keeps the frozen text (it must change it)"; FAIL=1; } || echo "  ok    $n"
  else
    [ "$n" = frozen_edit ] && echo "  ok    $n (differs from the seed, as planted)" || { echo "  FAIL  $n: frozen text differs from the seed"; FAIL=1; }
  fi
done

echo "== harness runtime, reference, seed, program (evaluator flags)"
compile harness_main "$ROOT/runtime/src/harness_main.cu" >"$B/harness_main.out" &
P1=$!
compile reference "$WL/reference.cu" >"$B/reference.out" &
P2=$!
compile seed "$WL/seed.cu" >"$B/seed.out" &
P3=$!
compile program "$PROG/program.cu" -I "$ROOT/tests/gpu/stubs" >"$B/program.out" &
P4=$!
for p in $P1 $P2 $P3 $P4; do wait $p || FAIL=1; done
cat "$B/harness_main.out" "$B/reference.out" "$B/seed.out" "$B/program.out"
for n in harness_main reference seed program; do
  if [ -f "$B/$n.log" ] && grep -qi warning "$B/$n.log"; then
    echo "  FAIL  $n has warnings:"; sed 's/^/        /' "$B/$n.log" | head -20; FAIL=1
  fi
done

echo "== link: harness = harness_main.o + reference.o + seed.o"
if [ -f "$B/harness_main.o" ] && [ -f "$B/reference.o" ] && [ -f "$B/seed.o" ]; then
  if "$NVCC" "$GENCODE" "$B/harness_main.o" "$B/reference.o" "$B/seed.o" -o "$B/harness" "${LINK[@]}" >"$B/link.log" 2>&1; then
    echo "  ok    $B/harness"
    "$B/harness" --help >/dev/null 2>&1 || { echo "  FAIL  harness --help"; FAIL=1; }
    "$B/harness" --bogus >/dev/null 2>&1; [ $? -eq 2 ] || { echo "  FAIL  harness --bogus did not exit 2"; FAIL=1; }
  else
    echo "  FAIL  link:"; sed 's/^/        /' "$B/link.log" | head -30; FAIL=1
  fi
else
  echo "  skipped (an object is missing)"; FAIL=1
fi

echo "== planted candidates (objects only)"
ls "$CAND"/*.cu | xargs -P "$JOBS" -I{} bash -c 'compile cand_$(basename {} .cu) {}' >"$B/cands.out" 2>&1 || FAIL=1
sort "$B/cands.out"
grep -q FAIL "$B/cands.out" && FAIL=1

if [ "$STRICT" = 1 ]; then
  echo "== strict: -Wall -Wextra on cuco's own files (CUDA/NCCL headers as system headers)"
  SFLAGS=(-std=c++20 "$GENCODE" -Xcompiler=-fPIC -O3 -I "$ROOT/runtime/include" -I "$WL"
          -isystem "$NCCL_HOME/include" -isystem "$CUDA_HOME/include" -Xcompiler -Wall,-Wextra)
  for pair in "harness_main:$ROOT/runtime/src/harness_main.cu" "reference:$WL/reference.cu" "seed:$WL/seed.cu"; do
    n=${pair%%:*}; src=${pair#*:}
    if "$NVCC" "${SFLAGS[@]}" -c "$src" -o "$B/strict_$n.o" >"$B/strict_$n.log" 2>&1 && ! grep -qi warning "$B/strict_$n.log"; then
      echo "  ok    $n"
    else
      echo "  FAIL  $n:"; sed 's/^/        /' "$B/strict_$n.log" | head -20; FAIL=1
    fi
  done
fi

if [ "$FAIL" = 0 ]; then echo "ALL OK"; else echo "FAILED"; fi
exit "$FAIL"
