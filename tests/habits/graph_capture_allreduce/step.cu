// Habit of data-parallel training steps run as one CUDA graph (written here, not copied): the
// gradient's scaling, its all-reduce over the ranks and the weights' update are captured once into
// a graph, and the timed loop only launches it. The collective is captured, not only sends and
// receives.
#include <cuda_runtime.h>
#include <nccl.h>
#include <cstdio>
#include <cstdlib>

__global__ void scale(float* g, const float* grad, float by, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) g[i] = by * grad[i];
}

__global__ void update(float* w, const float* g, float lr, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) w[i] -= lr * g[i];
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
  const int n = 1 << 22;
  float *grad, *g, *w;
  cudaMalloc(&grad, n * sizeof(float));
  cudaMalloc(&g, n * sizeof(float));
  cudaMalloc(&w, n * sizeof(float));
  cudaMemset(grad, 0, n * sizeof(float));
  cudaMemset(w, 0, n * sizeof(float));
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
  scale<<<(n + 255) / 256, 256, 0, s>>>(g, grad, 1.0f / world, n);
  ncclAllReduce(g, g, n, ncclFloat, ncclSum, comm, s);
  update<<<(n + 255) / 256, 256, 0, s>>>(w, g, 0.01f, n);
  cudaStreamEndCapture(s, &graph);
  cudaGraphInstantiate(&exec, graph, 0);
  for (int step = 0; step < 50; ++step) cudaGraphLaunch(exec, s);
  cudaStreamSynchronize(s);
  std::printf("rank %d done\n", rank);
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  ncclCommDestroy(comm);
  return 0;
}
