#!/usr/bin/env bash
# Issue 17, item 4 on GPUs: every corpus program started once per rank, from the harness `cuco init`
# made of it, through `cuco run` of that harness: `cuco transform` makes generation 0 with the knobs
# backend (nccl | lsa | ce where it reduces), graph (off | on) and chunks where it applies (cuco/program/codesign.h), verifies it against the
# program's own code and accepts it, then the builtin proposer searches the knobs. Results under
# $OUT: device.txt, knobs-$TAG.md (bench/one-gpu/knobs_table.py: program, generation 0, the seed's
# time in the search, every knob setting's time or verdict, the best and its speed-up),
# knobs-$TAG.tgz (per program: run.out, the search's and the transform's stores).
# PREMADE=.carry/hwl-knobs: the workloads `cuco init` wrote on a machine with libclang (the GPU
# machines have none): <name>/ per program, made by bench/one-gpu/make-premade.sh. WORLD=2 on a
# two-GPU machine; ONLY="a b" for some programs; MAX candidates per search (default 8); GPUS (e.g. 2,3)
# and TAG (default w$WORLD, names the results and the run dirs) let several copies share a larger
# machine at once, each on its own GPUs; T seconds per program's `cuco run` (default 420); BUDGET
# (e.g. 370s) its --time-budget, so that the search stops itself and re-times its best within T.
# Usage (repo root, .carry/ as in bench/one-gpu/README.md):
#   PREMADE=.carry/hwl-knobs WORLD=1 bash bench/one-gpu/programs-knobs.sh
set -u
OUT=${OUT:-/tmp/knobs-out}
WORLD=${WORLD:-1}
ONLY=${ONLY:-}
MAX=${MAX:-8}
TAG=${TAG:-w$WORLD}
T=${T:-420}
D=$OUT/knobs-$TAG
R=/tmp/kwl-runs-$TAG
mkdir -p "$D"
export PATH=$PWD/.carry/bin:$PATH NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
export CUCO_CACHE_DIR=/tmp/cuco-cache-$TAG LD_LIBRARY_PATH=$PWD/.carry/lib
CUCO=$PWD/.carry/cuco
nvidia-smi --query-gpu=index,name,memory.total,driver_version --format=csv,noheader >"$OUT/device.txt" 2>&1
echo "commit: ${CUCO_GIT_COMMIT:-unknown}  date: $(date -u +%Y-%m-%dT%H:%M:%SZ)  world: $WORLD  max: $MAX  gpus: ${GPUS:-all}  tag: $TAG" >>"$OUT/device.txt"
for wl0 in "$PREMADE"/*/; do
  name=$(basename "$wl0")
  [ -n "$ONLY" ] && [[ " $ONLY " != *" $name "* ]] && continue
  [ -f "$wl0/harness/reference.cu" ] || continue
  wl=/tmp/kwl-$TAG/$name
  rm -rf "$wl" && mkdir -p /tmp/kwl-$TAG && cp -r "$wl0" "$wl"
  # Generation 0 is verified at the size the search runs.
  sed -i "s/^world_size = [0-9]*/world_size = $WORLD/" "$wl/harness/workload.toml"
  start=$(date +%s)
  timeout "$T" "$CUCO" run "$wl/harness" --world-size "$WORLD" --max-candidates "$MAX" ${GPUS:+--gpus "$GPUS"} \
    ${BUDGET:+--time-budget "$BUDGET"} \
    --run-dir "$R/$name" >"$OUT/$name.run.out" 2>&1
  echo "cuco run rc=$? in $(( $(date +%s) - start )) s" >>"$OUT/$name.run.out"
  # Written at $OUT's top while it runs: a call cut before the table still brings it back (the
  # device returns files at most two folders deep).
  cp "$OUT/$name.run.out" "$D/$name.run.out"
  "$CUCO" best "$R/$name" --json >"$D/$name.best.json" 2>"$D/$name.best.err"
  "$CUCO" ls "$R/$name" >"$D/$name.ls.txt" 2>&1
  cp "$wl/harness/workload.toml" "$D/$name.workload.toml" 2>/dev/null
  cp "$wl/harness/gen0_transformed.cu" "$D/$name.gen0.cu" 2>/dev/null
  mkdir -p "$D/$name-stores" && cp -r "$R/$name" "$D/$name-stores/run" 2>/dev/null
  cp -r "cuco-runs/transform-${name}_harness" "$D/$name-stores/transform" 2>/dev/null  # cuco run keeps it under its cwd
done
python3 bench/one-gpu/knobs_table.py "$CUCO" "$D" >"$OUT/knobs-$TAG.md"
find "$D" -type f -size +4M -delete  # binaries; the stores, logs and sources stay
tar -C "$OUT" -czf "$OUT/knobs-$TAG.tgz" "knobs-$TAG" && rm -rf "$D"
cat "$OUT/knobs-$TAG.md"
