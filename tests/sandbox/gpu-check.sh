#!/usr/bin/env bash
# On a GPU machine: the sandbox tests, with CUDA run inside the sandbox (tests/sandbox/gpu_probe.cu),
# without and with CUDA MPS. Needs build/src/launch/sandbox_test, build/src/launch/cuco-sandbox-exec
# and build/tests/sandbox/cuco-sandbox-probe built (carry them), nvcc, and bwrap: from PATH, or
# unpacked from the bubblewrap .deb given as $1 when the machine lacks it.
set -euo pipefail
cd "$(dirname "$0")/../.."
if ! command -v bwrap >/dev/null; then
  [ -n "${1:-}" ] || { echo "gpu-check: bwrap not found and no bubblewrap .deb given" >&2; exit 3; }
  mkdir -p /tmp/bwrap-deb && dpkg -x "$1" /tmp/bwrap-deb
  export PATH=/tmp/bwrap-deb/usr/bin:$PATH
fi
NVCC=$(command -v nvcc || echo "${CUDA_HOME:-/usr/local/cuda}/bin/nvcc")
out=$(mktemp -d /var/tmp/cuco-gpu-probe.XXXXXX)  # not under /tmp, which the sandbox replaces
"$NVCC" -O2 -o "$out/gpu_probe" tests/sandbox/gpu_probe.cu -lcuda
echo "== gpu_probe outside the sandbox"; "$out/gpu_probe"
export CUCO_SANDBOX_GPU_PROBE="$out/gpu_probe"
echo "== without MPS"
build/src/launch/sandbox_test
echo "== with MPS"
export CUCO_SANDBOX_MPS_PIPE_DIR="$out/mps-pipe" CUCO_SANDBOX_MPS_LOG_DIR="$out/mps-log"
mkdir -p "$CUCO_SANDBOX_MPS_PIPE_DIR" "$CUCO_SANDBOX_MPS_LOG_DIR"
CUDA_MPS_PIPE_DIRECTORY=$CUCO_SANDBOX_MPS_PIPE_DIR CUDA_MPS_LOG_DIRECTORY=$CUCO_SANDBOX_MPS_LOG_DIR nvidia-cuda-mps-control -d
rc=0
build/src/launch/sandbox_test --gtest_filter='*Mps*' || rc=$?
echo quit | CUDA_MPS_PIPE_DIRECTORY=$CUCO_SANDBOX_MPS_PIPE_DIR nvidia-cuda-mps-control
exit $rc
