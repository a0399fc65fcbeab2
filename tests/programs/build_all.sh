#!/usr/bin/env bash
# Builds every program of the corpus (tests/programs/<name>/program.toml) with its own `build`
# command, in a copy of its folder under <out-dir>/<name> (common/ is copied beside them, so
# `-I../common` holds). Extra flags are appended to every build:
#   $NVCC_FLAGS        e.g. "-arch=sm_90" (one arch keeps CI fast)
#   MPI                for builds that link -lmpi: `mpicc --showme:compile/link` ($MPI_FLAGS overrides)
#   NCCL               -I/-L of $CUCO_NCCL_HOME or $NCCL_HOME when set, else of the nvidia-nccl wheel
#                      when $CUDA_HOME/include has no nccl.h
# Usage: build_all.sh <out-dir> [name...]       (default: every program)
# Exit 0 when all built; else 1, naming each program whose build failed (its log: <out-dir>/<name>/build.log).
set -u
[ $# -ge 1 ] || { echo "usage: $0 <out-dir> [name...]" >&2; exit 2; }
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=$1
shift
mkdir -p "$OUT" || exit 2
OUT=$(cd "$OUT" && pwd)
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
export PATH="$CUDA_HOME/bin:$PATH"

NCCL_FLAGS=""
NCCL_DIR=${CUCO_NCCL_HOME:-${NCCL_HOME:-}}
if [ -z "$NCCL_DIR" ] && [ ! -f "$CUDA_HOME/include/nccl.h" ]; then
  NCCL_DIR=$(python3 -c 'import nvidia.nccl as n; print(list(n.__path__)[0])' 2>/dev/null || true)
fi
[ -n "$NCCL_DIR" ] && NCCL_FLAGS="-I$NCCL_DIR/include -L$NCCL_DIR/lib"
if [ -z "${MPI_FLAGS+x}" ]; then
  MPI_FLAGS=""
  command -v mpicc >/dev/null && MPI_FLAGS="$(mpicc --showme:compile) $(mpicc --showme:link)"
fi

names=("$@")
if [ ${#names[@]} -eq 0 ]; then
  for t in "$HERE"/*/program.toml; do names+=("$(basename "$(dirname "$t")")"); done
fi
rm -rf "$OUT/common" && cp -r "$HERE/common" "$OUT/common"
failed=()
for name in "${names[@]}"; do
  src="$HERE/$name"
  [ -f "$src/program.toml" ] || { echo "FAIL $name: no $src/program.toml"; failed+=("$name"); continue; }
  build=$(python3 -c 'import sys, tomllib; print(tomllib.load(open(sys.argv[1], "rb"))["build"])' "$src/program.toml") ||
    { echo "FAIL $name: cannot read build from program.toml"; failed+=("$name"); continue; }
  extra="${NVCC_FLAGS:-} $NCCL_FLAGS"
  case " $build " in *" -lmpi "*) extra="$extra $MPI_FLAGS" ;; esac
  rm -rf "${OUT:?}/$name" && cp -r "$src" "$OUT/$name"
  start=$(date +%s)
  if (cd "$OUT/$name" && eval "$build $extra") >"$OUT/$name/build.log" 2>&1; then
    echo "ok   $name ($(( $(date +%s) - start )) s): $build"
  else
    echo "FAIL $name: $build $extra"
    sed 's/^/     /' "$OUT/$name/build.log" | head -30
    failed+=("$name")
  fi
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "build_all: ${#failed[@]} of ${#names[@]} failed: ${failed[*]}"
  exit 1
fi
echo "build_all: ${#names[@]} programs built into $OUT"
