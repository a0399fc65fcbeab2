#!/usr/bin/env bash
# End-to-end test of the `cuco` binary on the CPU test workload: exit codes,
# printed records, errors naming file and line, and the SQLite store.
# Usage: tests/cli_test.sh <path-to-cuco>
set -u
CUCO=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")  # absolute: some cases run in other folders
SRC=$(cd "$(dirname "$0")/.." && pwd)
WL=$SRC/tests/workloads/cpu_matmul
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export CUCO_CACHE_DIR=${CUCO_CACHE_DIR:-$T/cache}  # ctest: the build folder's test-cache, shared by every test
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
ITERS_LINE=$(grep -n '^iters = "many"' "$T/badwl/workload.toml" | cut -d: -f1)
check "error names file and line" grep -q "badwl/workload.toml:$ITERS_LINE: 'timing.iters' must be an integer" "$T/badwl.out"

"$CUCO" eval "$WL" "$T/missing.cc" >"$T/missing.out" 2>&1
check "missing candidate exits 2" test $? -eq 2

"$CUCO" doctor --json >"$T/doctor.json"
check "doctor --json is JSON with features" python3 -c "import json; d=json.load(open('$T/doctor.json')); assert d['features']"
check "doctor --json reports libclang" python3 -c "
import json; c=json.load(open('$T/doctor.json'))['libclang']
assert c['found'] in (True, False) and (c['path'] if c['found'] else c['tried']), c"
check "doctor --json says the timing method and why" python3 -c "
import json; t=json.load(open('$T/doctor.json'))['timing']
assert t['method'] in ('MPS (cuco\'s own daemon: supervisor and candidate run concurrently)', 'time-sliced (no MPS): not comparable with peers'), t
assert t['why'] and t['comparable_with_peers'] == t['mps'], t"
CUCO_LIBCLANG=none "$CUCO" doctor >"$T/doctor-noclang.out" 2>&1
check "doctor prints the timing method" grep -qE '^  method      (MPS \(cuco.s own daemon|time-sliced \(no MPS\): not comparable with peers)' "$T/doctor-noclang.out"
check "doctor says what no libclang disables" bash -c "grep -qF 'not found (tried none (CUCO_LIBCLANG=none))' '$T/doctor-noclang.out' && \
  grep -q 'disables    parsing with clang: .cuco analyze. and .cuco init. fall back to the lexical scan' '$T/doctor-noclang.out'"

"$CUCO" frobnicate >"$T/frob.out" 2>&1
check "unknown subcommand exits 2" test $? -eq 2
check "unknown subcommand lists the commands" grep -qF "cuco: unknown command 'frobnicate' (the commands: doctor, eval," "$T/frob.out"

# Did you mean: commands, flags, workload folders.
"$CUCO" evolv "$WL" >"$T/dym1.out" 2>&1
check "cuco evolv exits 2" test $? -eq 2
check "cuco evolv: did you mean 'evolve'" grep -qxF "cuco: unknown command 'evolv'; did you mean 'evolve'?" "$T/dym1.out"
"$CUCO" eval "$WL" --stge compile >"$T/dym2.out" 2>&1
check "eval --stge exits 2" test $? -eq 2
check "eval --stge: did you mean --stage" grep -qxF "cuco eval: unknown flag '--stge'; did you mean '--stage'?" "$T/dym2.out"
"$CUCO" evolve "$WL" --max-candidate=3 >"$T/dym3.out" 2>&1
check "evolve --max-candidate=3: did you mean --max-candidates" bash -c "[ $? -eq 2 ] && grep -qF \"did you mean '--max-candidates'?\" '$T/dym3.out'"
"$CUCO" eval "$SRC/tests/workloads/cpu_matml" >"$T/dym4.out" 2>&1
check "a workload folder that does not exist exits 2" test $? -eq 2
check "it names the close folders beside it" grep -qF "cpu_matml: no such folder; did you mean '$SRC/tests/workloads/cpu_matmul'?" "$T/dym4.out"

