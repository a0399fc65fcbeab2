#!/usr/bin/env bash
# cuco's main job on a fresh machine: install, build, then run the cascade on
# the default workload. Without a GPU it compiles (L1) and says what it would
# have run. Extra arguments go to `cuco eval`.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
exec build/src/cli/cuco eval workloads/gemm_reducescatter "$@"
