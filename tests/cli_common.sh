# Sourced by the tests/cli_*_test.sh scripts (each one ctest test, so that they spread over the cores
# and none nears its time limit): CUCO (absolute: some cases run in other folders), SRC (the
# repository), WL (the CPU test workload), T (a temporary folder, removed at exit), the compile cache
# (ctest's: the build folder's test-cache, shared by every test), check NAME CONDITION... and
# cli_done NAME, which prints the count of failures and exits with it.
set -u
CUCO=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
WL=$SRC/tests/workloads/cpu_matmul
PROG=$SRC/workloads/gemm_reducescatter_program/program.cu  # the program-mode workload's program
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export CUCO_CACHE_DIR=${CUCO_CACHE_DIR:-$T/cache}
fails=0
check() {  # check NAME CONDITION...
  local name=$1; shift
  if "$@"; then echo "ok   $name"; else echo "FAIL $name"; fails=$((fails + 1)); fi
}
cli_done() {  # cli_done NAME
  echo "$1: $fails failed"
  test $fails -eq 0
}
