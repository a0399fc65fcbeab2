// Habit of single-process demos that take their GPU count as an option with a default, read by
// their own helper (written here, not copied): one process drives every GPU of ncclCommInitAll,
// each GPU scales its tokens and all-gathers them, one pass a step.
#include <cuda_runtime.h>
#include <nccl.h>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

static int int_option(int argc, char** argv, const std::string& key, int fallback) {
  for (int i = 1; i + 1 < argc; ++i)
    if (key == argv[i]) return std::atoi(argv[i + 1]);
  return fallback;
}

__global__ void scale_tokens(float* tokens, int n, float by) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) tokens[i] *= by;
}

int main(int argc, char** argv) {
  const int ngpus = int_option(argc, argv, "--ngpus", 2);
  const int tokens = int_option(argc, argv, "--tokens", 8192);
  int visible = 0;
  cudaGetDeviceCount(&visible);
  if (ngpus > visible) {
    std::fprintf(stderr, "asked for %d GPUs, %d visible\n", ngpus, visible);
    return 1;
  }
  std::vector<int> devs(ngpus);
  for (int g = 0; g < ngpus; ++g) devs[g] = g;
  std::vector<ncclComm_t> comms(ngpus);
  ncclCommInitAll(comms.data(), ngpus, devs.data());
  std::vector<float*> local(ngpus), gathered(ngpus);
  std::vector<cudaStream_t> streams(ngpus);
  for (int g = 0; g < ngpus; ++g) {
    cudaSetDevice(g);
    cudaMalloc(&local[g], tokens * sizeof(float));
    cudaMalloc(&gathered[g], tokens * ngpus * sizeof(float));
    cudaMemset(local[g], 0, tokens * sizeof(float));
    cudaStreamCreate(&streams[g]);
  }
  for (int step = 0; step < 20; ++step) {
    for (int g = 0; g < ngpus; ++g) {
      cudaSetDevice(g);
      scale_tokens<<<(tokens + 255) / 256, 256, 0, streams[g]>>>(local[g], tokens, 0.5f);
    }
    ncclGroupStart();
    for (int g = 0; g < ngpus; ++g)
      ncclAllGather(local[g], gathered[g], tokens, ncclFloat, comms[g], streams[g]);
    ncclGroupEnd();
  }
  for (int g = 0; g < ngpus; ++g) {
    cudaSetDevice(g);
    cudaStreamSynchronize(streams[g]);
  }
  std::printf("%d GPUs, %d tokens each\n", ngpus, tokens);
  for (int g = 0; g < ngpus; ++g) ncclCommDestroy(comms[g]);
  return 0;
}
