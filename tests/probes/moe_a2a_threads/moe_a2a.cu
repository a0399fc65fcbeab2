// Expert-parallel MoE dispatch/combine benchmark, one host thread per GPU.
//   permute (group tokens by destination expert) -> all-to-all (grouped ncclSend/ncclRecv)
//   -> expert FFN (per-expert gain, elementwise) -> all-to-all back -> un-permute.
// Routing is a fixed hash of (rank, token), so per-expert counts are known on the host and
// the benchmark is deterministic (no capacity dropping, no atomics).
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <vector>
#include <thread>
#include <numeric>
#include <mutex>
#include <cuda_runtime.h>
#include <nccl.h>

namespace moe {
constexpr int kTokensPerRank = 4096;
constexpr int kHidden = 1024;
constexpr int kExpertsPerRank = 2;
constexpr int kWarmup = 5;
constexpr int kIters = 40;
constexpr int kThreads = 256;
}  // namespace moe

static std::mutex g_print_mu;

static void cuda_check(cudaError_t e, const char* expr, const char* file, int line) {
  if (e != cudaSuccess) {
    fprintf(stderr, "%s:%d: %s failed: %s\n", file, line, expr, cudaGetErrorString(e));
    std::exit(1);
  }
}
static void nccl_check(ncclResult_t r, const char* expr, const char* file, int line) {
  if (r != ncclSuccess) {
    fprintf(stderr, "%s:%d: %s failed: %s\n", file, line, expr, ncclGetErrorString(r));
    std::exit(1);
  }
}
#define CU(x) cuda_check((x), #x, __FILE__, __LINE__)
#define NC(x) nccl_check((x), #x, __FILE__, __LINE__)

// global expert id of token t on rank r
static inline int route(int r, int t, int num_experts) {
  uint32_t h = (uint32_t)(r * 1000003 + t) * 2654435761u;
  h ^= h >> 16;
  return (int)(h % (uint32_t)num_experts);
}

struct Plan {
  std::vector<int> perm;          // token -> row in the send buffer
  std::vector<size_t> send_cnt;   // rows to each peer
  std::vector<size_t> send_off;
  std::vector<size_t> recv_cnt;   // rows from each peer
  std::vector<size_t> recv_off;
  std::vector<int> recv_expert;   // local expert of each received row
  size_t recv_rows = 0;
};

static Plan make_plan(int rank, int world) {
  using namespace moe;
  const int E = world * kExpertsPerRank;
  Plan p;
  p.send_cnt.assign(world, 0);
  p.recv_cnt.assign(world, 0);
  // rows for each (dest rank, local expert), sorted by global expert
  std::vector<size_t> per_expert(E, 0);
  for (int t = 0; t < kTokensPerRank; ++t) per_expert[route(rank, t, E)]++;
  std::vector<size_t> expert_off(E, 0);
  for (int e = 1; e < E; ++e) expert_off[e] = expert_off[e - 1] + per_expert[e - 1];
  p.perm.resize(kTokensPerRank);
  std::vector<size_t> cursor = expert_off;
  for (int t = 0; t < kTokensPerRank; ++t) p.perm[t] = (int)cursor[route(rank, t, E)]++;
  for (int e = 0; e < E; ++e) p.send_cnt[e / kExpertsPerRank] += per_expert[e];
  p.send_off.assign(world, 0);
  for (int q = 1; q < world; ++q) p.send_off[q] = p.send_off[q - 1] + p.send_cnt[q - 1];
  // what the others send to me, in source order, each source's rows sorted by my local expert
  for (int src = 0; src < world; ++src) {
    std::vector<size_t> cnt(kExpertsPerRank, 0);
    for (int t = 0; t < kTokensPerRank; ++t) {
      int e = route(src, t, E);
      if (e / kExpertsPerRank == rank) cnt[e % kExpertsPerRank]++;
    }
    for (int le = 0; le < kExpertsPerRank; ++le) {
      p.recv_cnt[src] += cnt[le];
      p.recv_expert.insert(p.recv_expert.end(), cnt[le], le);
    }
  }
  p.recv_off.assign(world, 0);
  for (int q = 1; q < world; ++q) p.recv_off[q] = p.recv_off[q - 1] + p.recv_cnt[q - 1];
  p.recv_rows = std::accumulate(p.recv_cnt.begin(), p.recv_cnt.end(), (size_t)0);
  return p;
}

