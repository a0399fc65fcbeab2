#!/usr/bin/env bash
# Stop 70's planted candidate of the habit double_buffer_alias (its seed as `cuco init` wrote it:
# `python3 tests/habits/habits_check.py --no-compile --keep .carry/habits build/src/cli/cuco
# double_buffer_alias` first), evaluated by served-file-w1.sh with RUN=double_buffer_alias. It must end
# not ok:
#   .carry/planted70/double-buffer-other-buffer.cu   the GEMM and all-reduce of the first pass written
#                                                    into the pong buffer, the ping left alone
# Both buffers are bound (the alias names either): a candidate writing the other one is compared on both.
# Usage (repo root): bash bench/one-gpu/make-planted-double.sh [KEPT] (default .carry/habits)
set -eu
H=${1:-.carry/habits}
rm -rf .carry/planted70 && mkdir -p .carry/planted70
python3 "$(dirname "$0")/replace_once.py" "$H/double_buffer_alias/harness/seed.cu" \
  .carry/planted70/double-buffer-other-buffer.cu '(pass & 1) == 0 ? c_ping : c_pong' '(pass & 1) == 1 ? c_ping : c_pong'
ls .carry/planted70