# cuco init: a workload folder scaffolded from a program (program mode + the program as a harness);
# refusals exit 2 and name the path.
PROG=$SRC/workloads/gemm_reducescatter_program/program.cu
"$CUCO" init "$PROG" --out "$T/init" >"$T/init.out" 2>&1
check "init exits 0" test $? -eq 0
check "init writes program mode and the harness" test -f "$T/init/workload.toml" -a -f "$T/init/analysis.txt" \
  -a -f "$T/init/harness/workload.toml" -a -f "$T/init/harness/seed.cu" -a -f "$T/init/harness/reference.cu"
check "init copies the program byte for byte" cmp -s "$PROG" "$T/init/program.cu"
check "init guesses the launcher" grep -q '^launcher = "mpirun"' "$T/init/workload.toml"
check "init guesses the time regex" grep -qF "time_regex = 'Time:\s*([0-9.eE+-]+)\s*ms'" "$T/init/workload.toml"
check "init prints the next commands" grep -qF "cuco eval $T/init " "$T/init.out"
check "init made the harness of the program itself" grep -qF "harness mode (trusted): program_harness" "$T/init.out"
check "init names the timed loop" grep -qF "program.cu:243: the timed loop" "$T/init.out"
"$CUCO" init "$PROG" --out "$T/init" >"$T/init2.out" 2>&1
check "init refuses a non-empty folder (exit 2)" test $? -eq 2
check "init names the folder" grep -qF "$T/init: folder exists and is not empty" "$T/init2.out"
"$CUCO" init "$PROG" --out "$T/init" --force --json >"$T/init.json" 2>/dev/null
check "init --force --json" python3 -c "
import json; r=json.load(open('$T/init.json'))
assert r['schema']=='cuco.init/1' and r['world_size']==2 and r['libs']==['cublasLt','nccl','mpi'], r
assert [s['name'] for s in r['sizes']]==['M','N','K'], r['sizes']"
"$CUCO" init "$PROG" --out "$T/init" --force --explain >"$T/init-explain.out" 2>&1
check "init --explain prints each pass, the loop chosen" python3 -c "
t=open('$T/init-explain.out').read().split('cuco init --explain')[1]
for p in ['find the loop:', 'bind the buffers:', 'rewrite main:', 'project:', 'render:']: assert '\n  '+p+'\n' in t, p
assert 'program.cu:243: chosen' in t and 'cuco_bind.' in t and 'harness/seed.cu:' in t, t"
printf '__global__ void k(float* x) { x[0] = 1; }\nint main() { k<<<1, 1>>>(nullptr); return 0; }\n' >"$T/plain.cu"
"$CUCO" init "$T/plain.cu" --out "$T/plain" >"$T/plain.out" 2>&1
check "init refuses a program without NCCL (exit 2)" test $? -eq 2
check "init names the program" grep -qF "$T/plain.cu: no NCCL call found" "$T/plain.out"
# cuco run <program>: init says each step; a program it cannot make a harness of (here: a loop for
# rank 0 and another for the others, each rank deciding its branch) is refused (exit 2) with the
# line and the program-mode workload that runs it as it is.
printf '#include <nccl.h>\nint main() {\n  ncclComm_t c;\n  int rank = 0;\n  ncclCommUserRank(c, &rank);\n  float* b = nullptr;\n  if (rank == 0) {\n    for (int i = 0; i < 4; ++i) ncclSend(b, 1, ncclFloat, 1, c, 0);\n  } else {\n    for (int i = 0; i < 4; ++i) ncclRecv(b, 1, ncclFloat, 0, c, 0);\n  }\n}\n' >"$T/all.cu"
"$CUCO" run "$T/all.cu" --out "$T/run-all" >"$T/run-all.out" 2>&1
check "run of a program init cannot harness exits 2" test $? -eq 2
check "run says step 1 (init)" grep -qF "cuco run: 1/3 init: wrote $T/run-all from $T/all.cu" "$T/run-all.out"
check "run names the line it cannot harness" grep -qF "all.cu:7: the loops at all.cu:8 and all.cu:10" "$T/run-all.out"
check "run names the program-mode workload" grep -qF "cuco eval $T/run-all" "$T/run-all.out"
# The workload is reused while the program is unchanged, and made again (the old one kept) after an edit.
"$CUCO" run "$T/all.cu" --out "$T/run-all" >"$T/run-all2.out" 2>&1
check "run reuses the workload of an unchanged program" grep -qF "cuco run: 1/3 init: reusing $T/run-all" "$T/run-all2.out"
check "run of a reused skeleton says so (exit 2)" grep -qF "cuco run: $T/run-all/harness is the skeleton init made" "$T/run-all2.out"
printf '// edited\n' >>"$T/all.cu"
"$CUCO" run "$T/all.cu" --out "$T/run-all" >"$T/run-all3.out" 2>&1
check "run makes the workload again after the program changed" grep -qF "cuco run: 1/3 init: wrote $T/run-all from $T/all.cu" "$T/run-all3.out"
check "run says the program changed and keeps the old folder" bash -c "grep -qF 'changed since $T/run-all was made from it' '$T/run-all3.out' && ls -d '$T'/run-all-* >/dev/null"
"$CUCO" init "$PROG" --out "$T/init-args" --args '4 "x y"' >"$T/init-args.out" 2>&1
check "init --args with a quote exits 2" test $? -eq 2
check "init --args names the flag and the argument" grep -qF -- "--args '4 \"x y\"': an argument may not hold quotes" "$T/init-args.out"
# A program reading argv[2] with no default: `cuco run` of it says which line and how to give the
# arguments (exit 2), as cuco init does.
mkdir -p "$T/ra" && cp "$SRC/tests/habits/required_args/main.cu" "$T/ra/"  # cuco run writes cuco-runs/ where it runs
(cd "$T/ra" && "$CUCO" run main.cu --out "$T/run-args" -- nvcc main.cu -o sum -lnccl -lmpi) >"$T/run-args.out" 2>&1
check "run of a program needing its arguments exits 2" test $? -eq 2
check "run names the argument and --args" grep -qF 'main.cu:21: the program reads argv[2]' "$T/run-args.out"
check "run's message says how to give them" grep -qF -- '--args "..."' "$T/run-args.out"
(cd "$T/ra" && "$CUCO" run main.cu --out "$T/run-args" --args "4096 20" -- nvcc main.cu -o sum -lnccl -lmpi) >"$T/run-args2.out" 2>&1
check "run --args makes the program's workload (exit 0 with no GPU)" test $? -eq 0
check "run --args makes the workload again: the arguments changed" grep -qF "changed since $T/run-args was made from it" "$T/run-args2.out"
check "run --args passes the arguments" grep -qF '`argv[2]`: 20, as given with --args' "$T/run-args2.out"


