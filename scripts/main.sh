#!/usr/bin/env bash
# cuco's main job on a fresh machine: install, build, then `cuco run` on the default workload:
# generation 0 by `cuco transform` when the workload has none, then the search (`cuco evolve`,
# builtin proposer), resuming the run in cuco-runs/ if one is there. Without a GPU it compiles generation 0 and says what it would have run.
# Extra arguments go to `cuco run` (e.g. --config run.toml for a fresh run).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
RUN=cuco-runs/evolve-gemm_reducescatter
if [ -f "$RUN/cuco.db" ]; then
  exec build/src/cli/cuco run --resume "$RUN" "$@"
fi
exec build/src/cli/cuco run workloads/gemm_reducescatter --run-dir "$RUN" "$@"
