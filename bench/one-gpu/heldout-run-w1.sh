#!/usr/bin/env bash
# `cuco run --json` of held-out harnesses (.carry/habits/<name>, programs written elsewhere) at W=1, each
# run folder kept: why a candidate failed is in its logs there, which the machine takes back with it.
# RUN: the names (default: every ho_*); MAXC, BUDGET_S: each run's --max-candidates and --time-budget.
# Results under $OUT: summary.txt (per run: exit, whether stdout parsed as JSON, candidates, wall seconds,
# candidates per minute) and runs.tgz: runs/<name>-run.json (stdout: the JSON alone), <name>-run.err (the
# progress), <name>-export.json (`cuco export`: every candidate, its verdict and reason) and <name>.tgz (the
# run folder's files under 1 MB).
# Usage (repo root, .carry/ as in bench/one-gpu/README.md): RUN="ho_qcu" bash bench/one-gpu/heldout-run-w1.sh
set -u
OUT=${OUT:-/tmp/heldout-run-out}
mkdir -p "$OUT/runs"
export LD_LIBRARY_PATH=$PWD/.carry/lib PATH=$PWD/.carry/bin:$PATH NCCL_NVLS_ENABLE=0 CUCO_CACHE_DIR=/tmp/cuco-cache
all=$(cd .carry/habits && ls -d ho_* 2>/dev/null)
for n in ${RUN:-$all}; do
  s=$(date +%s)
  timeout $((${BUDGET_S:-150} + 90)) .carry/cuco run ".carry/habits/$n/harness" --world-size 1 \
    --max-candidates "${MAXC:-12}" --time-budget "${BUDGET_S:-150}s" --run-dir "/tmp/run-$n" --json \
    >"$OUT/runs/$n-run.json" 2>"$OUT/runs/$n-run.err"
  rc=$?
  wall=$(( $(date +%s) - s ))
  python3 - "$OUT/runs/$n-run.json" "$n" "$rc" "$wall" >>"$OUT/summary.txt" <<'EOF'
import json, sys
path, name, rc, wall = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
try:
    r = json.load(open(path))
except Exception as e:
    print(name, "rc=" + rc, "stdout is not JSON:", str(e)[:80], f"{wall} s"); sys.exit()
n = r.get("candidates") or 0
per_min = n * 60.0 / wall if wall else 0
print(name, "rc=" + rc, "json ok", "end=" + str(r.get("end", "search")), f"candidates={n}", f"{wall} s",
      f"{per_min:.1f}/min", "best=" + str(r.get("best_ms") or r.get("best")))
EOF
  .carry/cuco export "/tmp/run-$n" --json -o "$OUT/runs/$n-export.json" 2>>"$OUT/runs/$n-run.err"  # every candidate's reason
  (cd /tmp && find "run-$n" -type f -size -1M) | tar czf "$OUT/runs/$n.tgz" -C /tmp -T - 2>/dev/null
done
tar czf "$OUT/runs.tgz" -C "$OUT" runs && rm -rf "$OUT/runs"
cat "$OUT/summary.txt"
