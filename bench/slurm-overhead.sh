#!/usr/bin/env bash
# The Slurm launcher's cost against the local launcher, on a real single-host cluster
# (scripts/slurm-cluster.sh) and a CPU workload: per stage, the seconds from submission to the
# collected result against the same stage run locally; and `cuco evolve` throughput with 1, 2 and 4
# evaluations in flight, local and through sbatch jobs. Not a test: results go to
# bench/results/<date>-slurm-overhead-cpu/README.md by hand.
# Usage: bench/slurm-overhead.sh <path-to-cuco> [workload (default tests/workloads/cpu_matmul)] [repeats (3)]
set -eu
CUCO=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
SRC=$(cd "$(dirname "$0")/.." && pwd)
WL=${2:-$SRC/tests/workloads/cpu_matmul}
REPEATS=${3:-3}
T=$(mktemp -d /tmp/cuco-slurm-bench.XXXXXX)
trap '"$SRC/scripts/slurm-cluster.sh" stop "$T/cluster" >/dev/null 2>&1; rm -rf "$T"' EXIT
trap 'exit 1' INT TERM
export CUCO_CACHE_DIR=$T/cache
"$SRC/scripts/slurm-cluster.sh" start "$T/cluster" 4 >/dev/null
. "$T/cluster/env"
for n in 1 2 4; do
  for launcher in local slurm; do
    cat >"$T/$launcher-$n.toml" <<EOF
seed = 3
launcher = "$launcher"
[slurm]
mode = "jobs"
max_jobs = $n
poll_s = 0.2
[budget]
max_candidates = 4
[islands]
count = 2
[parallelism]
evaluations = $n
per_generation = $n
EOF
  done
done
"$CUCO" evolve "$WL" --config "$T/local-1.toml" --run-dir "$T/warm" >/dev/null 2>&1  # compile cache warm
echo "launcher in_flight repeat wall_s" >"$T/runs.txt"
for r in $(seq 1 "$REPEATS"); do
  for n in 1 2 4; do
    for launcher in local slurm; do
      d=$T/run-$launcher-$n-$r
      s=$(date +%s.%N)
      "$CUCO" evolve "$WL" --config "$T/$launcher-$n.toml" --run-dir "$d" >/dev/null 2>&1
      e=$(date +%s.%N)
      echo "$launcher $n $r $(echo "$e - $s" | bc)" >>"$T/runs.txt"
    done
  done
done
python3 - "$T" <<'EOF'
import glob, json, sqlite3, statistics, sys, collections
T = sys.argv[1]
walls = collections.defaultdict(list)
for line in open(T + "/runs.txt").read().split("\n")[1:]:
    if line.strip():
        l, n, r, w = line.split()
        walls[(l, int(n))].append(float(w))
stage = collections.defaultdict(list)  # (launcher, stage) -> seconds, from the records
for d in glob.glob(T + "/run-*-1-*"):
    launcher = d.split("/run-")[1].split("-")[0]
    for (m,) in sqlite3.connect(d + "/cuco.db").execute("select metrics_json from candidates where status = 'ok'"):
        for st in json.loads(m)["stages"]:
            if st["stage"] in ("verify", "bench"):
                stage[(launcher, st["stage"])].append(st["seconds"])
print("Per stage, 1 in flight (seconds from submission to collected result; median over candidates):")
print("| stage | local s | slurm s | Slurm overhead s |")
print("|---|---|---|---|")
for s in ("verify", "bench"):
    a, b = statistics.median(stage[("local", s)]), statistics.median(stage[("slurm", s)])
    print(f"| {s} | {a:.2f} | {b:.2f} | {b - a:+.2f} |")
print()
print("`cuco evolve`, 4 candidates (8 Slurm jobs), median wall over repeats:")
print("| in flight | local s | slurm s | local cand/min | slurm cand/min |")
print("|---|---|---|---|---|")
for n in (1, 2, 4):
    a, b = statistics.median(walls[("local", n)]), statistics.median(walls[("slurm", n)])
    print(f"| {n} | {a:.1f} | {b:.1f} | {4 * 60 / a:.1f} | {4 * 60 / b:.1f} |")
EOF
