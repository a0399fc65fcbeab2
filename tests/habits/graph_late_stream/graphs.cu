// Habit of CUDA-graph codes that check themselves first (written here, not copied): a one-GPU warm-up
// in a helper makes the program's first stream, so the stream its graphs are captured on and launched
// on is its second. The harness hands a program's first stream ctx.stream and the others side
// streams: the copies of the inputs into the program's buffers (bound by copy around graph launches)
// are on ctx.stream, and the graph on the side stream must wait for them. The grids are large (64 MiB
// each) so that a graph that does not wait reads and writes them while they are still being copied.
#include <cuda_runtime.h>
#include <nccl.h>
#include <cstdio>
#include <cstdlib>
#include <utility>

__global__ void update(float* out, const float* in, size_t n) {
  const size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  if (i < n) out[i] = 0.5f * in[i] + 1.0f;
}

__global__ void fill(float* p, size_t n, float v) {
  const size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  if (i < n) p[i] = v + 1e-6f * static_cast<float>(i % 1000);
}

// The program's own check of its kernel on one GPU, before it communicates.
static bool warm_up(size_t n) {
  cudaStream_t s;
  cudaStreamCreate(&s);
  float *a, *b;
  cudaMalloc(&a, n * sizeof(float));
  cudaMalloc(&b, n * sizeof(float));
  fill<<<(n + 255) / 256, 256, 0, s>>>(a, n, 2.0f);
  update<<<(n + 255) / 256, 256, 0, s>>>(b, a, n);
  float h = 0;
  cudaMemcpyAsync(&h, b, sizeof h, cudaMemcpyDeviceToHost, s);
  cudaStreamSynchronize(s);
  cudaFree(a);
  cudaFree(b);
  cudaStreamDestroy(s);
  return h == 2.0f;
}

int main() {
  const int rank = std::atoi(std::getenv("RANK")), world = std::atoi(std::getenv("WORLD_SIZE"));
  cudaSetDevice(rank);
  if (!warm_up(1 << 20)) {
    std::printf("warm-up failed\n");
    return 1;
  }
  ncclUniqueId id;
  ncclGetUniqueId(&id);  // one host: a real launcher would share rank 0's
  ncclComm_t comm;
  ncclCommInitRank(&comm, world, id, rank);
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  const size_t n = size_t{1} << 24;
  float *cur, *nxt;
  cudaMalloc(&cur, n * sizeof(float));
  cudaMalloc(&nxt, n * sizeof(float));
  fill<<<(n + 255) / 256, 256, 0, s>>>(cur, n, 1.0f);
  fill<<<(n + 255) / 256, 256, 0, s>>>(nxt, n, 0.0f);
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
