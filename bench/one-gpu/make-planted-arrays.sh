#!/usr/bin/env bash
# The planted candidates of stop 66's device calls (bench/results/2026-12-03-s66-h200), made from
# the seeds `cuco init` wrote of the habit programs with arrays of buffers and untyped buffers
# (`python3 tests/habits/habits_check.py --no-compile --keep .carry/habits build/src/cli/cuco`
# first). Each is a seed with one thing changed inside its EVOLVE block, and must end not ok:
#   .carry/planted/layer_arrays-skip-first-gemm.cu       the first layer's GEMM and all-reduce skipped
#   .carry/planted/layer_structs-skip-first-layer.cu     the first layer skipped
#   .carry/planted/args_struct_buffers-wrong-buffer.cu   the all-reduce written into its send buffer
# Before 0-filled inputs were refilled (stop 66), the first two were accepted: the program zeroes its
# weights, so every check compared zeros.
# Usage (repo root): bash bench/one-gpu/make-planted-arrays.sh [KEPT] (default .carry/habits)
set -eu
H=${1:-.carry/habits}
mkdir -p .carry/planted
change() { python3 "$(dirname "$0")/replace_once.py" "$@"; }  # change FILE OUT OLD NEW
change "$H/layer_arrays/harness/seed.cu" .carry/planted/layer_arrays-skip-first-gemm.cu \
  'for (int l = 0; l < kLayers; ++l) {
      cublasSgemm' 'for (int l = 1; l < kLayers; ++l) {
      cublasSgemm'
change "$H/layer_structs/harness/seed.cu" .carry/planted/layer_structs-skip-first-layer.cu \
  'for (size_t l = 0; l < layers.size(); ++l) {' 'for (size_t l = 1; l < layers.size(); ++l) {'
change "$H/args_struct_buffers/harness/seed.cu" .carry/planted/args_struct_buffers-wrong-buffer.cu \
  'ncclAllReduce(sendBuff, recvBuff,' 'ncclAllReduce(sendBuff, sendBuff,'
ls .carry/planted
