#!/usr/bin/env bash
# End-to-end test of `cuco transform` and `cuco run`: generation 0 of init's harness, reads done
# once, the LLM transform refused without an LLM, the CPU workload searched at a world size, the
# overlap bound beside the best after a fresh and a resumed search.
# Usage: tests/cli_run_test.sh <path-to-cuco>
source "$(dirname "$0")/cli_common.sh"

"$CUCO" init "$PROG" --out "$T/init" >"$T/init.out" 2>&1
check "init exits 0" test $? -eq 0

# cuco transform / cuco run: --llm without a configured LLM is an environment error (exit 3);
# `cuco run` of a workload whose seed is its generation 0 searches at once.
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


cli_done cli_run_test