# cuco transform / cuco run: refusals name the file (exit 2); --llm without a configured LLM is an
# environment error (exit 3); `cuco run` of a workload whose seed is its generation 0 searches at once.
"$CUCO" transform "$SRC/tests/workloads/cpu_matmul" --run-dir "$T/tr-cpu" >"$T/tr-cpu.out" 2>&1
check "transform of a CPU workload exits 2" test $? -eq 2
check "transform names the workload.toml" grep -qF "cpu_matmul/workload.toml: the rule-based transform needs a harness-mode CUDA workload" "$T/tr-cpu.out"
"$CUCO" transform "$T/init/harness" --run-dir "$T/tr-prog" >"$T/tr-prog.out" 2>&1
check "transform of init's harness compiles generation 0 (exit 0 with no GPU)" test $? -eq 0
check "transform gives the program's NCCL calls the backend knob" grep -qE "NCCL call\(s\) of your program given the backend knob \(nccl \| lsa( \| ce)?\)" "$T/tr-prog.out"
check "transform marks the knobs in generation 0" grep -qF 'kCucoGraph = "off";     // cuco:knob graph' "$T/init/harness/gen0_transformed.cu"
check "transform accepts nothing without GPUs" grep -qF "accepted only after it verifies on GPUs" "$T/tr-prog.out"
# Read once, decide once: `cuco run` of a program (init, generation 0) detects the toolchain once and
# parses each workload.toml text once; CUCO_TRACE=reads prints each (src/util/read_trace.h).
(cd "$T" && CUCO_TRACE=reads "$CUCO" run "$PROG" --out "$T/run-prog" >"$T/run-prog.out" 2>&1)
check "run of a program compiles generation 0 (exit 0 with no GPU)" test $? -eq 0
check "run of a program detects the toolchain once" test "$(grep -c '^cuco trace: toolchain$' "$T/run-prog.out")" -eq 1
check "run of a program parses each workload.toml once" test -z "$(grep '^cuco trace: workload.toml' "$T/run-prog.out" | sort | uniq -d)"
check "run of a program parses its harness's workload.toml" grep -qF "cuco trace: workload.toml $T/run-prog/harness/workload.toml" "$T/run-prog.out"
"$CUCO" transform "$SRC/workloads/gemm_reducescatter" --llm --out "$T/g0.cu" --run-dir "$T/tr-llm" >"$T/tr-llm.out" 2>&1
check "transform --llm without an LLM exits 3" test $? -eq 3
check "transform --llm says no LLM is configured" grep -qF "no LLM is configured" "$T/tr-llm.out"
printf '[budget]\nmax_candidates = 3\n' >"$T/run3.toml"
"$CUCO" run "$SRC/tests/workloads/cpu_matmul" --config "$T/run3.toml" --run-dir "$T/run-cpu" >"$T/run-cpu.out" 2>&1
check "run of the CPU workload exits 0" test $? -eq 0
check "run searched and stored its candidates" test -f "$T/run-cpu/cuco.db"
"$CUCO" run "$SRC/tests/workloads/cpu_matmul" --world-size 3 --run-dir "$T/run-w3" >"$T/run-w3.out" 2>&1
check "run at a world size the workload does not list exits 2" test $? -eq 2
check "run names the world sizes' file" grep -qF "cuco run: --world-size 3: not among the world_sizes of $SRC/tests/workloads/cpu_matmul/workload.toml" "$T/run-w3.out"
"$CUCO" run "$SRC/tests/workloads/cpu_matmul" --world-size 1 --config "$T/run3.toml" --run-dir "$T/run-w1" >"$T/run-w1.out" 2>&1
check "run --world-size 1 exits 0" test $? -eq 0
check "run --world-size 1 records it" grep -q "^world_size = 1" "$T/run-w1/config.toml"
# The overlap bound beside the best (the workload declares its parts), after a fresh search and after
# a resumed one, benched at the world size the run searched (recorded in its config, not a flag).
check "run prints the overlap bound beside the best" grep -qF "cuco run: the overlap bound beside the best" "$T/run-cpu.out"
"$CUCO" run --resume "$T/run-w1" --max-candidates 4 >"$T/run-w1-resume.out" 2>&1
check "run --resume exits 0" test $? -eq 0
check "run --resume prints the overlap bound beside the best" grep -qF "cuco run: the overlap bound beside the best" "$T/run-w1-resume.out"
check "run --resume benches the bound at the run's world size" grep -qF "cuco bench cpu_matmul: world size 1 on the CPU" "$T/run-w1-resume.out"

