#!/usr/bin/env bash
# Issue 28, items 0 and 1, on 2 or 4 GPUs: is cuco's default timing right, and can a candidate slow
# the ones after it? Phase by phase, each cut at the call's deadline. Results under $RES (default
# /tmp/cuco-timing-w$WORLD: the machine keeps it, and the compile cache, while it stays warm), packed
# into $OUT/timing-w$WORLD.tgz after every phase, with $OUT/summary.md (every phase's table, what to
# commit under bench/results/) and $OUT/phases.txt.
#   doctor     `cuco doctor` (text and --json): the timing method this machine gets, and why
#   sabotage   tests/adversarial's sabotage candidates (MPS active threads capped at 5% plus a file
#              left in the pipe folder; MPS pinned memory limited to 64 MiB; spinning kernels never
#              stopped), each evaluated with --unsafe-skip-deny-scan (the wall alone) between two
#              evaluations of gemm_reducescatter's honest seed: its verdict and reason, the seed's
#              median before and after (must agree within 5%), and what is left on the machine after
#              each evaluation (cuco-mps-* folders, MPS processes, the candidate's file, GPU processes)
#   overhead   the seed evaluated 3 times: cuco's MPS daemon start and stop per evaluation (each
#              record's gpu_session) beside the stages' seconds
#   timing:WL  `cuco bench workloads/WL` of the seed, two variants and the bound parts (ALL=1: every
#              variant; PEERS=1, the default: the PyTorch peers too, under a daemon of cuco's), then
#              bench/timing_compare.py: seed, fastest variant and parts timed again by the legacy
#              in-process harness (one process per rank, no MPS); the ratio's goal: within 3%
#              CANDIDATES="file...": candidate files benched too; SIZES="S=49152 ...": --size overrides;
#              SMI=1: nvidia-smi's clocks, power, temperature and throttle reasons every 100 ms (smi.csv)
#   timing     every timing:WL of the harness-mode workloads (kv_transfer only at WORLD=2)
# Needs .carry/ as in bench/one-gpu/README.md: .carry/cuco and .carry/cuco-sandbox-exec built here,
# .carry/lib (libcurl's dependencies), .carry/bin/bwrap (Debian 12's bubblewrap), optionally
# .carry/cudnn-fe/include (attention_cp's cuDNN variants). No MPS daemon needs to run: cuco starts
# its own per evaluation (nvidia-cuda-mps-control from PATH, /usr/local/nvidia/bin or /usr/bin); one
# at /tmp/nvidia-mps is reported, never touched.
# Usage (repo root on the GPU machine; WORLD = 2 or 4; one call is under 10 minutes, and a phase that
# would not fit in what is left is skipped, saying so: run it in the next call, the machine still warm):
#   WORLD=4 PHASES="doctor sabotage" CUCO_GIT_COMMIT=<hash> bash bench/device-timing.sh        (about 5 min)
#   WORLD=4 PHASES="timing:gemm_reducescatter overhead" bash bench/device-timing.sh            (about 6 min)
#   WORLD=4 PHASES="timing:gemm_allgather timing:moe_dispatch_combine" bash bench/device-timing.sh
#   WORLD=4 PHASES="timing:attention_cp" bash bench/device-timing.sh
#   WORLD=2: the same, and timing:kv_transfer (world size 2 only)
set -u
OUT=${OUT:-/tmp/cuco-timing-out}
WORLD=${WORLD:-2}
RES=${RES:-/tmp/cuco-timing-w$WORLD}
DEADLINE_S=${DEADLINE_S:-560}
PHASES=${PHASES:-"doctor sabotage"}
start=$(date +%s)
export PATH=$PWD/.carry/bin:$PATH NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 TORCH_SYMM_MEM_DISABLE_MULTICAST=1
export CUCO_CACHE_DIR=${CUCO_CACHE_DIR:-/tmp/cuco-cache}
CUCO=${CUCO:-$PWD/.carry/cuco}
[ -d .carry/lib ] && export LD_LIBRARY_PATH=$PWD/.carry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
[ -z "${CUCO_CUDNN_FRONTEND_INCLUDE:-}" ] && [ -d .carry/cudnn-fe/include ] && export CUCO_CUDNN_FRONTEND_INCLUDE=$PWD/.carry/cudnn-fe/include
mkdir -p "$OUT" "$RES"
{
  nvidia-smi --query-gpu=index,name,memory.total,driver_version,compute_mode --format=csv,noheader
  echo "commit: ${CUCO_GIT_COMMIT:-unknown}  date: $(date -u +%Y-%m-%dT%H:%M:%SZ)  world: $WORLD  phases: $PHASES"
  echo "nvidia-cuda-mps-control: $(command -v nvidia-cuda-mps-control || ls /usr/local/nvidia/bin/nvidia-cuda-mps-control /usr/bin/nvidia-cuda-mps-control 2>/dev/null | head -1)"
  [ -e /tmp/nvidia-mps/control ] && echo "a host-wide MPS daemon runs at /tmp/nvidia-mps (cuco leaves it alone; its own may then fail to start)"
} >>"$RES/device.txt" 2>&1
LD_LIBRARY_PATH=$PWD/.carry/lib ldd "$CUCO" | grep "not found" && { echo "cuco cannot start here: a library is missing from .carry/lib"; exit 1; }
pack() {
  tar czf "$OUT/timing-w$WORLD.tgz" -C "$(dirname "$RES")" --exclude='*.o' --exclude='legacy_harness' --exclude='cuco.db' \
    "$(basename "$RES")" 2>/dev/null
  cp "$RES/phases.txt" "$RES/summary.md" "$OUT/" 2>/dev/null
}
left() { echo $((DEADLINE_S - ($(date +%s) - start))); }
say() { echo "$*" | tee -a "$RES/summary.md"; }

