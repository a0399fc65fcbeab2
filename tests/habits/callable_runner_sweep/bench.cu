// Habit of sweep benchmarks written with lambdas (written here, not copied): one process, a thread
// per GPU, communicators from ncclCommInitAll; each measurement is a lambda handed to a timing helper,
// which hands it on to a runner calling it on every GPU's thread.
#include <nccl.h>
#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <thread>
#include <vector>

void all_reduce_step(float* buf, size_t n, ncclComm_t comm, cudaStream_t stream) {
  ncclAllReduce(buf, buf, n, ncclFloat, ncclSum, comm, stream);
  cudaStreamSynchronize(stream);
}

template <typename Fn>
void run_on_gpus(int gpus, Fn fn) {
  std::vector<std::thread> workers;
  for (int g = 0; g < gpus; g++) workers.emplace_back([&, g]() { fn(g); });
  for (auto& w : workers) w.join();
}

template <typename Fn>
double time_ms(int gpus, int repeat, Fn fn) {
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < repeat; i++) run_on_gpus(gpus, fn);
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count() / repeat;
}

int main() {
  int gpus = 0;
  cudaGetDeviceCount(&gpus);
  std::vector<ncclComm_t> comms(gpus);
  ncclCommInitAll(comms.data(), gpus, nullptr);
  std::vector<float*> bufs(gpus);
  std::vector<cudaStream_t> streams(gpus);
  for (size_t n : {size_t(1) << 16, size_t(1) << 20}) {
    for (int g = 0; g < gpus; g++) {
      cudaSetDevice(g);
      cudaMalloc(&bufs[g], n * sizeof(float));
      cudaStreamCreate(&streams[g]);
    }
    const double ms = time_ms(gpus, 20, [&](int g) {
      cudaSetDevice(g);
      all_reduce_step(bufs[g], n, comms[g], streams[g]);
    });
    std::printf("%zu floats: %.3f ms\n", n, ms);
    for (int g = 0; g < gpus; g++) cudaFree(bufs[g]);
  }
  for (auto c : comms) ncclCommDestroy(c);
  return 0;
}
