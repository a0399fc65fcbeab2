#!/usr/bin/env bash
# How CUDA numbers GPUs inside a sandbox that binds the device nodes of some GPUs only (the
# question behind SandboxVisibleDevices in src/launch/gpu_visibility.h): for each GPU N and each
# CUDA_VISIBLE_DEVICES (unset, 0, N), bwrap binds /dev/nvidiaN (plus nvidiactl, nvidia-uvm) and a
# probe prints the devices CUDA sees and their PCI bus ids. Needs nvcc and bwrap (BWRAP, default
# .carry/bin/bwrap). Writes $OUT/sandbox-gpu-numbering.txt.
set -u
OUT=${OUT:-/tmp/sandbox-gpu-numbering}
BWRAP=${BWRAP:-$PWD/.carry/bin/bwrap}
mkdir -p "$OUT" /tmp/gpu-numbering
cat >/tmp/gpu-numbering/probe.cu <<'CU'
#include <cstdio>
#include <cuda_runtime.h>
int main() {
  int n = 0;
  cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess) { std::printf("cudaGetDeviceCount: %s\n", cudaGetErrorString(e)); return 1; }
  for (int i = 0; i < n; ++i) {
    char bus[32] = {0};
    cudaDeviceGetPCIBusId(bus, sizeof bus, i);
    float* p = nullptr;
    cudaSetDevice(i);
    e = cudaMalloc(&p, 4);
    std::printf("device %d: %s, cudaMalloc: %s\n", i, bus, cudaGetErrorString(e));
    cudaFree(p);
  }
  return 0;
}
CU
nvcc -o /tmp/gpu-numbering/probe /tmp/gpu-numbering/probe.cu || exit 1
{
  echo "outside, no CUDA_VISIBLE_DEVICES:"; /tmp/gpu-numbering/probe
  count=$(nvidia-smi --query-gpu=index --format=csv,noheader | wc -l)
  for ((g = 0; g < count; ++g)); do
    for vis in unset 0 "$g"; do
      echo "sandbox binding /dev/nvidia$g, CUDA_VISIBLE_DEVICES=$vis:"
      env_args=(); [ "$vis" != unset ] && env_args=(--setenv CUDA_VISIBLE_DEVICES "$vis")
      "$BWRAP" --ro-bind / / --dev /dev --dev-bind /dev/nvidiactl /dev/nvidiactl --dev-bind /dev/nvidia-uvm /dev/nvidia-uvm \
        --dev-bind "/dev/nvidia$g" "/dev/nvidia$g" --proc /proc --tmpfs /tmp --ro-bind /tmp/gpu-numbering /tmp/gpu-numbering \
        --unshare-pid "${env_args[@]}" /tmp/gpu-numbering/probe 2>&1 | sed 's/^/  /'
    done
  done
} | tee "$OUT/sandbox-gpu-numbering.txt"
