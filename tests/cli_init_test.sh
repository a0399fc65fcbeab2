#!/usr/bin/env bash
# End-to-end test of `cuco init` and `cuco run` of a program: the workload folder scaffolded,
# the refusals naming file and line, the workload reused or made again, the program's arguments.
# Usage: tests/cli_init_test.sh <path-to-cuco>
source "$(dirname "$0")/cli_common.sh"

# cuco init: a workload folder scaffolded from a program (program mode + the program as a harness);
# refusals exit 2 and name the path.
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
# A program whose compile command builds two files, only main's named: the other joins (its NCCL call
# is the program's communication), and init says so.
mkdir -p "$T/two"
printf '#include <nccl.h>\nvoid reduce_all(float* b, int n, ncclComm_t c, cudaStream_t s) {\n  ncclAllReduce(b, b, n, ncclFloat, ncclSum, c, s);\n}\n' >"$T/two/ring.cu"
printf '#include <nccl.h>\n#include <cuda_runtime.h>\nvoid reduce_all(float* b, int n, ncclComm_t c, cudaStream_t s);\nint main() {\n  ncclComm_t c;\n  ncclUniqueId id;\n  ncclGetUniqueId(&id);\n  ncclCommInitRank(&c, 1, id, 0);\n  float* b = nullptr;\n  cudaMalloc(&b, 4096);\n  for (int i = 0; i < 10; ++i) reduce_all(b, 1024, c, 0);\n  return 0;\n}\n' >"$T/two/main.cu"
(cd "$T/two" && "$CUCO" init main.cu --out "$T/two-wl" -- nvcc main.cu ring.cu -o two -lnccl) >"$T/two.out" 2>&1
check "init of main.cu built with ring.cu exits 0" test $? -eq 0
check "init says the compile command's other source joins" grep -qF "cuco init: the compile command's other source is the program's too: ring.cu" "$T/two.out"
check "init harnesses the loop calling ring.cu's all-reduce" grep -qF "main.cu:11: the timed loop" "$T/two.out"
# A program handing device memory to MPI and making no NCCL call (CUDA-aware MPI) communicates
# through its MPI calls: they are its communication (before stop 88 it was refused, naming them).
printf '#include <mpi.h>\n#include <cuda_runtime.h>\nint main(int argc, char** argv) {\n  MPI_Init(&argc, &argv);\n  float* d = nullptr;\n  cudaMalloc(&d, 4096);\n  MPI_Allreduce(MPI_IN_PLACE, d, 1024, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);\n  MPI_Finalize();\n}\n' >"$T/aware.cu"
"$CUCO" init "$T/aware.cu" --out "$T/aware" >"$T/aware.out" 2>&1
check "init makes a harness of a CUDA-aware MPI program" test $? -eq 0
check "init serves its MPI all-reduce of device memory" grep -qF "aware.cu:7: the iteration, in main: lines 7-7" "$T/aware.out"
check "init binds the all-reduced buffer" grep -qF '`d`: an input and an output of the iteration' "$T/aware.out"
# cuco run <program>: init says each step; a program it cannot make a harness of (here: a loop for
# rank 0 and another for the others, each rank deciding its branch, their headers unlike, so that they
# are not one loop either) is refused (exit 2) with the line and the program-mode workload that runs it
# as it is.
printf '#include <nccl.h>\nint main() {\n  ncclComm_t c;\n  int rank = 0;\n  ncclCommUserRank(c, &rank);\n  float* b = nullptr;\n  if (rank == 0) {\n    for (int i = 0; i < 4; ++i) ncclSend(b, 1, ncclFloat, 1, c, 0);\n  } else {\n    for (int i = 0; i < 8; ++i) ncclRecv(b, 1, ncclFloat, 0, c, 0);\n  }\n}\n' >"$T/all.cu"
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
# With --json, stdout is for the search's summary alone: what init and generation 0 say goes to stderr.
(cd "$T/ra" && "$CUCO" run main.cu --out "$T/run-args" --args "4096 20" --json -- nvcc main.cu -o sum -lnccl -lmpi) \
  >"$T/run-json.out" 2>"$T/run-json.err"
check "run --json exits 0 with no GPU" test $? -eq 0
check "run --json keeps its progress off stdout" bash -c "! grep -q 'cuco run:' '$T/run-json.out'"
check "run --json ends with JSON saying the run stopped before its search" \
  python3 -c "import json,sys; j = json.load(open(sys.argv[1])); assert j['end'] == 'compiled_only' and 'no GPU here' in j['why'], j" "$T/run-json.out"
check "run --json says its progress on stderr" grep -qF "cuco run: 1/3 init: reusing $T/run-args" "$T/run-json.err"



cli_done cli_init_test
