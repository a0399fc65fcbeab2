#!/usr/bin/env bash
# The adversarial suite: every candidate in expectations.tsv must end with one of its expected
# verdicts (never ok) and a reason matching its regex. Fault tests (class "fault") must also leave
# nothing changed outside their scratch directory: the fake $HOME and its canaries, the run
# directory's canary, no file next to the run directory, nothing received on the suite's TCP
# listener, the planted API key nowhere in the run directory or cuco's output, and no process left
# running in the suite's directories. After the fault tests the workload's seed must still be ok.
# The GPU candidates (gemm_reducescatter/, moe_dispatch_combine/ rows) are written into the temporary
# directory from the seeds and gpu/<name>.cu.in by tests/gpu/make_candidates.py.
#
# Usage: tests/adversarial/run.sh <cuco> [workload-filter] [--stage compile] [--wall]
#   workload-filter: an extended regex on the candidate paths (e.g. cpu_matmul, 'gemm_|moe_').
#   --stage compile: compile only (GPU candidates on a machine without a GPU). Then any verdict but a
#     compile error is accepted (ok, skipped, or rejected at scan); only a crash of cuco, a missing
#     record or a candidate that does not compile fails.
#   --wall: the wall alone. Every candidate runs with --unsafe-skip-deny-scan (no deny-list, no object
#     check: what the supervisor and the sandbox catch by themselves) and must end with any verdict
#     but ok (and fault tests must stay contained). The destructive fault tests run too: they are
#     inside the sandbox (cuco refuses to run a candidate without one).
# Environment: CUCO_ADVERSARIAL_DESTRUCTIVE=1 also runs the fault tests that signal pid 1 and every
#   process (kill(-1)); never set it outside a sandbox that works. CUCO_ADVERSARIAL_KEEP=1 keeps
#   the temporary directory. CUCO_ADVERSARIAL_EVAL_ARGS: more `cuco eval` flags (e.g. --world-size 1).
set -u
if [ $# -lt 1 ]; then echo "usage: $0 <cuco> [workload-filter] [--stage compile]" >&2; exit 2; fi
CUCO=$(realpath "$1"); shift
FILTER=""; STAGE=all; WALL=0
while [ $# -gt 0 ]; do
  case $1 in
    --stage) STAGE=$2; shift 2 ;;
    --wall) WALL=1; shift ;;
    *) FILTER=$1; shift ;;
  esac
done
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
T=$(mktemp -d /tmp/cuco-adversarial.XXXXXX)
LISTENER=""
cleanup() {
  [ -n "$LISTENER" ] && kill "$LISTENER" 2>/dev/null
  if [ "${CUCO_ADVERSARIAL_KEEP:-0}" = 1 ]; then echo "kept $T"; else rm -rf "$T"; fi
}
trap cleanup EXIT

# A fake home with canaries, a planted API key, and a listener a candidate may try to reach.
export HOME=$T/home
SSH_SECRET="cuco-adversarial fake ssh key $RANDOM$RANDOM$RANDOM"
make_home() {
  rm -rf "$HOME"; mkdir -p "$HOME/.ssh"
  echo "$SSH_SECRET" >"$HOME/.ssh/id_ed25519"
  echo "cuco-adversarial canary" >"$HOME/cuco-adversarial-canary"
  head -c 65536 /dev/zero >"$HOME/cuco-adversarial-fixed-size"
}
make_home
mkdir -p "$T/runs"
export ANTHROPIC_API_KEY="sk-ant-cuco-adversarial-canary-$RANDOM$RANDOM$RANDOM"
export CUCO_CACHE_DIR=${CUCO_CACHE_DIR:-$T/cache}  # ctest: the build folder's test-cache, shared by every test
: >"$T/net.log"
python3 - "$T/net.log" <<'PY' &
import socket, sys
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
try:
    s.bind(("127.0.0.1", 47123))
except OSError:
    sys.exit(0)
s.listen(8)
while True:
    c, _ = s.accept()
    with open(sys.argv[1], "ab") as f:
        f.write(b"connection\n" + c.recv(4096))
    c.close()
PY
LISTENER=$!

home_state() { (cd "$HOME" && find . -printf '%p %s %m\n' | sort && find . -type f -exec sha256sum {} + | sort); }
HOME_BEFORE=$(home_state)