// dst[perm[t], :] = src[t, :]
__global__ void permute_rows(const float* __restrict__ src, const int* __restrict__ perm,
                             float* __restrict__ dst, int rows, int hidden) {
  for (int t = blockIdx.x; t < rows; t += gridDim.x) {
    const int d = perm[t];
    for (int h = threadIdx.x; h < hidden; h += blockDim.x)
      dst[(size_t)d * hidden + h] = src[(size_t)t * hidden + h];
  }
}

// dst[t, :] = src[perm[t], :]
__global__ void unpermute_rows(const float* __restrict__ src, const int* __restrict__ perm,
                               float* __restrict__ dst, int rows, int hidden) {
  for (int t = blockIdx.x; t < rows; t += gridDim.x) {
    const int s = perm[t];
    for (int h = threadIdx.x; h < hidden; h += blockDim.x)
      dst[(size_t)t * hidden + h] = src[(size_t)s * hidden + h];
  }
}

// toy expert: y = relu(x * gain[e] + bias[e])
__global__ void expert_ffn(const float* __restrict__ x, const int* __restrict__ expert_of_row,
                           const float* __restrict__ gain, const float* __restrict__ bias,
                           float* __restrict__ y, int rows, int hidden) {
  for (int r = blockIdx.x; r < rows; r += gridDim.x) {
    const int e = expert_of_row[r];
    for (int h = threadIdx.x; h < hidden; h += blockDim.x) {
      float v = x[(size_t)r * hidden + h] * gain[e * hidden + h] + bias[e * hidden + h];
      y[(size_t)r * hidden + h] = v > 0.f ? v : 0.f;
    }
  }
}

__global__ void init_tokens(float* x, size_t n, int rank) {
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i < n) x[i] = (float)((i * 131 + rank * 17) % 1000) / 500.0f - 1.0f;
}

static void all_to_all(const float* send, float* recv, const Plan& p, int world, ncclComm_t comm,
                       cudaStream_t stream) {
  using moe::kHidden;
  NC(ncclGroupStart());
  for (int peer = 0; peer < world; ++peer) {
    NC(ncclSend(send + p.send_off[peer] * kHidden, p.send_cnt[peer] * kHidden, ncclFloat, peer, comm, stream));
    NC(ncclRecv(recv + p.recv_off[peer] * kHidden, p.recv_cnt[peer] * kHidden, ncclFloat, peer, comm, stream));
  }
  NC(ncclGroupEnd());
}

// the reverse exchange: what I received from peer goes back to peer
static void all_to_all_back(const float* send, float* recv, const Plan& p, int world, ncclComm_t comm,
                            cudaStream_t stream) {
  using moe::kHidden;
  NC(ncclGroupStart());
  for (int peer = 0; peer < world; ++peer) {
    NC(ncclSend(send + p.recv_off[peer] * kHidden, p.recv_cnt[peer] * kHidden, ncclFloat, peer, comm, stream));
    NC(ncclRecv(recv + p.send_off[peer] * kHidden, p.send_cnt[peer] * kHidden, ncclFloat, peer, comm, stream));
  }
  NC(ncclGroupEnd());
}

