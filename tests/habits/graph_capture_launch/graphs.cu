// Habit of CUDA-graph halo codes (written here, not copied): the halo exchange and the update are
// captured into two graphs, one per parity, swapping the grids between the captures; the timed
// loop only launches them by its counter's parity.
#include <cuda_runtime.h>
#include <nccl.h>
#include <cstdio>
#include <cstdlib>
#include <utility>

__global__ void update(float* out, const float* in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 0.5f * in[i] + 1.0f;
}

int main() {
  const int rank = std::atoi(std::getenv("RANK")), world = std::atoi(std::getenv("WORLD_SIZE"));
  cudaSetDevice(rank);
  ncclUniqueId id;
  ncclGetUniqueId(&id);  // one host: a real launcher would share rank 0's
  ncclComm_t comm;
  ncclCommInitRank(&comm, world, id, rank);
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  const int n = 1 << 20;
  float *cur, *nxt;
  cudaMalloc(&cur, n * sizeof(float));
  cudaMalloc(&nxt, n * sizeof(float));
  cudaGraph_t graph[2];
  cudaGraphExec_t exec[2];
  for (int k = 0; k < 2; ++k) {
    cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
    update<<<(n + 255) / 256, 256, 0, s>>>(nxt, cur, n);
    ncclGroupStart();
    ncclSend(nxt + 1, 1, ncclFloat, (rank + 1) % world, comm, s);
    ncclRecv(nxt, 1, ncclFloat, (rank + world - 1) % world, comm, s);
    ncclGroupEnd();
    cudaStreamEndCapture(s, &graph[k]);
    cudaGraphInstantiate(&exec[k], graph[k], 0);
    std::swap(cur, nxt);
  }
  int step = 0;
  const int steps = 100;
  while (step < steps) {
    cudaGraphLaunch(exec[step % 2], s);
    step++;
  }
  cudaStreamSynchronize(s);
  std::printf("rank %d done\n", rank);
  ncclCommDestroy(comm);
  return 0;
}