# Processes (other than this shell's) whose working directory lies under $T: survivors.
survivors() {
  local p cwd
  for p in /proc/[0-9]*; do
    cwd=$(readlink "$p/cwd" 2>/dev/null) || continue
    case $cwd in "$T"/*) [ "${p#/proc/}" != $$ ] && echo "${p#/proc/}" ;; esac
  done
}

# The GPU candidates are not committed: tests/gpu/make_candidates.py writes them from the seeds and
# the attacks in gpu/ (once, when a selected row needs one).
GENERATED=$T/candidates
candidate_file() {  # candidate path (relative to tests/adversarial) -> its file
  if [ -f "$HERE/$1" ]; then echo "$HERE/$1"; return; fi
  if [ ! -d "$GENERATED" ] && ! python3 "$ROOT/tests/gpu/make_candidates.py" adversarial "$GENERATED" >/dev/null; then
    echo "tests/gpu/make_candidates.py adversarial failed: the seeds no longer take the attacks" >&2
    exit 1
  fi
  echo "$GENERATED/$1"
}

workload_dir() {  # candidate path (relative to tests/adversarial) -> workload folder
  case $1 in
    cpu_matmul/*) echo "$ROOT/tests/workloads/cpu_matmul" ;;
    *) echo "$ROOT/workloads/${1%%/*}" ;;
  esac
}

passed=0; failed=0; skipped=0; ran_fault=0
ROWS=()
row() { ROWS+=("$(printf '%-44s %-11s %-14s %-5s %s' "$1" "$2" "$3" "$4" "$5")"); printf '%-44s %-11s %-14s %-5s %s\n' "$1" "$2" "$3" "$4" "$5"; }
printf '%-44s %-11s %-14s %-5s %s\n' candidate class verdict pass reason

# run_one NAME WORKLOAD CANDIDATE -> sets VERDICT, REASON (empty verdict: no record)
run_one() {
  local name=$1 wl=$2 cand=$3 rd=$T/runs/$1
  mkdir -p "$rd"
  echo "run canary" >"$rd/cuco-adversarial-run-canary"
  local stage_args=()
  [ "$STAGE" = compile ] && stage_args=(--stage compile-check)  # builds (unoptimised); nothing runs
  [ "$WALL" = 1 ] && stage_args+=(--unsafe-skip-deny-scan)
  # fault_spin spins until the verify stage's time limit ends it: 5 s is as much a limit as the
  # workload's 20 (15 s of each run of the suite spent waiting).
  [ "$name" = fault_spin ] && stage_args+=(--verify-limit 5)
  CUCO_ADVERSARIAL_RUN_CANARY=$rd/cuco-adversarial-run-canary \
    timeout 900 "$CUCO" eval "$wl" ${cand:+"$cand"} "${stage_args[@]}" ${CUCO_ADVERSARIAL_EVAL_ARGS:-} --json --run-dir "$rd" >"$T/$name.json" 2>"$T/$name.err"
  RC=$?
  read -r VERDICT REASON < <(python3 - "$T/$name.json" <<'PY'
import json, sys
try:
    r = json.load(open(sys.argv[1]))
    r = r[0] if isinstance(r, list) else r
    reason = " ".join(str(r.get("reason", "")).split())
    if not reason and r.get("status") == "ok":
        reason = "median %s ms" % (r.get("timing") or {}).get("median_ms")
    print(r.get("status", ""), reason or "-")
except Exception:
    print("none", "no JSON record from cuco")
PY
)
}

while IFS=$'\t' read -r path class expected regex what; do
  case $path in ''|'#'*|path) continue ;; esac
  [ -z "$FILTER" ] || echo "$path" | grep -Eq -- "$FILTER" || continue
  name=$(basename "$path"); name=${name%.*}
  cand=$(candidate_file "$path") || exit 1
  if [ "$class" = fault ] && [ "$STAGE" != compile ] && grep -q "DESTRUCTIVE" "$cand" && [ "$WALL" != 1 ] &&
     [ "${CUCO_ADVERSARIAL_DESTRUCTIVE:-0}" != 1 ]; then
    row "$path" "$class" skipped - "destructive without a sandbox; set CUCO_ADVERSARIAL_DESTRUCTIVE=1"
    skipped=$((skipped + 1)); continue
  fi
  run_one "$name" "$(workload_dir "$path")" "$cand"
  why=""
  if [ "$STAGE" = compile ]; then
    case $VERDICT in ok|skipped|rejected|timed) ;; *) why="compile stage gave '$VERDICT' (rc $RC)" ;; esac
  elif [ "$WALL" = 1 ]; then
    # An interposed symbol or a rewrite of memory reaches only the candidate's own process: it can
    # fool nothing the supervisor measures, so such a candidate may pass with the supervisor's time.
    if [ "$VERDICT" = ok ] && { [ "$class" = interposition ] || [ "$class" = memory ]; }; then
      REASON="$REASON (honest: an in-process attack reaches only the candidate's own process)"
    elif [ "$VERDICT" = ok ] && [ "$class" = sabotage ] && case ",$expected," in *",ok,"*) true ;; *) false ;; esac; then
      # Sabotage aims at whoever comes next (bench/device-timing.sh times the honest seed after it);
      # its own record may pass when nothing outlived it.
      REASON="$REASON (nothing it left behind: its own slower time is the verdict)"
    else
      case $VERDICT in ok|skipped|none|pending) why="the wall alone let it through: '$VERDICT'" ;; esac
    fi
  else
    case ",$expected," in *",$VERDICT,"*) ;; *) why="verdict '$VERDICT' not in {$expected}" ;; esac
    if [ -z "$why" ] && ! python3 -c 'import re,sys; sys.exit(0 if re.search(sys.argv[1], sys.argv[2]) else 1)' "$regex" "$REASON"; then
      why="reason does not match /$regex/"
    fi
  fi
  if [ "$class" = fault ] && [ "$STAGE" != compile ]; then
    left=$(survivors)
    if [ -n "$left" ]; then
      why="${why:+$why; }processes left running: $(echo $left)"
      for p in $left; do kill -9 "$p" 2>/dev/null; done
    fi
    [ "$(home_state)" = "$HOME_BEFORE" ] || why="${why:+$why; }\$HOME changed"
    [ -f "$T/runs/$name/cuco-adversarial-run-canary" ] || why="${why:+$why; }run-directory canary deleted"
    [ -e "$T/runs/cuco-adversarial-escape" ] && why="${why:+$why; }file written next to the run directory" && rm -f "$T/runs/cuco-adversarial-escape"
    [ -s "$T/net.log" ] && why="${why:+$why; }the suite's listener was reached" && : >"$T/net.log"
    if grep -rqsF -e "$ANTHROPIC_API_KEY" -e "$SSH_SECRET" "$T/runs/$name" "$T/$name.json" "$T/$name.err"; then
      why="${why:+$why; }a planted secret reached the run directory or cuco's output"
    fi
    make_home  # fresh canaries: one escape is not counted again by the next fault test
    ran_fault=1
  fi
  if [ -z "$why" ]; then
    row "$path" "$class" "$VERDICT" yes "$REASON"; passed=$((passed + 1))
  else
    row "$path" "$class" "$VERDICT" NO "$REASON  <-- $why"; failed=$((failed + 1))
  fi
done <"$HERE/expectations.tsv"

# The run goes on: after the fault tests the workload's own seed must still be recorded ok.
if [ "$ran_fault" = 1 ]; then
  for wl in $(sed -n 's#^\([a-z_]*\)/.*\tfault\t.*#\1#p' "$HERE/expectations.tsv" | sort -u); do
    [ -z "$FILTER" ] || echo "$wl/" | grep -Eq -- "$FILTER" || continue
    run_one "control_$wl" "$(workload_dir "$wl/")" ""
    if [ "$VERDICT" = ok ] && [ -z "$(survivors)" ]; then
      row "control: $wl seed" control ok yes "the run goes on after the fault tests"; passed=$((passed + 1))
    else
      row "control: $wl seed" control "$VERDICT" NO "$REASON  <-- the seed must stay ok after the fault tests"; failed=$((failed + 1))
    fi
  done
fi
echo
echo "$passed passed, $failed failed${skipped:+, $skipped skipped}"
[ "$failed" -eq 0 ]
