#!/usr/bin/env bash
# Where an evaluation that ends `timeout` waits: `cuco eval` of one harness in the background, and
# after WAIT seconds, for every process of it still alive (cuco, the supervisor, the candidates,
# found by their run dir in the command line, as cuco's descendants, or as started after it; `ps` and
# `free` of the machine beside them), each thread's name, state,
# kernel wait channel and system call (/proc), and its user stack through gdb, or cuda-gdb where gdb is missing. Results:
# $OUT/hang/<pid>.txt, eval.json, eval.err, logs/<stage>/ (the supervisor's and the ranks' logs). The eval ends at its verify limit (LIMIT, default 90 s).
# Usage (repo root on the GPU machine, .carry/ as in bench/one-gpu/README.md):
#   HARNESS=.carry/probes/a2a_initall_threads/harness WORLD=2 WAIT=60 bash bench/one-gpu/hang-stacks.sh
set -u
OUT=${OUT:-/tmp/hang-out}
D=$OUT/hang
WAIT=${WAIT:-60}
mkdir -p "$D"
export PATH=$PWD/.carry/bin:$PATH LD_LIBRARY_PATH=$PWD/.carry/lib NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
export CUCO_CACHE_DIR=/tmp/cuco-cache
RUN=/tmp/hang-run-$$
"$PWD/.carry/cuco" eval "$HARNESS" --world-size "${WORLD:-2}" --verify-limit "${LIMIT:-90}" --json --run-dir "$RUN" >"$D/eval.json" 2>"$D/eval.err" &
EVAL=$!
sleep "$WAIT"
descendants() { local p; for p in $(pgrep -P "$1"); do echo "$p"; descendants "$p"; done; }
# gdb where installed, else cuda-gdb (the GPU machines have only that; it attaches to host code too).
DBG=$(command -v gdb || command -v cuda-gdb || true)
echo "${DBG:-no gdb}" >"$D/tools.txt"
# Every process started since the eval too: a sandbox's processes outlive their bwrap parent and
# are not found as its descendants, nor by the run dir (bound elsewhere inside).
started() { local t0 p; t0=$(awk '{print $22}' /proc/$EVAL/stat 2>/dev/null || echo 0)
  for p in /proc/[0-9]*; do p=${p#/proc/}; [ "$p" = $$ ] && continue
    [ "$(awk '{print $22}' /proc/$p/stat 2>/dev/null || echo 0)" -ge "$t0" ] 2>/dev/null && echo "$p"; done; }
ps -eo pid,ppid,pgid,stat,etimes,rss,args --sort=pid >"$D/ps.txt" 2>&1
free -g >"$D/free.txt" 2>&1
for pid in $EVAL $(descendants $EVAL) $(pgrep -f "$RUN") $(started); do
  [ -d /proc/$pid ] || continue
  f=$D/$pid.txt
  [ -e "$f" ] && continue
  { echo "pid $pid: $(tr '\0' ' ' </proc/$pid/cmdline | cut -c1-300)"
    for t in /proc/$pid/task/*; do
      echo "  thread $(basename "$t") $(cat "$t/comm") state=$(awk '{print $3}' "$t/stat") wchan=$(cat "$t/wchan" 2>/dev/null) syscall=$(cut -d' ' -f1 "$t/syscall" 2>/dev/null)"
    done
    [ -n "$DBG" ] && timeout 60 "$DBG" -p "$pid" -batch -ex "thread apply all bt 25" 2>&1 | grep -E '^#|^Thread' | head -300
  } >"$f" 2>&1
done
nvidia-smi >"$D/smi.txt" 2>&1
wait "$EVAL"
echo "eval exit $?" >>"$D/eval.err"
for s in "$RUN"/candidates/*/*/logs; do [ -d "$s" ] && mkdir -p "$D/logs" && cp -r "$s" "$D/logs/$(basename "$(dirname "$s")")"; done
