// Habit of single-process benchmarks that start a thread per GPU inside a function main calls once
// per message size (written here, not copied): main enables peer access between every pair of GPUs
// first, and each thread makes its NCCL rank, times its all-reduces with events and reports.
#include <cuda_runtime.h>
#include <nccl.h>
#include <cstdio>
#include <thread>
#include <vector>

#define CUDA_CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); std::exit(1); } } while (0)

template <typename T>
static void run_allreduce(int ngpus, size_t bytes, int iters) {
  ncclUniqueId id;
  ncclGetUniqueId(&id);
  std::vector<std::thread> threads;
  std::vector<float> ms(ngpus, 0.0f);
  for (int r = 0; r < ngpus; ++r)
    threads.emplace_back([&, r]() {
      CUDA_CHECK(cudaSetDevice(r));
      ncclComm_t comm;
      ncclCommInitRank(&comm, ngpus, id, r);
      const size_t count = bytes / sizeof(T);
      T *send, *recv;
      CUDA_CHECK(cudaMalloc(&send, bytes));
      CUDA_CHECK(cudaMalloc(&recv, bytes));
      CUDA_CHECK(cudaMemset(send, 0, bytes));
      cudaStream_t stream;
      CUDA_CHECK(cudaStreamCreate(&stream));
      cudaEvent_t start, stop;
      CUDA_CHECK(cudaEventCreate(&start));
      CUDA_CHECK(cudaEventCreate(&stop));
      CUDA_CHECK(cudaEventRecord(start, stream));
      for (int i = 0; i < iters; ++i) ncclAllReduce(send, recv, count, ncclFloat, ncclSum, comm, stream);
      CUDA_CHECK(cudaEventRecord(stop, stream));
      CUDA_CHECK(cudaEventSynchronize(stop));
      CUDA_CHECK(cudaEventElapsedTime(&ms[r], start, stop));
      CUDA_CHECK(cudaFree(send));
      CUDA_CHECK(cudaFree(recv));
      ncclCommDestroy(comm);
    });
  for (auto& t : threads) t.join();
  std::printf("%zu bytes: %.3f ms\n", bytes, ms[0] / iters);
}

int main() {
  int ngpus = 0;
  CUDA_CHECK(cudaGetDeviceCount(&ngpus));
  for (int i = 0; i < ngpus; ++i) {
    CUDA_CHECK(cudaSetDevice(i));
    for (int j = 0; j < ngpus; ++j) {
      int can = 0;
      CUDA_CHECK(cudaDeviceCanAccessPeer(&can, i, j));
      if (i != j && can) CUDA_CHECK(cudaDeviceEnablePeerAccess(j, 0));
    }
  }
  for (size_t bytes : {size_t(1) << 20, size_t(1) << 24}) run_allreduce<float>(ngpus, bytes, 20);
  return 0;
}
