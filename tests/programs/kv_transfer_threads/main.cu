// Disaggregated prefill/decode in one process, one thread per GPU: the first half of the GPUs
// run prefill (K/V projections of the prompt, layer by layer) and stream each layer's KV cache to
// their decode partner in the second half, which runs one decode attention step on it.
// With one GPU, the same GPU plays both roles (it sends the cache to itself).
//   ./kv_transfer [num_gpus] [batch] [prompt_len] [layers]
#include <cublas_v2.h>

#include <cmath>
#include <thread>
#include <vector>

#include "utils.h"

static const int kHidden = 1024;
static const int kHeadDim = 128;
static const int kHeads = 8;  // kv_dim = kHeads * kHeadDim
static const int kIters = 10;

struct Sizes {
  int batch, prompt_len, layers;
};

// One query per sequence and head attends over the prompt's keys/values:
// out[b][h][:] = softmax(q . K[b][:, h]) V[b][:, h]. One block per (b, h).
__global__ void decode_attention_kernel(const float* q, const float* k, const float* v, float* out, int prompt_len,
                                        int kv_dim) {
  extern __shared__ float scores[];
  const int b = blockIdx.x / kHeads, h = blockIdx.x % kHeads;
  const float* qh = q + (size_t)b * kv_dim + h * kHeadDim;
  for (int t = threadIdx.x; t < prompt_len; t += blockDim.x) {
    const float* kt = k + ((size_t)b * prompt_len + t) * kv_dim + h * kHeadDim;
    float s = 0.f;
    for (int d = 0; d < kHeadDim; ++d) s += qh[d] * kt[d];
    scores[t] = s * rsqrtf((float)kHeadDim);
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    float m = scores[0];
    for (int t = 1; t < prompt_len; ++t) m = fmaxf(m, scores[t]);
    float sum = 0.f;
    for (int t = 0; t < prompt_len; ++t) sum += (scores[t] = expf(scores[t] - m));
    for (int t = 0; t < prompt_len; ++t) scores[t] /= sum;
  }
  __syncthreads();
  for (int d = threadIdx.x; d < kHeadDim; d += blockDim.x) {
    float acc = 0.f;
    for (int t = 0; t < prompt_len; ++t) acc += scores[t] * v[((size_t)b * prompt_len + t) * kv_dim + h * kHeadDim + d];
    out[((size_t)blockIdx.x) * kHeadDim + d] = acc;
  }
}

static float* to_device(const std::vector<float>& host) {
  float* d;
  CUDACHECK(cudaMalloc(&d, host.size() * sizeof(float)));
  CUDACHECK(cudaMemcpy(d, host.data(), host.size() * sizeof(float), cudaMemcpyHostToDevice));
  return d;
}

