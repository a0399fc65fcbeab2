#!/usr/bin/env bash
# On a GPU machine: the sandbox tests, with CUDA run inside the sandbox (tests/sandbox/gpu_probe.cu).
# Needs build/src/launch/sandbox_test, build/src/launch/cuco-sandbox-exec and
# build/tests/sandbox/cuco-sandbox-probe built (carry them), and bwrap: from PATH, or unpacked from
# the bubblewrap .deb given as $1 when the machine lacks it.
set -euo pipefail
cd "$(dirname "$0")/../.."
if ! command -v bwrap >/dev/null; then
  [ -n "${1:-}" ] || { echo "gpu-check: bwrap not found and no bubblewrap .deb given" >&2; exit 3; }
  mkdir -p /tmp/bwrap-deb && dpkg -x "$1" /tmp/bwrap-deb
  export PATH=/tmp/bwrap-deb/usr/bin:$PATH
fi
NVCC=$(command -v nvcc || echo "${CUDA_HOME:-/usr/local/cuda}/bin/nvcc")
out=$(mktemp -d /var/tmp/cuco-gpu-probe.XXXXXX)
"$NVCC" -O2 -o "$out/gpu_probe" tests/sandbox/gpu_probe.cu -lcuda
echo "== gpu_probe outside the sandbox"; "$out/gpu_probe"
CUCO_SANDBOX_GPU_PROBE="$out/gpu_probe" build/src/launch/sandbox_test
