#!/usr/bin/env bash
# Issue 17, item 4 on GPUs: every corpus program started once per rank, from the harness `cuco init`
# made of it, through `cuco run` of that harness: `cuco transform` makes generation 0 with the knobs
# backend (nccl | lsa) and graph (off | on) (cuco/program/codesign.h), verifies it against the
# program's own code and accepts it, then the builtin proposer searches the knobs. Results under
# $OUT: device.txt, knobs-w$WORLD.md (program, generation 0, knobs, seed ms, best ms and its knobs,
# speed-up; every candidate's status), knobs-w$WORLD.tgz (per program: run.out, the stores).
# PREMADE=.carry/hwl-knobs: the workloads `cuco init` wrote on a machine with libclang (the GPU
# machines have none): <name>/ per program, made by bench/one-gpu/make-premade.sh. WORLD=2 on a
# two-GPU machine; ONLY="a b" for some programs; MAX candidates per search (default 8).
# Usage (repo root, .carry/ as in bench/one-gpu/README.md):
#   PREMADE=.carry/hwl-knobs WORLD=1 bash bench/one-gpu/programs-knobs.sh
set -u
OUT=${OUT:-/tmp/knobs-out}
WORLD=${WORLD:-1}
ONLY=${ONLY:-}
MAX=${MAX:-8}
D=$OUT/knobs-w$WORLD
mkdir -p "$D"
export PATH=$PWD/.carry/bin:$PATH NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
export CUCO_CACHE_DIR=/tmp/cuco-cache LD_LIBRARY_PATH=$PWD/.carry/lib
CUCO=$PWD/.carry/cuco
nvidia-smi --query-gpu=index,name,memory.total,driver_version --format=csv,noheader >"$OUT/device.txt" 2>&1
echo "commit: ${CUCO_GIT_COMMIT:-unknown}  date: $(date -u +%Y-%m-%dT%H:%M:%SZ)  world: $WORLD  max: $MAX" >>"$OUT/device.txt"
for wl0 in "$PREMADE"/*/; do
  name=$(basename "$wl0")
  [ -n "$ONLY" ] && [[ " $ONLY " != *" $name "* ]] && continue
  [ -f "$wl0/harness/reference.cu" ] || continue
  wl=/tmp/kwl/$name
  rm -rf "$wl" && mkdir -p /tmp/kwl && cp -r "$wl0" "$wl"
  # Generation 0 is verified at the size the search runs.
  sed -i "s/^world_size = [0-9]*/world_size = $WORLD/" "$wl/harness/workload.toml"
  start=$(date +%s)
  timeout 420 "$CUCO" run "$wl/harness" --world-size "$WORLD" --max-candidates "$MAX" \
    --run-dir "/tmp/kwl-runs/$name" >"$D/$name.run.out" 2>&1
  echo "cuco run rc=$? in $(( $(date +%s) - start )) s" >>"$D/$name.run.out"
  "$CUCO" best "/tmp/kwl-runs/$name" --json >"$D/$name.best.json" 2>"$D/$name.best.err"
  "$CUCO" ls "/tmp/kwl-runs/$name" >"$D/$name.ls.txt" 2>&1
  cp "$wl/harness/workload.toml" "$D/$name.workload.toml" 2>/dev/null
  cp "$wl/harness/gen0_transformed.cu" "$D/$name.gen0.cu" 2>/dev/null
  mkdir -p "$D/$name-stores" && cp /tmp/kwl-runs/$name/cuco.db "$D/$name-stores/" 2>/dev/null
  cp -r "/tmp/kwl-runs" "$D/$name-stores/" 2>/dev/null
  cp -r "$wl/harness/cuco-runs" "$D/$name-stores/transform" 2>/dev/null
done
python3 - "$D" >"$OUT/knobs-w$WORLD.md" <<'PY'
import glob, json, os, re, sys
d = sys.argv[1]
print("| program | generation 0 | seed ms | best ms | best knobs | best / seed | cuco run rc |")
print("|---|---|---|---|---|---|---|")
for p in sorted(glob.glob(f"{d}/*.run.out")):
    name = os.path.basename(p)[:-len(".run.out")]
    out = open(p).read()
    g0 = "accepted" if "declares its knobs" in out else ("not accepted: " + (re.search(r"not accepted[^\n]*", out) or [""])[0][:100])
    seed = re.search(r"seed \(store id \d+\): ok, ([0-9.]+) ms", out)
    rc = re.search(r"cuco run rc=(\d+)", out)
    best = {}
    try:
        best = json.load(open(f"{d}/{name}.best.json"))
    except Exception:
        pass
    marks = re.findall(r'= "?([\w.]+)"?;\s*// cuco:knob (\w+)', best.get("code", ""))
    knobs = ", ".join(f"{k}={v}" for v, k in marks)
    bms = best.get("time_ms", "")
    ratio = f"{float(bms) / float(seed.group(1)):.3f}" if seed and bms else ""
    print(f"| {name} | {g0} | {seed.group(1) if seed else ''} | {bms} | {knobs} | {ratio} (search: {best.get('speedup', '')}x) | {rc.group(1) if rc else '?'} |")
PY
tar -C "$OUT" -czf "$OUT/knobs-w$WORLD.tgz" "knobs-w$WORLD" && rm -rf "$D"
cat "$OUT/knobs-w$WORLD.md"
