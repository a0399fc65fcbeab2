// Habit of tutorial programs (written here, not copied): main calls a helper once; the helper
// all-reduces a device buffer and copies the result to the host, where main prints it. The receive
// buffer's last access in the iteration is that copy: it is the program's result, not scratch.
#include <cuda_runtime.h>
#include <nccl.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

static void reduce_and_read(ncclComm_t comm, cudaStream_t s, const float* send, float* recv, float* host, int n) {
  ncclAllReduce(send, recv, n, ncclFloat, ncclSum, comm, s);
  cudaStreamSynchronize(s);
  cudaMemcpy(host, recv, n * sizeof(float), cudaMemcpyDeviceToHost);
}

int main() {
  const int rank = std::atoi(std::getenv("RANK")), world = std::atoi(std::getenv("WORLD_SIZE"));
  cudaSetDevice(rank);
  ncclUniqueId id;
  ncclGetUniqueId(&id);  // one host: a real launcher would share rank 0's
  ncclComm_t comm;
  ncclCommInitRank(&comm, world, id, rank);
  cudaStream_t s;
  cudaStreamCreate(&s);
  const int n = 1 << 16;
  std::vector<float> host(n, 1.0f + rank);
  float *send, *recv;
  cudaMalloc(&send, n * sizeof(float));
  cudaMalloc(&recv, n * sizeof(float));
  cudaMemcpy(send, host.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  reduce_and_read(comm, s, send, recv, host.data(), n);
  std::printf("rank %d: recv[0] = %g\n", rank, host[0]);
  ncclCommDestroy(comm);
  return 0;
}
