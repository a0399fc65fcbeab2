#!/usr/bin/env bash
# Issue 4 on a GPU machine: `cuco evolve` with the builtin proposer from each GEMM workload's
# generation 0 (bench/evolve-64.toml: 64 candidates), then the summary figures: best speed-up over
# the seed, evaluations per minute, failure mix (from the store). Results under $OUT; a run cut
# by the wall budget is continued by calling this again with the run dirs carried back
# (cuco evolve --resume). EVOLVE_TIMEOUT=<s> interrupts each run (SIGINT, as a Ctrl-C) after that many
# seconds, so that the summary still comes back inside a device call; the next call resumes it.
# GPUS (e.g. 2,3) keeps the runs on those GPUs, so that another script can share the machine.
# EVOLVE_CONFIG: another search config (bench/evolve-attention.toml for attention_cp's knobs).
# Usage (repo root): CUCO=.carry/cuco WORLD=2 bash bench/run-evolve.sh
set -u
OUT=${OUT:-/tmp/cuco-evolve}
CUCO=${CUCO:-build/src/cli/cuco}
WORLD=${WORLD:-2}
WORKLOADS=${WORKLOADS:-"gemm_reducescatter gemm_allgather"}
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 TORCH_SYMM_MEM_DISABLE_MULTICAST=1
# attention_cp links cuDNN: the GPU machines lack the frontend headers, so they travel in .carry/.
[ -z "${CUCO_CUDNN_FRONTEND_INCLUDE:-}" ] && [ -d .carry/cudnn-fe/include ] && export CUCO_CUDNN_FRONTEND_INCLUDE=$PWD/.carry/cudnn-fe/include
export CUCO_CACHE_DIR=${CUCO_CACHE_DIR:-/tmp/cuco-cache}
# .carry/ (bench/make-carry.sh): the sandbox's bwrap and the libraries cuco needs that the GPU machines lack.
[ -d .carry/bin ] && export PATH=$PWD/.carry/bin:$PATH
[ -d .carry/lib ] && export LD_LIBRARY_PATH=$PWD/.carry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
mkdir -p "$OUT"
for wl in $WORKLOADS; do
  RUN=/tmp/cuco-evolve-runs/$wl-w$WORLD
  echo "=== evolve $wl (world $WORLD, $(date -u +%H:%M:%S))"
  if [ -f "$RUN/cuco.db" ]; then
    ${EVOLVE_TIMEOUT:+timeout -s INT -k 20 "$EVOLVE_TIMEOUT"} "$CUCO" evolve --resume "$RUN" ${GPUS:+--gpus "$GPUS"} 2>"$OUT/$wl-w$WORLD.log"
  else
    mkdir -p "$(dirname "$RUN")"
    ${EVOLVE_TIMEOUT:+timeout -s INT -k 20 "$EVOLVE_TIMEOUT"} "$CUCO" evolve "workloads/$wl" --config "${EVOLVE_CONFIG:-bench/evolve-64.toml}" --run-dir "$RUN" --world-size "$WORLD" ${GPUS:+--gpus "$GPUS"} 2>"$OUT/$wl-w$WORLD.log"
  fi
  echo "exit $?"
  tail -4 "$OUT/$wl-w$WORLD.log"
  # The store is in WAL mode: an online backup carries what the -wal file still holds (a plain cp
  # of cuco.db does not).
  python3 -c 'import sqlite3, sys; sqlite3.connect(sys.argv[1]).backup(sqlite3.connect(sys.argv[2]))' \
    "$RUN/cuco.db" "$OUT/$wl-w$WORLD.db" 2>/dev/null
  python3 - "$RUN/cuco.db" <<'PY' | tee "$OUT/$wl-w$WORLD-summary.txt"
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
rows = db.execute("select status, count(*) from candidates group by status").fetchall()
print("status mix:", ", ".join(f"{s} {n}" for s, n in rows))
best = db.execute("select id, time_ms, speedup, mutation_kind from candidates where status='ok' and time_ms > 0 "
                  "order by time_ms limit 1").fetchone()
print("best:", best)
span = db.execute("select (max(finished_ms) - min(created_ms)) / 60000.0, count(*) from candidates "
                  "where status not in ('pending')").fetchone()
if span[0]:
    print(f"evaluations per minute: {span[1] / span[0]:.2f} over {span[0]:.1f} min")
PY
done
