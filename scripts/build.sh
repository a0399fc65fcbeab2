#!/usr/bin/env bash
# Configures and builds cuco into build/ (binary: build/src/cli/cuco). CUCO_BUILD_TYPE picks the
# build type (default Release); CUCO_WERROR=ON makes compiler warnings errors (scripts/test.sh: CI).
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=${CUCO_BUILD_TYPE:-Release} -DCUCO_WERROR=${CUCO_WERROR:-OFF} >/dev/null
cmake --build build -j "$(nproc)"
