#!/usr/bin/env bash
# The probes (tests/probes/: programs written elsewhere) on GPUs: for each workload premade where
# libclang is (`python3 tests/probes/probe_check.py --keep .carry/probes build/src/cli/cuco`), the
# harness (the program itself, against its own code as the reference) and its generation 0 (cuco
# transform's, at its knobs' defaults) verified and timed by `cuco eval` at WORLD ranks. Results:
# $OUT/probes-w$WORLD.md (a row per eval) and $OUT/probes-w$WORLD/<name>.{seed,gen0}.json.
# EVAL_LIMIT (default 300): seconds per `cuco eval` (a hung program's verify waits that long).
# Usage (repo root, .carry/ as in bench/one-gpu/README.md): WORLD=2 bash bench/one-gpu/probes-verify.sh
set -u
OUT=${OUT:-/tmp/probes-out}
WORLD=${WORLD:-1}
ONLY=${ONLY:-}
EVAL_LIMIT=${EVAL_LIMIT:-300}
PREMADE=${PREMADE:-$PWD/.carry/probes}
D=$OUT/probes-w$WORLD
mkdir -p "$D"
export PATH=$PWD/.carry/bin:$PATH NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 CUCO_CACHE_DIR=/tmp/cuco-cache
CUCO=$PWD/.carry/cuco
for wl in "$PREMADE"/*/; do
  name=$(basename "$wl")
  [ -n "$ONLY" ] && [[ " $ONLY " != *" $name "* ]] && continue
  [ -f "$wl/harness/reference.cu" ] || { echo "$name: no harness (skeleton)" >>"$D/skipped.txt"; continue; }
  LD_LIBRARY_PATH=$PWD/.carry/lib timeout "$EVAL_LIMIT" "$CUCO" eval "$wl/harness" --world-size "$WORLD" --json \
    --run-dir "/tmp/probe-runs/$name" >"$D/$name.seed.json" 2>"$D/$name.seed.err"
  [ -f "$wl/harness/gen0_transformed.cu" ] &&
    LD_LIBRARY_PATH=$PWD/.carry/lib timeout "$EVAL_LIMIT" "$CUCO" eval "$wl/harness" "$wl/harness/gen0_transformed.cu" \
      --world-size "$WORLD" --json --run-dir "/tmp/probe-runs/$name-gen0" >"$D/$name.gen0.json" 2>"$D/$name.gen0.err"
done
# One row per record: each probe's seed, then its generation 0 (bench/summarize_eval.py).
python3 bench/summarize_eval.py "$D"/*.seed.json "$D"/*.gen0.json >"$OUT/probes-w$WORLD.md"
cat "$OUT/probes-w$WORLD.md"