# run_phase NAME MIN_S COMMAND...: runs COMMAND with PH=$RES/NAME, cut (SIGINT, then KILL) at the deadline.
run_phase() {
  local name=$1 min=$2; shift 2
  local t; t=$(left)
  if [ "$t" -lt "$min" ]; then echo "=== $name skipped: ${t}s left, needs ${min}s" | tee -a "$RES/phases.txt"; return; fi
  echo "=== $name ($(date -u +%H:%M:%S), ${t}s left)" | tee -a "$RES/phases.txt"
  mkdir -p "$RES/$name"
  local p0 smi=""; p0=$(date +%s)
  # SMI=1: every GPU's clocks, power and temperature every 100 ms through the phase ($RES/<phase>/smi.csv),
  # to tell a clock or power step inside a timed run from the candidate's own behaviour.
  if [ "${SMI:-0}" = 1 ]; then
    nvidia-smi --query-gpu=timestamp,index,clocks.sm,clocks.mem,power.draw,temperature.gpu,clocks_throttle_reasons.active \
      --format=csv -lms 100 >"$RES/$name/smi.csv" 2>&1 &
    smi=$!
  fi
  PH="$RES/$name" timeout -s INT -k 15 "$t" bash -c "$*" >"$RES/$name/stdout.txt" 2>&1
  echo "    exit $? after $(( $(date +%s) - p0 ))s" | tee -a "$RES/phases.txt"
  [ -n "$smi" ] && kill "$smi" 2>/dev/null
  tail -40 "$RES/$name/stdout.txt"
  pack
}

# What an evaluation left on the machine: cuco's MPS folders, MPS processes, a candidate's file in a
# pipe folder, compute processes on the GPUs. "nothing" when clean.
leftovers() {
  local l=""
  for d in /tmp/cuco-mps-*; do [ -e "$d" ] && l="$l folder:$d"; done
  for p in $(pgrep -f 'nvidia-cuda-mps' 2>/dev/null); do l="$l mps-process:$p($(tr '\0' ' ' </proc/$p/cmdline 2>/dev/null | cut -c1-60))"; done
  [ -n "$(find /tmp -maxdepth 3 -name left-by-candidate 2>/dev/null)" ] && l="$l candidate-file"
  local apps; apps=$(nvidia-smi --query-compute-apps=pid,process_name --format=csv,noheader 2>/dev/null | tr '\n' ';')
  [ -n "$apps" ] && l="$l gpu-apps:$apps"
  echo "${l:- nothing}"
}