# Exit codes and messages (README's table): a missing seed and a run dir cuco cannot create are
# bad input (2) naming the file or folder; `transform` names workload.toml without a line 0; `run`
# never switches to the LLM transform by itself.
mkdir -p "$T/noseed" && cp -r "$WL"/. "$T/noseed/" && rm "$T/noseed/seed.cc"
for c in eval evolve bench run; do
  "$CUCO" $c "$T/noseed" --run-dir "$T/noseed-$c" >"$T/noseed-$c.out" 2>&1
  check "$c of a workload without its seed exits 2" test $? -eq 2
  check "$c names the missing seed and workload.toml" grep -qF "noseed/workload.toml: seed file 'seed.cc' not found" "$T/noseed-$c.out"
done
touch "$T/a-file"
for c in eval evolve bench transform run; do
  "$CUCO" $c "$WL" --run-dir "$T/a-file/run" >"$T/rundir-$c.out" 2>&1
  check "$c with a run dir it cannot create exits 2" test $? -eq 2
  check "$c names the run dir" grep -qF "$T/a-file/run: cannot create the run directory" "$T/rundir-$c.out"
done
check "transform never says workload.toml:0" bash -c "! grep -q 'workload.toml:0' '$T/tr-cpu.out'"
"$CUCO" init "$PROG" --out "$T/init-run" >/dev/null 2>&1
"$CUCO" run "$T/init-run" --run-dir "$T/run-prog" >"$T/run-prog.out" 2>&1
check "run of a program-mode workload exits 2 (no LLM unless asked)" test $? -eq 2
check "run says the rules need a harness-mode workload" grep -qF "the rule-based transform needs a harness-mode CUDA workload" "$T/run-prog.out"
check "run did not switch to the LLM transform" bash -c "! grep -qi 'LLM-driven' '$T/run-prog.out'"
"$CUCO" evolve "$WL" --max-candidates x >"$T/badflag.out" 2>&1
check "a bad flag value exits 2" test $? -eq 2

