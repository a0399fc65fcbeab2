#!/usr/bin/env bash
# Fuzzes every parser of outside input (docs/fuzzing.md): builds tests/fuzz's libFuzzer targets
# with clang into build-fuzz/ (CUCO_FUZZ=ON: ASan + UBSan) and runs each for a bounded time over
# its corpus, tests/fuzz/corpus/<target>/ (new inputs go to build-fuzz/corpus/<target>/, not to
# the committed corpus), after replaying tests/fuzz/regressions/<target>/; tests/fuzz/dict/<target>.dict,
# when there is one, lists tokens worth trying (keys, markers).
#
#   scripts/fuzz.sh [seconds-per-target] [target...]   default 60 s, every target
#   CUCO_FUZZ_SEED=N: libFuzzer's -seed (scripts/test.sh fixes it so that CI is repeatable)
#
# Exits non-zero when a target crashes, leaks, hangs (-timeout), runs out of memory or reports
# undefined behaviour, and prints where the crashing input is (build-fuzz/crashes/<target>/).
# To keep one: copy it to tests/fuzz/regressions/<target>/ (ctest fuzz_regress_<target> replays it).
set -uo pipefail
cd "$(dirname "$0")/.."
SECONDS_EACH=${1:-60}
shift || true
TARGETS=("$@")
((${#TARGETS[@]})) || TARGETS=(workload run_config evolve_blocks knob_marks llm_answer metrics llm_response analyze)
CXX_FUZZ=${CXX_FUZZ:-$(command -v clang++-14 || command -v clang++)}
CC_FUZZ=${CC_FUZZ:-$(command -v clang-14 || command -v clang)}
[ -n "$CXX_FUZZ" ] || { echo "fuzz: clang++ not found (Debian: clang-14 libclang-rt-14-dev)" >&2; exit 2; }
B=build-fuzz

if [ ! -f $B/build.ninja ]; then
  mkdir -p $B
  CXX=$CXX_FUZZ CC=$CC_FUZZ cmake -S . -B $B -G Ninja -DCUCO_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    >$B/configure.log 2>&1 || { cat $B/configure.log; echo "fuzz: configure failed" >&2; exit 2; }
fi
ninja -C $B -j "$(nproc)" "${TARGETS[@]/#/fuzz_}" || { echo "fuzz: build failed" >&2; exit 2; }

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
JOBS=${FUZZ_JOBS:-$(nproc)}  # targets fuzzed at once, one core each

# run_one <target>: replays the kept inputs, then fuzzes; writes $B/result_<target> (ok | failed).
run_one() {
  local t=$1
  local bin=$B/tests/fuzz/fuzz_$t seeds=tests/fuzz/corpus/$t regress=tests/fuzz/regressions/$t
  local work=$B/corpus/$t crashes=$B/crashes/$t log=$B/fuzz_$t.log
  mkdir -p "$work" "$crashes"
  # The kept crashes and the corpus first, one run each (they must all pass now).
  if ! "$bin" -runs=0 -rss_limit_mb=2048 -timeout=10 -artifact_prefix="$crashes/" "$regress" "$seeds" \
      >"$log" 2>&1; then
    echo failed >$B/result_$t
    return
  fi
  local dict=()
  [ -f tests/fuzz/dict/$t.dict ] && dict=(-dict=tests/fuzz/dict/$t.dict)
  "$bin" -max_total_time="$SECONDS_EACH" -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 "${dict[@]}" \
    ${CUCO_FUZZ_SEED:+-seed="$CUCO_FUZZ_SEED"} \
    -artifact_prefix="$crashes/" "$work" "$seeds" >>"$log" 2>&1 && echo ok >$B/result_$t || echo failed >$B/result_$t
}

echo "fuzz: ${#TARGETS[@]} targets, ${SECONDS_EACH} s each, $JOBS at a time"
for t in "${TARGETS[@]}"; do
  rm -f $B/result_$t
  while (($(jobs -rp | wc -l) >= JOBS)); do wait -n; done
  run_one "$t" &
done
wait

failed=()
for t in "${TARGETS[@]}"; do
  log=$B/fuzz_$t.log
  if [ "$(cat $B/result_$t 2>/dev/null)" = ok ]; then
    echo "fuzz: $t ok: $(grep -E '^stat::number_of_executed_units' "$log" | awk '{print $2}') runs," \
      "$(grep -oE 'cov: [0-9]+' "$log" | tail -1)"
  else
    tail -60 "$log"
    echo "fuzz: $t FAILED; log: $log; input(s):" >&2
    grep -ho "Test unit written to .*" "$log" | sed 's/^/  /' >&2
    echo "  keep one as a regression: cp <input> tests/fuzz/regressions/$t/<what-it-found>" >&2
    failed+=("$t")
  fi
done
if ((${#failed[@]})); then
  echo "fuzz: failed: ${failed[*]}" >&2
  exit 1
fi
echo "fuzz: all ${#TARGETS[@]} targets ran ${SECONDS_EACH} s without a finding"