# record FILE: "status | median | method | daemon start/stop | reason" of a `cuco eval --json` record.
record() {
  python3 - "$1" <<'PY'
import json, sys
try:
    r = json.load(open(sys.argv[1]))
    r = r[0] if isinstance(r, list) else r
except Exception as e:  # noqa: BLE001
    print("none | - | - | - | no record (%s)" % e); sys.exit()
t = r.get("timing") or {}
g = r.get("gpu_session") or {}
m = g.get("mps") or {}
d = "start %.2f s, stop %s" % (m["start_s"], m.get("stop")) if m else (g.get("why") or "-")
print("%s | %s | %s | %s | %s" % (r.get("status"), "%.4f ms" % t["median_ms"] if t.get("median_ms") else "-",
      r.get("timing_method") or "-", d, " ".join(str(r.get("reason") or "").split())[:400]))
PY
}
median_of() { python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); r=r[0] if isinstance(r,list) else r; print((r.get("timing") or {}).get("median_ms") or 0)' "$1" 2>/dev/null || echo 0; }

doctor() {
  "$CUCO" doctor >"$PH/doctor.txt" 2>&1
  "$CUCO" doctor --json >"$PH/doctor.json" 2>"$PH/doctor.err"
  sed -n '/^timing/,/^libclang/p' "$PH/doctor.txt" | sed '$d'
  say "## doctor (W=$WORLD)"; say '```'; sed -n '/^timing/,/^libclang/p' "$PH/doctor.txt" | sed '$d' >>"$RES/summary.md"; say '```'
  echo "leftovers after doctor: $(leftovers)"
}

sabotage() {
  local wl=workloads/gemm_reducescatter
  python3 tests/gpu/make_candidates.py adversarial "$PH/adv" --workload gemm_reducescatter >/dev/null || return 1
  local cands=(sabotage_mps_cap sabotage_mps_memory sabotage_leftover_kernel)
  local files=() c
  for c in "${cands[@]}"; do files+=("$PH/adv/gemm_reducescatter/$c.cu"); done
  # Compile them all first, side by side (the evaluations below then only run).
  "$CUCO" eval "$wl" "${files[@]}" --stage compile --unsafe-skip-deny-scan --jobs 3 \
    --parallel-compiles 3 --world-size "$WORLD" --run-dir "$PH/compile" --json >"$PH/compile.json" 2>"$PH/compile.err"
  say "## sabotage (W=$WORLD): each between two evaluations of the honest seed"
  say "| evaluation | verdict | median | timing method | cuco's MPS daemon | reason | left on the machine after |"
  say "|---|---|---|---|---|---|---|"
  local prev="" i=0 n
  eval_one() {  # eval_one NAME [CANDIDATE]
    local name=$1; shift
    "$CUCO" eval "$wl" "$@" --world-size "$WORLD" --unsafe-skip-deny-scan --run-dir "$PH/runs/$name" --json \
      >"$PH/$name.json" 2>"$PH/$name.err"
    say "| $name | $(record "$PH/$name.json") | $(leftovers) |"
  }
  eval_one seed0
  prev=$(median_of "$PH/seed0.json")
  for c in "${cands[@]}"; do
    i=$((i + 1))
    eval_one "$c" "$PH/adv/gemm_reducescatter/$c.cu"
    eval_one "seed$i"
    n=$(median_of "$PH/seed$i.json")
    python3 -c 'import sys; a,b=float(sys.argv[1]),float(sys.argv[2]); r=b/a if a>0 else 0
print("SABOTAGE %s: honest seed %.4f ms before, %.4f ms after: ratio %.3f %s" % (sys.argv[3], a, b, r, "ok (within 5%)" if abs(r-1) <= 0.05 else "<-- SLOWED (or noise): look at the record"))' \
      "$prev" "$n" "$c" | tee -a "$RES/summary.md"
    prev=$n
  done
}

