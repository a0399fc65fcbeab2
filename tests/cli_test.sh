#!/usr/bin/env bash
# End-to-end test of the `cuco` binary on the CPU test workload: exit codes, printed records,
# errors naming file and line, the SQLite store, doctor, the compile cache and CLI11's refusals.
# Usage: tests/cli_test.sh <path-to-cuco>
source "$(dirname "$0")/cli_common.sh"

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


"$CUCO" transform "$SRC/tests/workloads/cpu_matmul" --run-dir "$T/tr-cpu" >"$T/tr-cpu.out" 2>&1
check "transform of a CPU workload exits 2" test $? -eq 2
check "transform names the workload.toml" grep -qF "cpu_matmul/workload.toml: the rule-based transform needs a harness-mode CUDA workload" "$T/tr-cpu.out"

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


cli_done cli_test
