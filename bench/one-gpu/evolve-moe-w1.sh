#!/usr/bin/env bash
# One GPU, world size 1: `cuco evolve` with the builtin proposer from moe_dispatch_combine's
# generation 0 (E_PER_RANK=8: 8 local experts, top-8, T=4096, H=7168, F=2048). Every expert is
# local here, so this measures the search loop on a real GPU (proposals, compiles beside runs,
# verification, timing, store), not the overlap across ranks.
set -u
export LD_LIBRARY_PATH=$PWD/.carry/lib NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 CUCO_CACHE_DIR=/tmp/cc
WALL=${WALL:-500}   # seconds of search (the 2026-11-23 runs: 500, then 240 after the parallelism change)
RUN=/tmp/evolve-moe-w1-$WALL
sed "s/^max_wall_s = [0-9]*/max_wall_s = $WALL/" bench/evolve-64.toml > /tmp/evolve-moe-w1.toml
.carry/cuco evolve workloads/moe_dispatch_combine --config /tmp/evolve-moe-w1.toml --run-dir $RUN \
  --world-size 1 --size E_PER_RANK=8 > $OUT/evolve.out 2> $OUT/evolve.err
echo "evolve exit $?"
cat $OUT/evolve.out
cp $RUN/cuco.db $RUN/config.toml $RUN/logs/evolve.log $OUT/ 2>/dev/null
cp $RUN/best.cu $OUT/ 2>/dev/null
python3 - $RUN/cuco.db <<'PY' | tee $OUT/summary.txt
import sqlite3, sys, json
db = sqlite3.connect(sys.argv[1])
print("status mix:", ", ".join(f"{s} {n}" for s, n in db.execute("select status, count(*) from candidates group by status")))
for r in db.execute("select id, generation, status, round(time_ms, 4), round(speedup, 3), mutation_kind, features_json "
                    "from candidates order by id"):
    print(*r)
span = db.execute("select (max(finished_ms) - min(created_ms)) / 60000.0, count(*) from candidates where status != 'pending'").fetchone()
if span[0]: print(f"evaluations per minute: {span[1] / span[0]:.2f} over {span[0]:.1f} min")
PY