# Budget flags (evolve and run): they replace [budget], config.toml records them, and a flag given
# with --resume replaces the recorded value and says so. Progress shows elapsed time and an ETA.
"$CUCO" evolve "$WL" --max-candidates 2 --time-budget 30m --max-cost 0.5 --run-dir "$T/bud" >"$T/bud.out" 2>"$T/bud.err"
check "evolve --max-candidates 2 exits 0" test $? -eq 0
check "--max-candidates 2 stops at 2" test "$(sqlite3 "$T/bud/cuco.db" "select count(*) from candidates")" = 2
check "config.toml records the budget flags" bash -c "grep -q '^max_candidates = 2' '$T/bud/config.toml' && \
  grep -q '^max_wall_s = 1800' '$T/bud/config.toml' && grep -q '^max_dollars = 0.5' '$T/bud/config.toml'"
check "progress shows elapsed and ETA" grep -qE "elapsed [0-9]+(s|m[0-9]{2}s), ETA [0-9ms]+ \((max_candidates|max_wall_s)\)" "$T/bud.err"
"$CUCO" evolve --resume "$T/bud" --max-candidates 3 >"$T/bud2.out" 2>"$T/bud2.err"
check "--resume --max-candidates 3 exits 0" test $? -eq 0
check "--resume says the flag replaces the recorded budget" grep -qF "cuco evolve: --max-candidates 3 replaces max_candidates = 2 (recorded in $T/bud/config.toml)" "$T/bud2.err"
check "the resumed run goes on to 3" test "$(sqlite3 "$T/bud/cuco.db" "select count(*) from candidates")" = 3
check "config.toml keeps the new budget" grep -q '^max_candidates = 3' "$T/bud/config.toml"
"$CUCO" evolve "$WL" --time-budget 5x --run-dir "$T/bud3" >"$T/bud3.out" 2>&1
check "a bad --time-budget exits 2, saying the forms" bash -c "[ $? -eq 2 ] && grep -qF -- \"--time-budget: '5x' is not a duration\" '$T/bud3.out'"
"$CUCO" run "$WL" --max-candidates 1 --run-dir "$T/bud4" >"$T/bud4.out" 2>&1
check "run takes --max-candidates" bash -c "[ $? -eq 0 ] && grep -q 'max_candidates (1) reached' '$T/bud4.out'"

check "run's messages say cuco run, not cuco evolve" bash -c "grep -q '^cuco run: searching cpu_matmul' '$T/bud4.out' && ! grep -q 'cuco evolve:' '$T/bud4.out'"

