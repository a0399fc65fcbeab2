#!/usr/bin/env bash
# Issue 17 on one GPU: (1) every corpus program (tests/programs/) built with its own build line and
# run as it is at one rank (tests/programs/run_all.sh 1); (2) `cuco run` of a world-size-2 workload
# on a one-GPU machine: it must say in one line that it needs 2 GPUs and found 1, search at world
# size 1 instead (a small budget), and exit 3; (3) every corpus program through `cuco init` (with its
# own build line after `--`) and `cuco eval` of the program-mode workload at world size 1, sandboxed,
# with two edits a user makes where init says TODO: world_sizes gets 1, and a program printing no
# PASS line gets pass_regex = its checksum line. Results under $OUT: device.txt, programs-w1.txt,
# program-logs/, run-gemm-rs.txt (+ .rc), init/<name>.{init.txt,eval.json,eval.err}, init.md.
# Usage (repo root, .carry/ as in bench/one-gpu/README.md): bash bench/one-gpu/programs-w1.sh
set -u
OUT=${OUT:-/tmp/programs-out}
mkdir -p "$OUT/program-logs"
export PATH=$PWD/.carry/bin:$PATH NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
export CUCO_CACHE_DIR=/tmp/cuco-cache
nvidia-smi --query-gpu=index,name,memory.total,driver_version --format=csv,noheader >"$OUT/device.txt" 2>&1
echo "commit: ${CUCO_GIT_COMMIT:-unknown}  date: $(date -u +%Y-%m-%dT%H:%M:%SZ)" >>"$OUT/device.txt"
MPS_CTL=$(command -v nvidia-cuda-mps-control || echo /usr/local/nvidia/bin/nvidia-cuda-mps-control)
[ -x "$MPS_CTL" ] && [ ! -e /tmp/nvidia-mps/control ] && "$MPS_CTL" -d && echo "MPS daemon started" >>"$OUT/device.txt"

if [[ " ${PHASES:-programs run init} " == *" programs "* ]]; then
  start=$(date +%s)
  BUILD_DIR=/tmp/progs RUN_TIMEOUT=${RUN_TIMEOUT:-120} bash tests/programs/run_all.sh 1 >"$OUT/programs-w1.txt" 2>&1
  echo "programs phase: rc=$? in $(( $(date +%s) - start )) s" >>"$OUT/programs-w1.txt"
  for d in /tmp/progs/*/; do cp "$d"/run-W1*.log "$OUT/program-logs/" 2>/dev/null; for f in "$d"/run-W1*.log; do
    [ -f "$f" ] && mv "$OUT/program-logs/$(basename "$f")" "$OUT/program-logs/$(basename "$d")-$(basename "$f")"; done; done
fi

if [[ " ${PHASES:-programs run init} " == *" run "* ]]; then
  cat >/tmp/run-budget.toml <<'TOML'
[budget]
max_candidates = ${MAX_CANDIDATES:-6}
TOML
  sed -i "s/\${MAX_CANDIDATES:-6}/${MAX_CANDIDATES:-6}/" /tmp/run-budget.toml
  start=$(date +%s)
  LD_LIBRARY_PATH=$PWD/.carry/lib timeout 420 .carry/cuco run workloads/gemm_reducescatter --config /tmp/run-budget.toml \
    --run-dir /tmp/run-gemm-rs >"$OUT/run-gemm-rs.txt" 2>&1
  echo "rc=$? in $(( $(date +%s) - start )) s" >"$OUT/run-gemm-rs.rc"
fi

if [[ " ${PHASES:-programs run init} " == *" init "* ]]; then
  mkdir -p "$OUT/init"
  CUCO=$PWD/.carry/cuco
  for toml in tests/programs/*/program.toml; do
    dir=$(dirname "$toml"); name=$(basename "$dir")
    IFS='|' read -r mains build < <(python3 - "$toml" <<'PY'
import sys, tomllib
t = tomllib.load(open(sys.argv[1], "rb"))
print(" ".join(s for s in t["sources"] if s.endswith((".cu", ".cc", ".cpp"))), "|", t["build"])
PY
)
    wl=/tmp/wl/$name
    rm -rf "$wl"
    (cd "$dir" && LD_LIBRARY_PATH=$PWD/../../../.carry/lib "$CUCO" init $mains --out "$wl" -- $build) >"$OUT/init/$name.init.txt" 2>&1
    echo "init rc=$?" >>"$OUT/init/$name.init.txt"
    [ -f "$wl/workload.toml" ] || continue
    grep -q '^world_sizes = \[1[],]' "$wl/workload.toml" || sed -i 's/^world_sizes = \[/world_sizes = [1, /' "$wl/workload.toml"
    grep -q "no pass line found" "$OUT/init/$name.init.txt" && sed -i "s/^pass_regex = .*/pass_regex = 'checksum'/" "$wl/workload.toml"
    LD_LIBRARY_PATH=$PWD/.carry/lib timeout 300 "$CUCO" eval "$wl" --world-size 1 --json --run-dir "/tmp/wl-runs/$name" \
      >"$OUT/init/$name.eval.json" 2>"$OUT/init/$name.eval.err"
    echo "$name eval rc=$?" >>"$OUT/init/$name.init.txt"
    tail -30 /tmp/wl-runs/$name/candidates/*/program/logs/rank0.log >"$OUT/init/$name.rank0.txt" 2>/dev/null
  done
  python3 - "$OUT/init" >"$OUT/init.md" <<'PY'
import glob, json, os, re, sys
d = sys.argv[1]
print("| program | parsed with | launcher | eval status | time (ms, program's own) | reason |")
print("|---|---|---|---|---|---|")
for p in sorted(glob.glob(f"{d}/*.init.txt")):
    name = os.path.basename(p)[:-len(".init.txt")]
    txt = open(p).read()
    parsed = (re.search(r"parsed with (\S+)\)", txt) or [None, "?"])[1]
    launcher = (re.search(r"launcher (\S+),", txt) or [None, "?"])[1]
    status = reason = ms = ""
    try:
        j = json.load(open(f"{d}/{name}.eval.json"))
        r = j[0] if isinstance(j, list) else j.get("records", [j])[0] if isinstance(j, dict) else j
        status = r.get("status", "?"); reason = (r.get("reason") or "")[:120]
        ms = r.get("timing", {}).get("median_ms", "")
    except Exception as e:
        status = "no record"; reason = open(f"{d}/{name}.eval.err").read().strip().splitlines()[-1][:120] if os.path.exists(f"{d}/{name}.eval.err") and open(f"{d}/{name}.eval.err").read().strip() else str(e)[:80]
    print(f"| {name} | {parsed} | {launcher} | {status} | {ms} | {reason} |")
PY
  tar -C "$OUT" -czf "$OUT/init.tgz" init && rm -rf "$OUT/init"
fi
