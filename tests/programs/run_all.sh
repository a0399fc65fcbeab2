#!/usr/bin/env bash
# Builds (build_all.sh) and runs every program of the corpus at W ranks, each with its own
# `run` line from program.toml ({W} = W; a line with {r} is started once per rank, r = 0..W-1).
# For a GPU machine: NCCL_NVLS_ENABLE=0 is exported; as root, mpirun gets --allow-run-as-root
# --oversubscribe. Programs whose world_sizes lack W are skipped.
# Prints one line per program: name, exit code, seconds, its checksum line. Logs: <build>/<name>/run-W<W>*.log
# Usage: run_all.sh <W> [name...]      ($BUILD_DIR: where to build, default a temp dir;
#                                       $NVCC_FLAGS default -arch=sm_90; $RUN_TIMEOUT default 300 s)
set -u
[ $# -ge 1 ] || { echo "usage: $0 <W> [name...]" >&2; exit 2; }
W=$1
shift
HERE=$(cd "$(dirname "$0")" && pwd)
BUILD=${BUILD_DIR:-$(mktemp -d)}
export NVCC_FLAGS=${NVCC_FLAGS:--arch=sm_90}
export NCCL_NVLS_ENABLE=0
TIMEOUT=${RUN_TIMEOUT:-300}
"$HERE/build_all.sh" "$BUILD" "$@" || exit 1
MPIRUN="mpirun -x NCCL_NVLS_ENABLE"
[ "$(id -u)" = 0 ] && MPIRUN="mpirun --allow-run-as-root --oversubscribe -x NCCL_NVLS_ENABLE"

names=("$@")
if [ ${#names[@]} -eq 0 ]; then
  for t in "$HERE"/*/program.toml; do names+=("$(basename "$(dirname "$t")")"); done
fi
bad=0
for name in "${names[@]}"; do
  read -r sizes_ok run < <(python3 - "$HERE/$name/program.toml" "$W" <<'PY'
import sys, tomllib
d = tomllib.load(open(sys.argv[1], "rb"))
print(int(int(sys.argv[2]) in d["world_sizes"]), d["run"])
PY
)
  if [ "$sizes_ok" != 1 ]; then
    printf '%-24s skipped: W=%s is not in its world_sizes\n' "$name" "$W"
    continue
  fi
  run=${run//\{W\}/$W}
  run=${run/#mpirun /$MPIRUN }
  dir="$BUILD/$name"
  start=$(date +%s%N)
  rc=0
  if [[ "$run" == *"{r}"* ]]; then
    pids=()
    for ((r = 0; r < W; r++)); do
      (cd "$dir" && exec timeout "$TIMEOUT" bash -c "${run//\{r\}/$r}") >"$dir/run-W$W-r$r.log" 2>&1 &
      pids+=($!)
    done
    for p in "${pids[@]}"; do wait "$p" || { c=$?; [ $rc -eq 0 ] && rc=$c; }; done
    log="$dir/run-W$W-r0.log"
  else
    log="$dir/run-W$W.log"
    (cd "$dir" && timeout "$TIMEOUT" bash -c "$run") >"$log" 2>&1 || rc=$?
  fi
  ms=$(( ($(date +%s%N) - start) / 1000000 ))
  sum=$(grep -i -m1 'checksum' "$log" || echo "(no checksum line)")
  printf '%-24s rc=%-3s %4d.%01d s  %s\n' "$name" "$rc" $((ms / 1000)) $((ms % 1000 / 100)) "$sum"
  if [ $rc -ne 0 ]; then bad=$((bad + 1)); tail -5 "$log" | sed 's/^/    /'; fi
done
echo "run_all: W=$W, $bad failed, logs under $BUILD"
[ $bad -eq 0 ]
