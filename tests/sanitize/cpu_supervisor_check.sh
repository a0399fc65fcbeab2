#!/usr/bin/env bash
# The CPU supervisor built with AddressSanitizer and UBSan (runtime/CMakeLists.txt) through verify
# and bench with the seed of tests/workloads/cpu_matmul, and through verify with candidates that
# are wrong, crash, exit early or write NaN. Fails on any sanitizer report, on a supervisor killed
# by a signal, or when the seed does not verify (its rank files say ok).
#   cpu_supervisor_check.sh SUPERVISOR OUTDIR SEED [CANDIDATE...]
set -uo pipefail
sup=$1 out=$2 seed=$3
shift 3
rm -rf "$out" && mkdir -p "$out"
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=0:exitcode=86
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:exitcode=87
sizes=(--size M=48 --size N=40 --size K=56)
failed=0
run() {  # name, candidate, stage args...
  local name=$1 cand=$2
  shift 2
  local dir=$out/$name
  mkdir -p "$dir/metrics" "$dir/logs"
  "$sup" --metrics-dir "$dir/metrics" --log-dir "$dir/logs" --world 2 --candidate "$cand" --workload cpu_matmul \
    --setup-limit 60 --iteration-limit 30 "${sizes[@]}" "$@" >"$dir/out.log" 2>&1
  local rc=$?
  if grep -q "AddressSanitizer\|runtime error:\|LeakSanitizer" "$dir/out.log" || [ "$rc" -ge 86 ]; then
    echo "FAIL $name: a sanitizer report (exit $rc)"; sed -n '1,60p' "$dir/out.log"; failed=1; return
  fi
  echo "ok   $name: supervisor exit $rc"
  LAST_RC=$rc
}
run seed_verify "$seed" --stage verify --verify-runs 2
if [ "${LAST_RC:-1}" != 0 ] || ! grep -q '"status":"ok"' "$out/seed_verify/metrics/rank0.json" 2>/dev/null; then
  echo "FAIL seed_verify: the seed did not verify (exit ${LAST_RC:-?})"; failed=1
fi
run seed_bench "$seed" --stage bench --warmup 1 --iters 3
[ "${LAST_RC:-1}" = 0 ] || { echo "FAIL seed_bench: exit ${LAST_RC:-?}"; failed=1; }
# Every rank's timeline (METRICS.md) holds each moment of a bench once, in order of time.
for r in 0 1; do
  python3 - "$out/seed_bench/metrics/rank$r.json" <<'PY' || failed=1
import json, sys
t = json.load(open(sys.argv[1])).get("timeline", [])
want = ["backend_ready", "calibrated", "candidate_started", "hello", "setup_done", "warmed_up",
        "iterations_done", "bye", "candidate_ended", "after_checked"]
at = [m["at_s"] for m in t]
if [m["what"] for m in t] != want or at != sorted(at) or at[0] < 0:
    sys.exit(f"FAIL seed_bench: {sys.argv[1]}'s timeline is {t}, want {want} in order of time")
PY
done
# A long bench checks at most 32 of its timed iterations against the reference (supervisor.cc).
run seed_bench_long "$seed" --stage bench --warmup 1 --iters 100 --verify-fraction 1
checks=$(grep -o '"kind":"timed_sample"' "$out/seed_bench_long/metrics/rank0.json" 2>/dev/null | wc -l)
[ "${LAST_RC:-1}" = 0 ] && [ "$checks" = 32 ] ||
  { echo "FAIL seed_bench_long: exit ${LAST_RC:-?}, $checks timed checks of 100 iterations (want 32)"; failed=1; }
for cand in "$@"; do
  LAST_RC=
  run "$(basename "$cand")" "$cand" --stage verify --verify-runs 1
done
exit $failed
