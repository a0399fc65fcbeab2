#!/usr/bin/env bash
# Issue 17, the keystone: every corpus program (tests/programs/) from its raw files through
# `cuco init` (with its own build line after `--`) to `cuco eval` of harness/ — the program itself
# in the harness, verified against its own code run as the reference (NCCL emulated), timed by the
# supervisor — with no edit. Next to it, the program mode of the same init (the program's own
# time). WORLD=2 on a two-GPU machine. Results under $OUT: device.txt, harness-w$WORLD.md,
# harness-w$WORLD.tgz (per program: init.txt, eval.json, eval.err, the supervisor's logs).
# PREMADE=.carry/hwl: the workloads `cuco init` wrote on a machine with libclang (the GPU machines have
# none, and init without libclang makes the skeleton only): <name>/ and <name>.init.txt per program.
# PREMADE=.carry/ext: bench/ext_programs.py's output (programs written elsewhere, init on this machine).
# DEADLINE_S: programs not started within that many seconds are skipped (listed in skipped-w$WORLD.txt).
# Usage (repo root, .carry/ as in bench/one-gpu/README.md): WORLD=1 bash bench/one-gpu/programs-harness.sh
set -u
OUT=${OUT:-/tmp/harness-out}
WORLD=${WORLD:-1}
ONLY=${ONLY:-}
D=$OUT/harness-w$WORLD
mkdir -p "$D"
export PATH=$PWD/.carry/bin:$PATH NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
export CUCO_CACHE_DIR=/tmp/cuco-cache
CUCO=$PWD/.carry/cuco
nvidia-smi --query-gpu=index,name,memory.total,driver_version --format=csv,noheader >"$OUT/device.txt" 2>&1
echo "commit: ${CUCO_GIT_COMMIT:-unknown}  date: $(date -u +%Y-%m-%dT%H:%M:%SZ)  world: $WORLD" >>"$OUT/device.txt"
start_all=$(date +%s)
# With PREMADE, every workload in it (tests/programs' or bench/ext_programs.py's); else tests/programs.
if [ -n "${PREMADE:-}" ]; then LIST=$(ls -d "$PREMADE"/*/ | xargs -n1 basename); else LIST=$(ls tests/programs/*/program.toml | xargs -n1 dirname | xargs -n1 basename); fi
for name in $LIST; do
  dir=tests/programs/$name
  [ -n "$ONLY" ] && [[ " $ONLY " != *" $name "* ]] && continue
  if [ $(( $(date +%s) - start_all )) -gt "${DEADLINE_S:-100000}" ]; then echo "$name: skipped, past DEADLINE_S" >>"$OUT/skipped-w$WORLD.txt"; continue; fi
  wl=/tmp/hwl/$name
  rm -rf "$wl"
  if [ -n "${PREMADE:-}" ]; then
    # tests/programs' premade workloads carry <name>.init.txt; bench/ext_programs.py's carry <name>.txt.
    mkdir -p /tmp/hwl && cp -r "$PREMADE/$name" "$wl" && { cp "$PREMADE/$name.init.txt" "$D/$name.init.txt" 2>/dev/null ||
      { cp "$PREMADE/$name.txt" "$D/$name.init.txt" 2>/dev/null; [ -f "$wl/harness/reference.cu" ] && echo "harness mode (trusted)" >>"$D/$name.init.txt"; }; }
  else
    IFS='|' read -r mains build < <(python3 - "$dir/program.toml" <<'PY'
import sys, tomllib
t = tomllib.load(open(sys.argv[1], "rb"))
print(" ".join(s for s in t["sources"] if s.endswith((".cu", ".cc", ".cpp"))), "|", t["build"])
PY
)
    (cd "$dir" && LD_LIBRARY_PATH=$PWD/../../../.carry/lib "$CUCO" init $mains --out "$wl" -- $build) >"$D/$name.init.txt" 2>&1
    echo "init rc=$?" >>"$D/$name.init.txt"
  fi
  [ -f "$wl/harness/reference.cu" ] || continue
  start=$(date +%s)
  LD_LIBRARY_PATH=$PWD/.carry/lib timeout "${EVAL_TIMEOUT:-400}" "$CUCO" eval "$wl/harness" --world-size "$WORLD" --json \
    --run-dir "/tmp/hwl-runs/$name" >"$D/$name.eval.json" 2>"$D/$name.eval.err"
  echo "$name harness eval rc=$? in $(( $(date +%s) - start )) s" >>"$D/$name.init.txt"
  mkdir -p "$D/$name-logs"
  find "/tmp/hwl-runs/$name" -name '*.log' -size -2M -exec cp --parents {} "$D/$name-logs/" \; 2>/dev/null
  # The program as it is, in program mode: its own time for the same iteration (SKIP_PROGRAM=1: not run).
  [ -n "${SKIP_PROGRAM:-}" ] && continue
  grep -q '^world_sizes = \[1[],]' "$wl/workload.toml" || sed -i 's/^world_sizes = \[/world_sizes = [1, /' "$wl/workload.toml"
  grep -q "no pass line found" "$D/$name.init.txt" && sed -i "s/^pass_regex = .*/pass_regex = 'checksum'/" "$wl/workload.toml"
  LD_LIBRARY_PATH=$PWD/.carry/lib timeout 200 "$CUCO" eval "$wl" --world-size "$WORLD" --json \
    --run-dir "/tmp/hwl-prog-runs/$name" >"$D/$name.program.json" 2>"$D/$name.program.err"
done
# Planted wrong candidates (PLANTED=.carry/planted: <program>-<what>.cu, the seed with one thing
# broken inside its EVOLVE block): each must end not ok.
for p in ${PLANTED:+$PLANTED/*.cu}; do
  b=$(basename "$p" .cu); name=${b%%-*}
  [ -d "/tmp/hwl/$name/harness" ] || continue
  LD_LIBRARY_PATH=$PWD/.carry/lib timeout 200 "$CUCO" eval "/tmp/hwl/$name/harness" "$p" --world-size "$WORLD" --json \
    --run-dir "/tmp/hwl-planted/$b" >"$D/planted-$b.json" 2>"$D/planted-$b.err"
  python3 -c "import json,sys; r=json.load(open(sys.argv[1])); r=r[0] if isinstance(r,list) else r; print('planted', sys.argv[2], r.get('status'), (r.get('reason') or '')[:150])" \
    "$D/planted-$b.json" "$b" >>"$OUT/planted-w$WORLD.txt" 2>&1 || echo "planted $b: no record" >>"$OUT/planted-w$WORLD.txt"
done
python3 bench/one-gpu/harness_table.py "$D" >"$OUT/harness-w$WORLD.md"
tar -C "$OUT" -czf "$OUT/harness-w$WORLD.tgz" "harness-w$WORLD" && rm -rf "$D"
cat "$OUT/harness-w$WORLD.md"