# A count limit given on the command line binds: --max-candidates lifts the config's max_generations
# (and says so), and the summary of a spent budget names the flag that raises it, not a bare --resume.
mkdir -p "$T/wlp" && cp -r "$WL"/. "$T/wlp/"
sed -i 's|^constexpr int kUnroll = 1;.*|&\nconstexpr int kPad = 0;  // cuco:knob pad|' "$T/wlp/seed.cc"
printf '\n[[knobs]]\nname = "pad"\ndescription = "does nothing (test knob)"\nvalues = [0, 1, 2]\ndefault = 0\n' >>"$T/wlp/workload.toml"
printf '[budget]\nmax_generations = 1\n[islands]\ncount = 1\n' >"$T/gen1.toml"
"$CUCO" evolve "$T/wlp" --config "$T/gen1.toml" --max-candidates 5 --run-dir "$T/bind" >"$T/bind.out" 2>"$T/bind.err"
check "--max-candidates 5 over max_generations = 1 exits 0" test $? -eq 0
check "--max-candidates 5 binds: 5 candidates" test "$(sqlite3 "$T/bind/cuco.db" "select count(*) from candidates")" = 5
check "it says it lifts max_generations" grep -qF "cuco evolve: --max-candidates 5 lifts max_generations = 1 (give --max-generations N as well to keep a limit there)" "$T/bind.err"
check "config.toml records the lifted limit" grep -q '^max_generations = 0' "$T/bind/config.toml"
check "a spent budget names the flag that raises it" grep -qF "(the budget is spent; to search on, raise it: cuco evolve --resume $T/bind --max-candidates 10)" "$T/bind.out"
check "and suggests no bare --resume" bash -c "! grep -q 'continue with' '$T/bind.out'"
"$CUCO" evolve --resume "$T/bind" --max-generations 1 --max-candidates 9 >"$T/bind2.out" 2>"$T/bind2.err"
check "--max-generations on --resume exits 0" test $? -eq 0
check "--max-generations 1 stops the resumed run at its generation" grep -qF "stopped: budget: max_generations (1) done" "$T/bind2.out"
check "--max-generations is in evolve's help" bash -c "'$CUCO' evolve --help | grep -q -- '--max-generations'"

# A relative compile cache (--cache-dir or CUCO_CACHE_DIR) is the one under the folder cuco started in.
(cd "$T" && CUCO_CACHE_DIR=relcache "$CUCO" eval "$WL" --run-dir "$T/rel1" >"$T/rel1.out" 2>&1)
check "CUCO_CACHE_DIR=relcache: the seed compiles and passes" bash -c "[ $? -eq 0 ] && grep -q '^cpu_matmul: ok' '$T/rel1.out' && test -d '$T/relcache'"
(cd "$T" && "$CUCO" eval "$WL" --cache-dir relcache2 --run-dir "$T/rel2" >"$T/rel2.out" 2>&1)
check "--cache-dir relcache2: the seed compiles and passes" bash -c "[ $? -eq 0 ] && grep -q '^cpu_matmul: ok' '$T/rel2.out' && test -d '$T/relcache2'"

# A compile error: its record cites the candidate's file (never the compile cache), and `cuco show`
# prints no error figures for the checks that never ran.
"$CUCO" eval "$WL" "$WL/candidates/compile_error.cc" --run-dir "$T/ce" >"$T/ce.out" 2>&1
check "a compile error exits 1" test $? -eq 1
"$CUCO" show "$T/ce" 1 --no-code >"$T/ce-show.out" 2>&1
check "show of a compile error says so" grep -q "verdict     compile_error: $WL/candidates/compile_error.cc:" "$T/ce-show.out"
check "show of a compile error prints no verify figures" bash -c "! grep -q 'rel L2' '$T/ce-show.out'"
check "the record cites no compile cache path" bash -c "! grep -qF '/cand-' '$T/ce-show.out'"
check "the compile log lies beside the candidate" test -f "$T/ce/candidates/1/compile.log"

# cuco doctor where the Slurm packages are installed but there is no cluster (srun prints errors,
# no version): Slurm is not available, and every line of the report is indented.
mkdir -p "$T/fakeslurm"
for p in srun sinfo; do
  printf '#!/bin/sh\necho "%s: error: resolve_ctls_from_dns_srv: res_nsearch error: Unknown host" >&2\necho "%s: fatal: Could not establish a configuration source" >&2\nexit 1\n' $p $p >"$T/fakeslurm/$p"
  chmod +x "$T/fakeslurm/$p"
