#!/usr/bin/env bash
# End-to-end test of the `cuco` binary on the CPU test workload: exit codes,
# printed records, errors naming file and line, and the SQLite store.
# Usage: tests/cli_test.sh <path-to-cuco>
set -u
CUCO=$1
SRC=$(cd "$(dirname "$0")/.." && pwd)
WL=$SRC/tests/workloads/cpu_matmul
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export CUCO_CACHE_DIR=$T/cache
fails=0
check() {  # check NAME CONDITION...
  local name=$1; shift
  if "$@"; then echo "ok   $name"; else echo "FAIL $name"; fails=$((fails + 1)); fi
}

"$CUCO" eval "$WL" --run-dir "$T/run" >"$T/seed.out" 2>&1
check "seed exits 0" test $? -eq 0
check "seed record says ok" grep -q "^cpu_matmul: ok" "$T/seed.out"
check "seed record has a time" grep -q "ms median (max over 2 ranks" "$T/seed.out"

"$CUCO" eval "$WL" "$WL/candidates/wrong.cc" "$WL/candidates/frozen_edit.cc" --run-dir "$T/run" --json >"$T/bad.json" 2>"$T/bad.err"
check "failed candidates exit 1" test $? -eq 1
check "json holds both records" python3 -c "
import json,sys; r=json.load(open('$T/bad.json'))
assert [x['status'] for x in r]==['wrong_result','rejected'], [x['status'] for x in r]
assert r[0]['verify']['rel_l2']>1e-3
assert 'frozen_edit.cc:4: frozen code differs' in r[1]['reason'], r[1]['reason']"

check "store holds every candidate" test "$(sqlite3 "$T/run/cuco.db" "select group_concat(status) from (select status from candidates order by id)")" = "ok,wrong_result,rejected"
check "store keeps code and metrics" test "$(sqlite3 "$T/run/cuco.db" "select count(*) from candidates where length(code) > 100 and length(metrics_json) > 100")" = "3"

mkdir -p "$T/badwl" && cp "$WL"/*.cc "$T/badwl/" && sed 's/^iters = 20/iters = "many"/' "$WL/workload.toml" >"$T/badwl/workload.toml"
"$CUCO" eval "$T/badwl" --run-dir "$T/run2" >"$T/badwl.out" 2>&1
check "bad workload.toml exits 2" test $? -eq 2
check "error names file and line" grep -q "badwl/workload.toml:34: 'timing.iters' must be an integer" "$T/badwl.out"

"$CUCO" eval "$WL" "$T/missing.cc" >"$T/missing.out" 2>&1
check "missing candidate exits 2" test $? -eq 2

"$CUCO" doctor --json >"$T/doctor.json"
check "doctor --json is JSON with features" python3 -c "import json; d=json.load(open('$T/doctor.json')); assert d['features']"

"$CUCO" frobnicate >/dev/null 2>&1
check "unknown subcommand exits 2" test $? -eq 2

# cuco init: a workload folder scaffolded from a program (program mode + harness skeleton);
# refusals exit 2 and name the path.
PROG=$SRC/workloads/gemm_reducescatter_program/program.cu
"$CUCO" init "$PROG" --out "$T/init" >"$T/init.out" 2>&1
check "init exits 0" test $? -eq 0
check "init writes program mode and the harness skeleton" test -f "$T/init/workload.toml" -a -f "$T/init/analysis.txt" \
  -a -f "$T/init/harness/workload.toml" -a -f "$T/init/harness/seed.cu" -a -f "$T/init/harness/reference.cu"
check "init copies the program byte for byte" cmp -s "$PROG" "$T/init/program.cu"
check "init guesses the launcher" grep -q '^launcher = "mpirun"' "$T/init/workload.toml"
check "init guesses the time regex" grep -qF "time_regex = 'Time:\s*([0-9.eE+-]+)\s*ms'" "$T/init/workload.toml"
check "init prints the next commands" grep -qF "cuco eval $T/init " "$T/init.out"
"$CUCO" init "$PROG" --out "$T/init" >"$T/init2.out" 2>&1
check "init refuses a non-empty folder (exit 2)" test $? -eq 2
check "init names the folder" grep -qF "$T/init: folder exists and is not empty" "$T/init2.out"
"$CUCO" init "$PROG" --out "$T/init" --force --json >"$T/init.json" 2>/dev/null
check "init --force --json" python3 -c "
import json; r=json.load(open('$T/init.json'))
assert r['schema']=='cuco.init/1' and r['world_size']==2 and r['libs']==['cublasLt','nccl','mpi'], r
assert [s['name'] for s in r['sizes']]==['M','N','K'], r['sizes']"
printf '__global__ void k(float* x) { x[0] = 1; }\nint main() { k<<<1, 1>>>(nullptr); return 0; }\n' >"$T/plain.cu"
"$CUCO" init "$T/plain.cu" --out "$T/plain" >"$T/plain.out" 2>&1
check "init refuses a program without NCCL (exit 2)" test $? -eq 2
check "init names the program" grep -qF "$T/plain.cu: no NCCL call found" "$T/plain.out"


# cuco transform / cuco run: refusals name the file (exit 2); --llm without a configured LLM is an
# environment error (exit 3); `cuco run` of a workload whose seed is its generation 0 searches at once.
"$CUCO" transform "$SRC/tests/workloads/cpu_matmul" --run-dir "$T/tr-cpu" >"$T/tr-cpu.out" 2>&1
check "transform of a CPU workload exits 2" test $? -eq 2
check "transform names the workload.toml" grep -qF "cpu_matmul/workload.toml:0: the rule-based transform needs a harness-mode CUDA workload" "$T/tr-cpu.out"
"$CUCO" transform "$T/init/harness" --run-dir "$T/tr-skel" >"$T/tr-skel.out" 2>&1
check "transform of an unfilled skeleton exits 2" test $? -eq 2
check "transform says there is nothing to transform" grep -qF "harness/seed.cu:1: no host NCCL collective" "$T/tr-skel.out"
"$CUCO" transform "$SRC/workloads/gemm_reducescatter" --llm --out "$T/g0.cu" --run-dir "$T/tr-llm" >"$T/tr-llm.out" 2>&1
check "transform --llm without an LLM exits 3" test $? -eq 3
check "transform --llm says no LLM is configured" grep -qF "no LLM is configured" "$T/tr-llm.out"
printf '[budget]\nmax_candidates = 3\n' >"$T/run3.toml"
"$CUCO" run "$SRC/tests/workloads/cpu_matmul" --config "$T/run3.toml" --run-dir "$T/run-cpu" >"$T/run-cpu.out" 2>&1
check "run of the CPU workload exits 0" test $? -eq 0
check "run searched and stored its candidates" test -f "$T/run-cpu/cuco.db"

echo "cli_test: $fails failed"
test $fails -eq 0
