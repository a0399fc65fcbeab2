#include "moe.h"

#include <cmath>
#include <vector>

#include "utils.h"

// Top-1 routing: argmax over the expert logits, gate = softmax probability of that expert.
__global__ void route_kernel(const float* logits, int tokens, int num_experts, int* expert_idx, float* gate) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= tokens) return;
  const float* row = logits + (size_t)t * num_experts;
  int best = 0;
  for (int e = 1; e < num_experts; ++e)
    if (row[e] > row[best]) best = e;
  float denom = 0.f;
  for (int e = 0; e < num_experts; ++e) denom += expf(row[e] - row[best]);
  expert_idx[t] = best;
  gate[t] = 1.f / denom;
}

// One block per token: claim a slot in the chosen expert's bucket and copy the row there.
__global__ void dispatch_kernel(const float* x, const int* expert_idx, int* counts, int* slot, float* send_buf,
                                int hidden, int capacity) {
  __shared__ int pos;
  const int t = blockIdx.x;
  const int e = expert_idx[t];
  if (threadIdx.x == 0) pos = atomicAdd(&counts[e], 1);
  __syncthreads();
  if (pos >= capacity) {
    if (threadIdx.x == 0) slot[t] = -1;
    return;
  }
  const int row = e * capacity + pos;
  if (threadIdx.x == 0) slot[t] = row;
  for (int i = threadIdx.x; i < hidden; i += blockDim.x)
    send_buf[(size_t)row * hidden + i] = x[(size_t)t * hidden + i];
}

__global__ void relu_kernel(float* v, size_t n) {
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i < n) v[i] = fmaxf(v[i], 0.f);
}

// y = x + gate * expert output (dropped tokens pass through).
__global__ void combine_kernel(const float* x, const float* combine_buf, const int* slot, const float* gate,
                               float* y, int hidden) {
  const int t = blockIdx.x;
  const int row = slot[t];
  for (int i = threadIdx.x; i < hidden; i += blockDim.x) {
    float v = x[(size_t)t * hidden + i];
    if (row >= 0) v += gate[t] * combine_buf[(size_t)row * hidden + i];
    y[(size_t)t * hidden + i] = v;
  }
}