done
PATH="$T/fakeslurm:$PATH" "$CUCO" doctor >"$T/doctor-slurm.out" 2>&1
check "doctor: Slurm without a cluster is not available" grep -qF "[ no] Slurm launcher: needs a Slurm cluster: $T/fakeslurm/srun is installed" "$T/doctor-slurm.out"
check "doctor: no error line shown as Slurm's version" bash -c "! grep -qE '(version|Slurm)  +srun: error' '$T/doctor-slurm.out' && ! grep -q 'Slurm srun: error' '$T/doctor-slurm.out'"
check "doctor: every line of the Slurm section indented" bash -c "sed -n '/^Slurm\$/,\$p' '$T/doctor-slurm.out' | tail -n +2 | grep -qv '^  ' && exit 1 || exit 0"

# CLI11's own refusals under the command's name and with user-facing names; --world-size 0 refused
# alike by evolve and run; a workload named from the repository's root points at workloads/.
"$CUCO" diff "$T/run" >"$T/cli11.out" 2>&1
check "diff without an id exits 2, saying so under its name" bash -c "[ $? -eq 2 ] && grep -q '^cuco diff: id is required' '$T/cli11.out'"
for c in evolve run eval; do
  "$CUCO" $c "$WL" --world-size 0 --run-dir "$T/ws0-$c" >"$T/ws0-$c.out" 2>&1  # (a run dir: never cwd's cuco-runs)
  check "$c --world-size 0 exits 2" test $? -eq 2
  check "$c --world-size 0 says why under its name" grep -q "^cuco $c: --world-size: Value 0 not in range" "$T/ws0-$c.out"
done
(cd "$SRC" && "$CUCO" eval gemm_reducescatter --stage compile --run-dir "$T/rootwl" >"$T/rootwl.out" 2>&1)
check "eval gemm_reducescatter from the root exits 2" test $? -eq 2
check "and points at workloads/gemm_reducescatter" grep -qF "gemm_reducescatter: no such folder; did you mean 'workloads/gemm_reducescatter'?" "$T/rootwl.out"

# A damaged cuco.db (cut short) is bad input naming the file (exit 2), and `cuco ls` of a folder
# holding it lists the other runs all the same.
mkdir -p "$T/runs" && cp -r "$T/bind" "$T/runs/good" && cp -r "$T/bind" "$T/runs/broken"
rm -f "$T/runs/broken/cuco.db-wal" "$T/runs/broken/cuco.db-shm"
truncate -s $(($(stat -c %s "$T/runs/broken/cuco.db") / 2)) "$T/runs/broken/cuco.db"
"$CUCO" show "$T/runs/broken" 1 >"$T/broken.out" 2>&1
check "show of a truncated cuco.db exits 2" test $? -eq 2
check "and names the file" grep -qF "$T/runs/broken/cuco.db: " "$T/broken.out"
"$CUCO" ls "$T/runs" >"$T/ls.out" 2>"$T/ls.err"
check "ls with one broken run exits 0" test $? -eq 0
check "ls lists the good run" grep -qE "^$T/runs/good +wlp +5 cand" "$T/ls.out"
check "ls says the broken one is unreadable" grep -qE "^$T/runs/broken +unreadable: $T/runs/broken/cuco.db: " "$T/ls.out"
check "ls names its file on stderr" grep -qF "cuco ls: $T/runs/broken/cuco.db: " "$T/ls.err"

