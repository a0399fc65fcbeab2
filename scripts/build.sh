#!/usr/bin/env bash
# Configures and builds cuco into build/ (binary: build/src/cli/cuco).
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=${CUCO_BUILD_TYPE:-Release} >/dev/null
cmake --build build -j "$(nproc)"