overhead() {
  say "## overhead of cuco's MPS daemon per evaluation (W=$WORLD, gemm_reducescatter seed)"
  say "| run | daemon start s | daemon stop | verify s | bench s | median |"
  say "|---|---|---|---|---|---|"
  for k in 1 2 3; do
    "$CUCO" eval workloads/gemm_reducescatter --world-size "$WORLD" --run-dir "$PH/runs/$k" --json >"$PH/$k.json" 2>"$PH/$k.err"
    python3 - "$PH/$k.json" "$k" <<'PY' | tee -a "$RES/summary.md"
import json, sys
r = json.load(open(sys.argv[1])); r = r[0] if isinstance(r, list) else r
m = (r.get("gpu_session") or {}).get("mps") or {}
st = {s["stage"]: s["seconds"] for s in r.get("stages", [])}
print("| %s | %s | %s | %.2f | %.2f | %s |" % (sys.argv[2], m.get("start_s", "no daemon"), m.get("stop", "-"),
      st.get("verify", 0), st.get("bench", 0), (r.get("timing") or {}).get("median_ms")))
PY
  done
}

only_for() {
  case $1 in
    gemm_reducescatter) echo seed,ring_ce,ring_lsa_epilogue,compute_alone,comm_alone ;;
    gemm_allgather) echo seed,push_ce_whole_shards,push_ce,compute_alone,comm_alone ;;
    moe_dispatch_combine) echo seed,interleaved_ce,chunked_ce,compute_alone,comm_alone ;;
    attention_cp) echo seed,zigzag_ce,ring_ce,compute_alone,comm_alone ;;
    kv_transfer) echo seed,per_layer_ce,chunk4_lsa_fused,compute_alone,comm_alone ;;
  esac
}

timing_wl() {
  local wl=$1
  if [ "$wl" = kv_transfer ] && [ "$WORLD" != 2 ]; then echo "kv_transfer runs at world size 2 only"; return; fi
  local only; only=$(only_for "$wl")
  [ "${ALL:-0}" = 1 ] && only=""
  [ -n "$only" ] && [ "${PEERS:-1}" = 1 ] && only="$only,peers"
  local args=(--world-size "$WORLD" --parallel-compiles 8 --run-dir "$RES/bench-$wl" --json "$PH/bench.json")
  # CANDIDATES="file...": candidate files benched beside the entries (a search's best, from its store);
  # SIZES="NAME=VALUE...": bench sizes nobody tuned for (the verify sizes stay).
  local c s
  for c in ${CANDIDATES:-}; do args+=("$c"); [ -n "$only" ] && only="$only,$(basename "$c")"; done
  for s in ${SIZES:-}; do args+=(--size "$s"); done
  [ -n "$only" ] && args+=(--only "$only")
  [ "${PEERS:-1}" = 1 ] || args+=(--no-peers)
  "$CUCO" bench "workloads/$wl" "${args[@]}" >"$PH/bench.txt" 2>"$PH/bench.err"
  echo "cuco bench: exit $?"
  cat "$PH/bench.txt"
  say "## $wl at W=$WORLD: cuco bench (every row's timing column; peers under cuco's daemon when PEERS=1)"
  say '```'; sed -n '/^entry/,$p' "$PH/bench.txt" >>"$RES/summary.md"; say '```'
  say "| W | workload | entry | kind | cuco ms | in-process ms | ratio | cuco's timing method |"
  say "|---|---|---|---|---|---|---|---|"
  python3 bench/timing_compare.py --bench-json "$PH/bench.json" --world "$WORLD" --out "$RES/compare" --rounds 2 \
    | tee -a "$RES/summary.md"
  echo "leftovers after $wl: $(leftovers)"
}

# The phases run in `bash -c` under timeout: they see these.
export CUCO WORLD RES CANDIDATES SIZES
export -f say leftovers record median_of doctor sabotage overhead only_for timing_wl

for ph in $PHASES; do
  case $ph in
    doctor) run_phase doctor 30 doctor ;;
    sabotage) run_phase sabotage 200 sabotage ;;
    overhead) run_phase overhead 90 overhead ;;
    timing) for wl in gemm_reducescatter gemm_allgather moe_dispatch_combine attention_cp kv_transfer; do
              run_phase "timing-$wl" 150 timing_wl "$wl"; done ;;
    timing:*) run_phase "timing-${ph#timing:}" 150 timing_wl "${ph#timing:}" ;;
    *) echo "unknown phase $ph" | tee -a "$RES/phases.txt" ;;
  esac
done
echo; echo "=== summary ($RES/summary.md)"; cat "$RES/summary.md"
pack