# Ctrl-C, through a real SIGINT to a real search: the first answers at once, lets the evaluation in
# flight finish and store, exits 5; a second kills the evaluations in flight (left pending), exits
# 6; --resume then finishes either run with no candidate lost or evaluated twice.
mkdir -p "$T/wlk" && cp -r "$WL"/. "$T/wlk/"
sed -i 's|^constexpr int kUnroll = 1;.*|&\nconstexpr int kPad = 0;  // cuco:knob pad|' "$T/wlk/seed.cc"
printf '\n[[knobs]]\nname = "pad"\ndescription = "does nothing (test knob)"\nvalues = [0, 1, 2]\ndefault = 0\n' >>"$T/wlk/workload.toml"
q() { sqlite3 "$1/cuco.db" "$2" 2>/dev/null; }
interrupt_mid_evaluation() {  # RUN_DIR SIGNALS: starts a search, sends SIGNALS SIGINTs mid-evaluation; sets RC
  # A compile cache of its own: with the previous run's, the candidate in flight is a cache hit that
  # may finish inside the half second before the second SIGINT.
  CUCO_CACHE_DIR="$1.cache" "$CUCO" evolve "$T/wlk" --max-candidates 5 --run-dir "$1" >"$1.out" 2>"$1.err" &
  local pid=$! i d p
  for i in $(seq 1 3000); do
    d=$(q "$1" "select count(*) from candidates where status != 'pending'")
    p=$(q "$1" "select count(*) from candidates where status = 'pending'")
    if [ "${d:-0}" -ge 2 ] && [ "${p:-0}" -ge 1 ]; then break; fi
    sleep 0.05
  done
  kill -INT $pid
  # "At once": the stop message is there while the search still runs, before the candidate in
  # flight (compiling into a cache of its own) ends; polled for up to 5 s, as a loaded CI machine
  # (2 cores, the Slurm test beside) took longer than a fixed half second.
  AT_ONCE=0
  for i in $(seq 1 100); do
    if grep -qE "^cuco evolve: stopping: " "$1.err"; then
      kill -0 $pid 2>/dev/null && AT_ONCE=1
      break
    fi
    sleep 0.05
  done
  cp "$1.err" "$1.err-at-once"
  if [ "$2" -ge 2 ]; then kill -INT $pid; fi
  wait $pid
  RC=$?
}
interrupt_mid_evaluation "$T/int1" 1
# The count is what is in flight at the signal: under load the candidate seen pending may have
# finished just before it (0), which is as right; the answer at once is what is checked.
check "first Ctrl-C answers at once" test $AT_ONCE -eq 1
check "first Ctrl-C says what it waits for" grep -qE "^cuco evolve: stopping: [01] candidates in flight; Ctrl-C again to abort them" "$T/int1.err-at-once"
check "first Ctrl-C exits 5" test $RC -eq 5
check "first Ctrl-C: the one in flight finished and stored" test "$(q "$T/int1" "select count(*) from candidates where status = 'pending'")" = 0
check "first Ctrl-C: stopped early" test "$(q "$T/int1" "select count(*) from candidates")" -lt 5
"$CUCO" evolve --resume "$T/int1" >"$T/int1b.out" 2>&1
check "resume after Ctrl-C exits 0" test $? -eq 0
check "resume after Ctrl-C: 5 candidates, none twice, no gap" test "$(q "$T/int1" "select count(*) || '-' || count(distinct code_hash) || '-' || max(id) from candidates")" = 5-5-5
interrupt_mid_evaluation "$T/int2" 2
check "second Ctrl-C says it aborts" grep -qF "aborting the 1 candidates in flight; they stay pending and --resume evaluates them again" "$T/int2.err"
check "second Ctrl-C exits 6" test $RC -eq 6
check "second Ctrl-C: the aborted one is left pending" test "$(q "$T/int2" "select count(*) from candidates where status = 'pending'")" -ge 1
check "second Ctrl-C: summary says so" grep -q "aborted by a second Ctrl-C" "$T/int2.out"
sleep 0.5
check "second Ctrl-C: no process of the run is left" test -z "$(pgrep -f "$T/int2/candidates/")"
PENDING=$(q "$T/int2" "select group_concat(id) from candidates where status = 'pending'")
"$CUCO" evolve --resume "$T/int2" >"$T/int2b.out" 2>&1
check "resume after the abort exits 0" test $? -eq 0
check "resume evaluated the aborted ones under their ids" test \
  "$(q "$T/int2" "select count(*) from candidates where id in ($PENDING) and status = 'ok'")" = "$(echo "$PENDING" | tr , '\n' | wc -l)"
check "resume after the abort: 5 candidates, none twice, no gap" test "$(q "$T/int2" "select count(*) || '-' || count(distinct code_hash) || '-' || max(id) from candidates")" = 5-5-5

echo "cli_test: $fails failed"
test $fails -eq 0
