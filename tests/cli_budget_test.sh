#!/usr/bin/env bash
# End-to-end test of the budget flags of `cuco evolve` and `cuco run` on the CPU test workload,
# and of `cuco show` and `cuco ls` beside a damaged cuco.db.
# Usage: tests/cli_budget_test.sh <path-to-cuco>
source "$(dirname "$0")/cli_common.sh"

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


cli_done cli_budget_test