static void worker(int rank, int world, ncclUniqueId id) {
  using namespace moe;
  CU(cudaSetDevice(rank));
  ncclComm_t comm;
  NC(ncclCommInitRank(&comm, world, id, rank));
  cudaStream_t stream;
  CU(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

  const Plan plan = make_plan(rank, world);
  const size_t tok_elems = (size_t)kTokensPerRank * kHidden;
  const size_t recv_elems = plan.recv_rows * kHidden;

  float *d_tokens, *d_send, *d_recv, *d_expert_out, *d_back, *d_out, *d_gain, *d_bias;
  int *d_perm, *d_recv_expert;
  CU(cudaMalloc(&d_tokens, tok_elems * sizeof(float)));
  CU(cudaMalloc(&d_send, tok_elems * sizeof(float)));
  CU(cudaMalloc(&d_recv, recv_elems * sizeof(float)));
  CU(cudaMalloc(&d_expert_out, recv_elems * sizeof(float)));
  CU(cudaMalloc(&d_back, tok_elems * sizeof(float)));
  CU(cudaMalloc(&d_out, tok_elems * sizeof(float)));
  CU(cudaMalloc(&d_gain, (size_t)kExpertsPerRank * kHidden * sizeof(float)));
  CU(cudaMalloc(&d_bias, (size_t)kExpertsPerRank * kHidden * sizeof(float)));
  CU(cudaMalloc(&d_perm, kTokensPerRank * sizeof(int)));
  CU(cudaMalloc(&d_recv_expert, (plan.recv_rows ? plan.recv_rows : 1) * sizeof(int)));

  std::vector<float> h_gain(kExpertsPerRank * kHidden), h_bias(kExpertsPerRank * kHidden);
  for (int e = 0; e < kExpertsPerRank; ++e)
    for (int h = 0; h < kHidden; ++h) {
      const int ge = rank * kExpertsPerRank + e;
      h_gain[e * kHidden + h] = 0.5f + 0.01f * ((ge * 37 + h) % 50);
      h_bias[e * kHidden + h] = 0.001f * ((ge * 11 + h) % 20) - 0.01f;
    }
  CU(cudaMemcpyAsync(d_gain, h_gain.data(), h_gain.size() * sizeof(float), cudaMemcpyHostToDevice, stream));
  CU(cudaMemcpyAsync(d_bias, h_bias.data(), h_bias.size() * sizeof(float), cudaMemcpyHostToDevice, stream));
  CU(cudaMemcpyAsync(d_perm, plan.perm.data(), plan.perm.size() * sizeof(int), cudaMemcpyHostToDevice, stream));
  if (plan.recv_rows)
    CU(cudaMemcpyAsync(d_recv_expert, plan.recv_expert.data(), plan.recv_rows * sizeof(int),
                       cudaMemcpyHostToDevice, stream));
  init_tokens<<<(unsigned)((tok_elems + kThreads - 1) / kThreads), kThreads, 0, stream>>>(d_tokens, tok_elems, rank);
  CU(cudaStreamSynchronize(stream));

  cudaEvent_t ev0, ev1;
  CU(cudaEventCreate(&ev0));
  CU(cudaEventCreate(&ev1));
  const int grid = 1024;
  for (int i = 0; i < kWarmup + kIters; ++i) {
    if (i == kWarmup) CU(cudaEventRecord(ev0, stream));
    permute_rows<<<grid, kThreads, 0, stream>>>(d_tokens, d_perm, d_send, kTokensPerRank, kHidden);
    all_to_all(d_send, d_recv, plan, world, comm, stream);
    expert_ffn<<<grid, kThreads, 0, stream>>>(d_recv, d_recv_expert, d_gain, d_bias, d_expert_out,
                                             (int)plan.recv_rows, kHidden);
    all_to_all_back(d_expert_out, d_back, plan, world, comm, stream);
    unpermute_rows<<<grid, kThreads, 0, stream>>>(d_back, d_perm, d_out, kTokensPerRank, kHidden);
  }
  CU(cudaEventRecord(ev1, stream));
  CU(cudaEventSynchronize(ev1));
  float ms = 0.f;
  CU(cudaEventElapsedTime(&ms, ev0, ev1));

  std::vector<float> h_out(tok_elems);
  CU(cudaMemcpy(h_out.data(), d_out, tok_elems * sizeof(float), cudaMemcpyDeviceToHost));
  double sum = 0.0;
  for (float v : h_out) sum += v;
  {
    std::lock_guard<std::mutex> lk(g_print_mu);
    printf("[gpu %d] recv rows %zu  %.3f ms/iter  checksum %.6f\n", rank, plan.recv_rows, ms / kIters, sum);
  }

  cudaFree(d_tokens); cudaFree(d_send); cudaFree(d_recv); cudaFree(d_expert_out);
  cudaFree(d_back); cudaFree(d_out); cudaFree(d_gain); cudaFree(d_bias);
  cudaFree(d_perm); cudaFree(d_recv_expert);
  cudaEventDestroy(ev0); cudaEventDestroy(ev1);
  cudaStreamDestroy(stream);
  ncclCommDestroy(comm);
}

int main() {
  int ngpu = 0;
  CU(cudaGetDeviceCount(&ngpu));
  ncclUniqueId id;
  NC(ncclGetUniqueId(&id));
  printf("MoE all-to-all: %d GPUs, %d tokens/GPU, hidden %d, %d experts/GPU\n", ngpu,
         moe::kTokensPerRank, moe::kHidden, moe::kExpertsPerRank);
  std::vector<std::thread> threads;
  threads.reserve(ngpu);
  for (int r = 0; r < ngpu; ++r) threads.emplace_back(worker, r, ngpu, id);
  for (auto& t : threads) t.join();
  return 0;
}
