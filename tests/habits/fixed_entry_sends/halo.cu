// Habit of tutorial programs (written here, not copied): one process drives every GPU, and each
// GPU's call on its own communicator sends a fixed GPU's buffer (`edge[1]`), which works in one
// process (the pointers are all visible there) and has no meaning for one rank per GPU.
#include <cuda_runtime.h>
#include <nccl.h>
#include <cstdio>

int main() {
  const int gpus = 4;
  const size_t n = 1 << 16;
  int devs[gpus] = {0, 1, 2, 3};
  ncclComm_t comms[gpus];
  cudaStream_t s[gpus];
  float* edge[gpus];
  float* halo[gpus];
  for (int g = 0; g < gpus; ++g) {
    cudaSetDevice(g);
    cudaMalloc(&edge[g], n * sizeof(float));
    cudaMalloc(&halo[g], n * sizeof(float));
    cudaStreamCreate(&s[g]);
  }
  ncclCommInitAll(comms, gpus, devs);
  for (int step = 0; step < 10; ++step) {
    ncclGroupStart();
    for (int g = 0; g < gpus; ++g) {
      ncclSend(edge[1], n, ncclFloat, g, comms[g], s[g]);
      ncclRecv(halo[g], n, ncclFloat, g, comms[g], s[g]);
    }
    ncclGroupEnd();
  }
  for (int g = 0; g < gpus; ++g) ncclCommDestroy(comms[g]);
  std::printf("done\n");
  return 0;
}