static void worker(int rank, int world, ncclUniqueId id, Sizes sz, double* result, float* avg_ms) {
  CUDACHECK(cudaSetDevice(rank));
  ncclComm_t comm;
  NCCLCHECK(ncclCommInitRank(&comm, world, id, rank));
  cudaStream_t stream;
  CUDACHECK(cudaStreamCreate(&stream));
  cublasHandle_t blas;
  CUBLASCHECK(cublasCreate(&blas));
  CUBLASCHECK(cublasSetStream(blas, stream));

  const bool prefill = world == 1 || rank < world / 2;
  const bool decode = world == 1 || rank >= world / 2;
  const int kv_dim = kHeads * kHeadDim;
  const int rows = sz.batch * sz.prompt_len;
  const size_t layer_elems = (size_t)rows * kv_dim;  // one layer of K (or V)

  float *x = nullptr, *wk = nullptr, *wv = nullptr, *k_cache = nullptr, *v_cache = nullptr;
  float *q = nullptr, *k_recv = nullptr, *v_recv = nullptr, *attn_out = nullptr;
  if (prefill) {
    std::vector<float> hx((size_t)rows * kHidden), hw((size_t)sz.layers * kHidden * kv_dim);
    fill_uniform(hx.data(), hx.size(), 11 + rank, 1.f);
    x = to_device(hx);
    fill_uniform(hw.data(), hw.size(), 12, 1.f / sqrtf((float)kHidden));
    wk = to_device(hw);
    fill_uniform(hw.data(), hw.size(), 13, 1.f / sqrtf((float)kHidden));
    wv = to_device(hw);
    CUDACHECK(cudaMalloc(&k_cache, sz.layers * layer_elems * sizeof(float)));
    CUDACHECK(cudaMalloc(&v_cache, sz.layers * layer_elems * sizeof(float)));
  }
  if (decode) {
    std::vector<float> hq((size_t)sz.layers * sz.batch * kv_dim);
    fill_uniform(hq.data(), hq.size(), 14, 1.f);
    q = to_device(hq);
    CUDACHECK(cudaMalloc(&k_recv, sz.layers * layer_elems * sizeof(float)));
    CUDACHECK(cudaMalloc(&v_recv, sz.layers * layer_elems * sizeof(float)));
    CUDACHECK(cudaMalloc(&attn_out, (size_t)sz.layers * sz.batch * kv_dim * sizeof(float)));
  }

  auto step = [&]() {
    const float one = 1.f, zero = 0.f;
    for (int l = 0; l < sz.layers; ++l) {
      if (prefill) {  // K = x Wk[l], V = x Wv[l]   (row-major [rows][kv_dim])
        CUBLASCHECK(cublasSgemm(blas, CUBLAS_OP_N, CUBLAS_OP_N, kv_dim, rows, kHidden, &one,
                                wk + (size_t)l * kHidden * kv_dim, kv_dim, x, kHidden, &zero,
                                k_cache + l * layer_elems, kv_dim));
        CUBLASCHECK(cublasSgemm(blas, CUBLAS_OP_N, CUBLAS_OP_N, kv_dim, rows, kHidden, &one,
                                wv + (size_t)l * kHidden * kv_dim, kv_dim, x, kHidden, &zero,
                                v_cache + l * layer_elems, kv_dim));
      }
      NCCLCHECK(ncclGroupStart());
      if (prefill) {
        NCCLCHECK(ncclSend(k_cache + l * layer_elems, layer_elems, ncclFloat, world == 1 ? rank : rank + world / 2,
                           comm, stream));
        NCCLCHECK(ncclSend(v_cache + l * layer_elems, layer_elems, ncclFloat, world == 1 ? rank : rank + world / 2,
                           comm, stream));
      }
      if (decode) {
        NCCLCHECK(ncclRecv(k_recv + l * layer_elems, layer_elems, ncclFloat, world == 1 ? rank : rank - world / 2,
                           comm, stream));
        NCCLCHECK(ncclRecv(v_recv + l * layer_elems, layer_elems, ncclFloat, world == 1 ? rank : rank - world / 2,
                           comm, stream));
      }
      NCCLCHECK(ncclGroupEnd());
    }
    if (decode) {
      for (int l = 0; l < sz.layers; ++l)
        decode_attention_kernel<<<sz.batch * kHeads, 128, sz.prompt_len * sizeof(float), stream>>>(
            q + (size_t)l * sz.batch * kv_dim, k_recv + l * layer_elems, v_recv + l * layer_elems,
            attn_out + (size_t)l * sz.batch * kv_dim, sz.prompt_len, kv_dim);
    }
  };

  step();  // warmup
  cudaEvent_t start, stop;
  CUDACHECK(cudaEventCreate(&start));
  CUDACHECK(cudaEventCreate(&stop));
  CUDACHECK(cudaEventRecord(start, stream));
  for (int i = 0; i < kIters; ++i) step();
  CUDACHECK(cudaEventRecord(stop, stream));
  CUDACHECK(cudaEventSynchronize(stop));
  CUDACHECK(cudaEventElapsedTime(avg_ms, start, stop));
  *avg_ms /= kIters;

  *result = 0;
  if (decode) {
    std::vector<float> out((size_t)sz.layers * sz.batch * kv_dim);
    CUDACHECK(cudaMemcpy(out.data(), attn_out, out.size() * sizeof(float), cudaMemcpyDeviceToHost));
    *result = checksum(out.data(), out.size());
  }
  for (float* p : {x, wk, wv, k_cache, v_cache, q, k_recv, v_recv, attn_out})
    if (p) CUDACHECK(cudaFree(p));
  CUBLASCHECK(cublasDestroy(blas));
  NCCLCHECK(ncclCommDestroy(comm));
}

int main(int argc, char** argv) {
  int ndev = 0;
  CUDACHECK(cudaGetDeviceCount(&ndev));
  const int world = argc > 1 ? atoi(argv[1]) : ndev;
  Sizes sz;
  sz.batch = argc > 2 ? atoi(argv[2]) : 8;
  sz.prompt_len = argc > 3 ? atoi(argv[3]) : 512;
  sz.layers = argc > 4 ? atoi(argv[4]) : 4;
  if (world > ndev || (world > 1 && world % 2 != 0)) {
    fprintf(stderr, "need 1 or an even number of GPUs (asked %d, have %d)\n", world, ndev);
    return 1;
  }
  ncclUniqueId id;
  NCCLCHECK(ncclGetUniqueId(&id));
  std::vector<double> results(world);
  std::vector<float> times(world);
  std::vector<std::thread> threads;
  for (int r = 0; r < world; ++r) threads.emplace_back(worker, r, world, id, sz, &results[r], &times[r]);
  for (auto& t : threads) t.join();

  double total = 0;
  for (double v : results) total += v;
  printf("kv_transfer: %d GPUs, batch=%d prompt_len=%d layers=%d\n", world, sz.batch, sz.prompt_len, sz.layers);
  printf("checksum: %.6f\n", total);
  printf("avg iteration time: %.3f ms\n", times[0]);
  return 0;
}
