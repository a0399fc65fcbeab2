// Habit of benchmarks that time themselves on the host (written here, not copied): every pass of
// the timed loop reads std::chrono around its step and keeps the time in an array a later
// statement prints; the step itself logs how long its all-reduce took with clock_gettime; the
// all-reduce is captured once by a lambda that times its capture too, with CUDA 11's five-argument
// cudaGraphInstantiate, which cuda_runtime.h still declares for C++.
#include <cuda_runtime.h>
#include <nccl.h>
#include <time.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

static double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

__global__ void scale(float* x, float by, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= by;
}

// One step: the scaled gradient's all-reduce, logged with the C clock.
void step(float* grad, int n, int world, ncclComm_t comm, cudaStream_t s, cudaGraphExec_t exec, bool verbose) {
  timespec a, b;
  clock_gettime(CLOCK_MONOTONIC, &a);
  scale<<<(n + 255) / 256, 256, 0, s>>>(grad, 1.0f / world, n);
  cudaGraphLaunch(exec, s);
  cudaStreamSynchronize(s);
  clock_gettime(CLOCK_MONOTONIC, &b);
  const double us = (b.tv_sec - a.tv_sec) * 1e6 + (b.tv_nsec - a.tv_nsec) / 1e3;
  if (verbose) std::printf("step: %.1f us\n", us);
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
  float* grad;
  cudaMalloc(&grad, n * sizeof(float));
  cudaMemset(grad, 0, n * sizeof(float));

  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  auto capture = [&]() {
    auto t0 = std::chrono::steady_clock::now();
    cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal);
    ncclAllReduce(grad, grad, n, ncclFloat, ncclSum, comm, s);
    cudaStreamEndCapture(s, &graph);
    cudaGraphInstantiate(&exec, graph, NULL, NULL, 0);
    if (rank == 0) std::printf("captured in %.1f ms\n", ms_since(t0));
  };
  capture();

  const int iters = 20;
  std::vector<double> times(iters);
  for (int it = 0; it < iters; ++it) {
    auto t0 = std::chrono::steady_clock::now();
    step(grad, n, world, comm, s, exec, rank == 0 && it == 0);
    times[it] = ms_since(t0);
  }
  double total = 0;
  for (double t : times) total += t;
  if (rank == 0) std::printf("mean %.3f ms\n", total / iters);
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  ncclCommDestroy(comm);
  return 0;
}