static float* device_random(size_t n, uint64_t seed, float scale) {
  std::vector<float> host(n);
  fill_uniform(host.data(), n, seed, scale);
  float* d;
  CUDACHECK(cudaMalloc(&d, n * sizeof(float)));
  CUDACHECK(cudaMemcpy(d, host.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  return d;
}

template <typename T>
static T* device_alloc(size_t n) {
  T* d;
  CUDACHECK(cudaMalloc(&d, n * sizeof(T)));
  return d;
}

void moe_alloc(MoeBuffers* b, const MoeShape& s, int rank, int world) {
  const int num_experts = s.experts_per_rank * world;
  const size_t slots = (size_t)world * s.experts_per_rank * s.capacity;
  b->x = device_random((size_t)s.tokens * s.hidden, 7 + rank, 1.f);
  b->w_router = device_random((size_t)s.hidden * num_experts, 99, 1.f / sqrtf(s.hidden));
  b->w1 = device_random((size_t)s.experts_per_rank * s.hidden * s.ffn, 1000 + rank, 1.f / sqrtf(s.hidden));
  b->w2 = device_random((size_t)s.experts_per_rank * s.ffn * s.hidden, 2000 + rank, 1.f / sqrtf(s.ffn));
  b->logits = device_alloc<float>((size_t)s.tokens * num_experts);
  b->expert_idx = device_alloc<int>(s.tokens);
  b->gate = device_alloc<float>(s.tokens);
  b->slot = device_alloc<int>(s.tokens);
  b->counts = device_alloc<int>(num_experts);
  b->send_buf = device_alloc<float>(slots * s.hidden);
  b->recv_buf = device_alloc<float>(slots * s.hidden);
  b->h = device_alloc<float>(slots * s.ffn);
  b->expert_out = device_alloc<float>(slots * s.hidden);
  b->combine_buf = device_alloc<float>(slots * s.hidden);
  b->y = device_alloc<float>((size_t)s.tokens * s.hidden);
}

void moe_free(MoeBuffers* b) {
  void* all[] = {b->x, b->w_router, b->w1, b->w2, b->logits, b->expert_idx, b->gate, b->slot, b->counts,
                 b->send_buf, b->recv_buf, b->h, b->expert_out, b->combine_buf, b->y};
  for (void* p : all) CUDACHECK(cudaFree(p));
}

// The same chunk size goes to and comes from every peer (fixed capacity).
static void all_to_all(const float* send, float* recv, size_t chunk, int world, ncclComm_t comm, cudaStream_t stream) {
  NCCLCHECK(ncclGroupStart());
  for (int peer = 0; peer < world; ++peer) {
    NCCLCHECK(ncclSend(send + peer * chunk, chunk, ncclFloat, peer, comm, stream));
    NCCLCHECK(ncclRecv(recv + peer * chunk, chunk, ncclFloat, peer, comm, stream));
  }
  NCCLCHECK(ncclGroupEnd());
}

// Each local expert runs on its rows from every source rank: a batched GEMM over the sources.
static void expert_ffn(const MoeShape& s, MoeBuffers& b, int world, cublasHandle_t blas, cudaStream_t stream) {
  const float one = 1.f, zero = 0.f;
  const int C = s.capacity, H = s.hidden, F = s.ffn;
  const long long in_stride = (long long)s.experts_per_rank * C * H;
  const long long h_stride = (long long)s.experts_per_rank * C * F;
  for (int e = 0; e < s.experts_per_rank; ++e) {
    // h[p][e] = recv[p][e] (C x H) * w1[e] (H x F), row-major via column-major C^T = B^T A^T
    CUBLASCHECK(cublasSgemmStridedBatched(blas, CUBLAS_OP_N, CUBLAS_OP_N, F, C, H, &one,
                                          b.w1 + (size_t)e * H * F, F, 0,
                                          b.recv_buf + (size_t)e * C * H, H, in_stride, &zero,
                                          b.h + (size_t)e * C * F, F, h_stride, world));
  }
  const size_t h_elems = (size_t)world * s.experts_per_rank * C * F;
  relu_kernel<<<(unsigned)((h_elems + 255) / 256), 256, 0, stream>>>(b.h, h_elems);
  for (int e = 0; e < s.experts_per_rank; ++e) {
    CUBLASCHECK(cublasSgemmStridedBatched(blas, CUBLAS_OP_N, CUBLAS_OP_N, H, C, F, &one,
                                          b.w2 + (size_t)e * F * H, H, 0,
                                          b.h + (size_t)e * C * F, F, h_stride, &zero,
                                          b.expert_out + (size_t)e * C * H, H, in_stride, world));
  }
}

void moe_forward(const MoeShape& s, MoeBuffers& b, int world, cublasHandle_t blas, ncclComm_t comm,
                 cudaStream_t stream) {
  const int num_experts = s.experts_per_rank * world;
  const size_t chunk = (size_t)s.experts_per_rank * s.capacity * s.hidden;  // per peer
  const float one = 1.f, zero = 0.f;
  // Router: logits[tokens][num_experts] = x * w_router.
  CUBLASCHECK(cublasSgemm(blas, CUBLAS_OP_N, CUBLAS_OP_N, num_experts, s.tokens, s.hidden, &one, b.w_router,
                          num_experts, b.x, s.hidden, &zero, b.logits, num_experts));
  route_kernel<<<(s.tokens + 127) / 128, 128, 0, stream>>>(b.logits, s.tokens, num_experts, b.expert_idx, b.gate);
  CUDACHECK(cudaMemsetAsync(b.counts, 0, num_experts * sizeof(int), stream));
  CUDACHECK(cudaMemsetAsync(b.send_buf, 0, world * chunk * sizeof(float), stream));
  dispatch_kernel<<<s.tokens, 128, 0, stream>>>(b.x, b.expert_idx, b.counts, b.slot, b.send_buf, s.hidden,
                                                s.capacity);
  all_to_all(b.send_buf, b.recv_buf, chunk, world, comm, stream);      // dispatch
  expert_ffn(s, b, world, blas, stream);
  all_to_all(b.expert_out, b.combine_buf, chunk, world, comm, stream);  // combine
  combine_kernel<<<s.tokens, 128, 0, stream>>>(b.x, b.combine_buf, b.slot, b.gate, b.y, s.hidden);
}
