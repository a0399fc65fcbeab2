#!/usr/bin/env bash
# Issue 16 on one GPU (world size 1): the refactor changes no GPU figure. Every world-size-1 workload's
# seed is evaluated (verify + bench, sandboxed, supervisor-timed) with the runtime/ and workloads/ of
# the commit before the refactor (.carry/before/, made by `git archive <commit> runtime workloads`)
# and with this checkout's, alternated in one run on one GPU; then the planted wrong candidates
# (bench/device-planted.sh, each must end wrong_result) and, when time is left, the adversarial suite
# in default mode (tests/gpu/run_adversarial.sh). Host-side cuco is this checkout's (.carry/cuco) in
# both columns: the refactor's GPU-side change is the runtime and the references, which the columns
# differ in. Results under $OUT: seeds.json, seeds.md, planted/, adversarial/, device.txt.
# Usage (repo root, .carry/ as in bench/one-gpu/README.md): bash bench/one-gpu/refactor-w1.sh
set -u
OUT=${OUT:-/tmp/refactor-out}
DEADLINE_S=${DEADLINE_S:-560}
ROUNDS=${ROUNDS:-2}
start=$(date +%s)
left() { echo $((DEADLINE_S - ($(date +%s) - start))); }
mkdir -p "$OUT"
export PATH=$PWD/.carry/bin:$PATH LD_LIBRARY_PATH=$PWD/.carry/lib NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
export CUCO_CACHE_DIR=/tmp/cuco-cache
[ -z "${CUCO_CUDNN_FRONTEND_INCLUDE:-}" ] && [ -d .carry/cudnn-fe/include ] && export CUCO_CUDNN_FRONTEND_INCLUDE=$PWD/.carry/cudnn-fe/include
CUCO=$PWD/.carry/cuco
B=$PWD/.carry/before
nvidia-smi --query-gpu=index,name,memory.total,driver_version --format=csv,noheader >"$OUT/device.txt" 2>&1
echo "commit: ${CUCO_GIT_COMMIT:-unknown}  before: $(cat "$B/COMMIT" 2>/dev/null)  date: $(date -u +%Y-%m-%dT%H:%M:%SZ)" >>"$OUT/device.txt"
MPS_CTL=$(command -v nvidia-cuda-mps-control || echo /usr/local/nvidia/bin/nvidia-cuda-mps-control)
[ -x "$MPS_CTL" ] && [ ! -e /tmp/nvidia-mps/control ] && "$MPS_CTL" -d && echo "MPS daemon started" >>"$OUT/device.txt"

WORKLOADS=${WORKLOADS:-"gemm_reducescatter gemm_allgather moe_dispatch_combine attention_cp"}
size() { [ "$1" = moe_dispatch_combine ] && echo "--size E_PER_RANK=8"; }
# eval <side> <workload> <round> [--stage compile]
ev() {
  local side=$1 wl=$2 round=$3; shift 3
  local dir=workloads/$wl env=()
  [ "$side" = before ] && dir=$B/workloads/$wl && env=(CUCO_RUNTIME_DIR="$B/runtime")
  env "${env[@]}" "$CUCO" eval "$dir" --world-size 1 $(size "$wl") "$@" --run-dir "/tmp/rf-$side-$wl-$round" --json \
    >"$OUT/runs/$side-$wl-$round.json" 2>"$OUT/runs/$side-$wl-$round.err"
}
mkdir -p "$OUT/runs"
# Every build first, side by side (16 cores), so that the timed runs below only run.
for wl in $WORKLOADS; do for side in before after; do ev $side $wl compile --stage compile & done; done
wait
echo "compiled in $(( $(date +%s) - start ))s" | tee -a "$OUT/device.txt"
for round in $(seq 1 "$ROUNDS"); do
  for wl in $WORKLOADS; do
    for side in before after; do
      [ "$(left)" -lt 60 ] && break 3
      ev $side $wl $round
    done
  done
done
python3 - "$OUT" <<'PY'
import glob, json, os, statistics, sys
out = sys.argv[1]
rows = {}
for p in sorted(glob.glob(f"{out}/runs/*-*-[0-9]*.json")):
    side, rest = os.path.basename(p)[:-5].split("-", 1)
    wl, rnd = rest.rsplit("-", 1)
    try:
        r = json.load(open(p))
    except Exception as e:
        r = {"status": "no record", "reason": str(e)}
    t = (r.get("timing") or {}).get("median_ms")
    rows.setdefault(wl, {}).setdefault(side, []).append((r["status"], t))
table = []
lines = ["| workload | before: status, median ms per round | after: status, median ms per round | after / before |", "|---|---|---|---|"]
for wl, sides in rows.items():
    med = {s: statistics.median([t for st, t in v if t]) if any(t for st, t in v) else None for s, v in sides.items()}
    ratio = med.get("after") / med["before"] if med.get("after") and med.get("before") else None
    fmt = lambda v: ", ".join(f"{st} {t:.4f}" if t else st for st, t in v)
    lines.append(f"| {wl} | {fmt(sides.get('before', []))} | {fmt(sides.get('after', []))} | {ratio:.3f} |" if ratio else
                 f"| {wl} | {fmt(sides.get('before', []))} | {fmt(sides.get('after', []))} | - |")
    table.append({"workload": wl, "before": sides.get("before"), "after": sides.get("after"), "ratio": ratio})
json.dump(table, open(f"{out}/seeds.json", "w"), indent=1)
open(f"{out}/seeds.md", "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
PY
if [ "$(left)" -gt 90 ]; then
  echo "=== planted ($(left)s left)"
  OUT="$OUT/planted" timeout -s INT -k 10 "$(left)" env CUCO="$CUCO" WORLD=1 bash bench/device-planted.sh 2>&1 | tee "$OUT/planted.txt"
fi
if [ "$(left)" -gt 120 ]; then
  echo "=== adversarial, default mode ($(left)s left)"
  OUT="$OUT/adversarial" MODES=default timeout -s INT -k 10 "$(left)" bash tests/gpu/run_adversarial.sh "$CUCO" 2>&1 | tail -40 | tee "$OUT/adversarial.txt"
fi
echo "done after $(( $(date +%s) - start ))s"
