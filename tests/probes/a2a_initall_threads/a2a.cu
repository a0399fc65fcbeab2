// Token dispatch between GPUs: one process makes every GPU's communicator with ncclCommInitAll,
// then hands each to a thread of its own (threads.emplace_back). The threads meet at a barrier of
// the program's own between the phases of each step, as its counts are exchanged first.
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <thread>
#include <vector>

#include <cuda_runtime.h>
#include <nccl.h>

#define CK(x)                                                              \
  do {                                                                     \
    if ((x) != 0) {                                                        \
      std::fprintf(stderr, "error %d at %s:%d\n", (int)(x), __FILE__, __LINE__); \
      std::exit(1);                                                        \
    }                                                                      \
  } while (0)

class Barrier {
 public:
  explicit Barrier(int n) : n_(n) {}
  void wait() {
    std::unique_lock<std::mutex> lock(mu_);
    const int gen = gen_;
    if (++arrived_ == n_) {
      arrived_ = 0;
      ++gen_;
      cv_.notify_all();
    } else {
      cv_.wait(lock, [&] { return gen_ != gen; });
    }
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  int n_, arrived_ = 0, gen_ = 0;
};

__global__ void route(const float* x, float* out, int tokens, int d, int peers, float step) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < tokens * d) out[i] = x[i] * (1.0f + 0.01f * step) + (float)((i / d) % peers);
}

struct Gpu {
  int dev;
  ncclComm_t comm;
  cudaStream_t stream;
  float *x, *send, *recv;
};

static void gpu_thread(Gpu* g, int ngpus, int tokens, int d, int steps, Barrier* bar) {
  CK(cudaSetDevice(g->dev));
  CK(cudaStreamCreate(&g->stream));
  size_t bytes = (size_t)tokens * d * sizeof(float);
  CK(cudaMalloc(&g->x, bytes));
  CK(cudaMalloc(&g->send, bytes));
  CK(cudaMalloc(&g->recv, bytes));
  std::vector<float> h(tokens * d);
  for (size_t i = 0; i < h.size(); ++i) h[i] = 0.001f * (float)(i % 97) + g->dev;
  CK(cudaMemcpy(g->x, h.data(), bytes, cudaMemcpyHostToDevice));
  bar->wait();
  const size_t chunk = (size_t)tokens / ngpus * d;
  for (int step = 0; step < steps; ++step) {
    route<<<(tokens * d + 255) / 256, 256, 0, g->stream>>>(g->x, g->send, tokens, d, ngpus, (float)step);
    bar->wait();  // every GPU's tokens routed before any send
    CK(ncclGroupStart());
    for (int p = 0; p < ngpus; ++p) {
      CK(ncclSend(g->send + p * chunk, chunk, ncclFloat, p, g->comm, g->stream));
      CK(ncclRecv(g->recv + p * chunk, chunk, ncclFloat, p, g->comm, g->stream));
    }
    CK(ncclGroupEnd());
    CK(cudaStreamSynchronize(g->stream));
    bar->wait();  // the step ends together
  }
  std::vector<float> out(tokens * d);
  CK(cudaMemcpy(out.data(), g->recv, bytes, cudaMemcpyDeviceToHost));
  double sum = 0;
  for (float v : out) sum += v;
  std::printf("gpu %d checksum %.4f\n", g->dev, sum);
}

int main() {
  int ngpus = 0;
  CK(cudaGetDeviceCount(&ngpus));
  const int tokens = 4096, d = 256, steps = 20;
  std::vector<int> devs(ngpus);
  for (int i = 0; i < ngpus; ++i) devs[i] = i;
  std::vector<ncclComm_t> comms(ngpus);
  CK(ncclCommInitAll(comms.data(), ngpus, devs.data()));
  std::vector<Gpu> gpus(ngpus);
  Barrier bar(ngpus);
  std::vector<std::thread> threads;
  for (int i = 0; i < ngpus; ++i) {
    gpus[i].dev = i;
    gpus[i].comm = comms[i];
    threads.emplace_back(gpu_thread, &gpus[i], ngpus, tokens, d, steps, &bar);
  }
  for (auto& t : threads) t.join();
  for (auto c : comms) ncclCommDestroy(c);
  return 0;
}
