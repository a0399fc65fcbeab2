#!/usr/bin/env bash
# Prints the key of everything a run of the test suite depends on: the content of every file of the
# tree git does not ignore (tracked or not), the toolchain's versions (nvcc, the C++ compilers,
# CMake), every installed Debian package and Python package with its version, and the environment
# variables cuco or its tests read (CUCO_*, CUDA*, NCCL*, NVSHMEM*, CC, CXX, CI). scripts/test.sh
# skips ctest and the fuzz phase when the key equals the one of its last run that passed
# (build/tests-passed.key); anything changed, or CUCO_TEST_RERUN=1, runs them all.
set -euo pipefail
cd "$(dirname "$0")/.."
{
  git ls-files -co --exclude-standard -z | xargs -0 -r sha256sum
  for t in "${CUDA_HOME:-/usr/local/cuda}/bin/nvcc" g++ clang++-14 cmake ctest; do
    echo "== $t"; "$t" --version 2>&1 | head -4 || true
  done
  dpkg-query -W -f '${Package} ${Version}\n' 2>/dev/null || true
  python3 -m pip freeze 2>/dev/null || true
  env | grep -E '^(CUCO_|CUDA|NCCL|NVSHMEM|CC=|CXX=|CI=)' | grep -v '^CUCO_TEST_RERUN=' | sort
} | sha256sum | cut -d' ' -f1
