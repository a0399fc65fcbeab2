// Context-parallel ring attention (forward, no causal mask, online softmax).
// Each rank owns a contiguous chunk of the sequence for Q, K and V.  K/V chunks
// are passed around the ring; at every step we compute S = Q K^T for the chunk we
// currently hold and fold it into a running (max, sum, out) accumulator.
//
// build: nvcc -O2 -std=c++17 -arch=sm_90 $(mpicc --showme:compile) ring_attention.cu -o ring_attn -lnccl -lcublas -lmpi
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <vector>
#include <utility>
#include <mpi.h>
#include <cuda_runtime.h>
#include <cublas_v2.h>
#include <nccl.h>

#define ITERS 20
#define WARMUP 3

#define CUDA_CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  fprintf(stderr, "CUDA %s at %s:%d\n", cudaGetErrorString(e_), __FILE__, __LINE__); MPI_Abort(MPI_COMM_WORLD, 1);} } while (0)
#define NCCL_CHECK(x) do { ncclResult_t r_ = (x); if (r_ != ncclSuccess) { \
  fprintf(stderr, "NCCL %s at %s:%d\n", ncclGetErrorString(r_), __FILE__, __LINE__); MPI_Abort(MPI_COMM_WORLD, 1);} } while (0)
#define CUBLAS_CHECK(x) do { cublasStatus_t s_ = (x); if (s_ != CUBLAS_STATUS_SUCCESS) { \
  fprintf(stderr, "cuBLAS %d at %s:%d\n", (int)s_, __FILE__, __LINE__); MPI_Abort(MPI_COMM_WORLD, 1);} } while (0)

static const int kSeqPerRank = 512;   // local sequence chunk
static const int kHeadDim = 64;

// scores: [Sq x Sk] row-major (computed column-major by cublas as Sk x Sq)
// Online softmax update: for each query row, fold the new block of scores into
// running max m, running denominator l, and rescale the partial output o.
__global__ void online_softmax_update(const float* __restrict__ scores, const float* __restrict__ v,
                                      float* __restrict__ m, float* __restrict__ l,
                                      float* __restrict__ o, int sq, int sk, int d, float scale)
{
  int row = blockIdx.x;
  if (row >= sq) return;
  const float* s = scores + (size_t)row * sk;
  __shared__ float red[256];
  __shared__ float s_mnew, s_alpha, s_bsum;

  float lmax = -INFINITY;
  for (int j = threadIdx.x; j < sk; j += blockDim.x) lmax = fmaxf(lmax, s[j] * scale);
  red[threadIdx.x] = lmax;
  __syncthreads();
  for (int st = blockDim.x / 2; st > 0; st >>= 1) {
    if (threadIdx.x < st) red[threadIdx.x] = fmaxf(red[threadIdx.x], red[threadIdx.x + st]);
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    float mold = m[row];
    float mnew = fmaxf(mold, red[0]);
    s_mnew = mnew;
    s_alpha = (mold == -INFINITY) ? 0.f : __expf(mold - mnew);
  }
  __syncthreads();
  float mnew = s_mnew;

  float lsum = 0.f;
  for (int j = threadIdx.x; j < sk; j += blockDim.x) lsum += __expf(s[j] * scale - mnew);
  red[threadIdx.x] = lsum;
  __syncthreads();
  for (int st = blockDim.x / 2; st > 0; st >>= 1) {
    if (threadIdx.x < st) red[threadIdx.x] += red[threadIdx.x + st];
    __syncthreads();
  }
  if (threadIdx.x == 0) s_bsum = red[0];
  __syncthreads();

  float alpha = s_alpha;
  for (int c = threadIdx.x; c < d; c += blockDim.x) {
    float acc = 0.f;
    for (int j = 0; j < sk; ++j) acc += __expf(s[j] * scale - mnew) * v[(size_t)j * d + c];
    o[(size_t)row * d + c] = o[(size_t)row * d + c] * alpha + acc;
  }
  if (threadIdx.x == 0) {
    l[row] = l[row] * alpha + s_bsum;
    m[row] = mnew;
  }
}

__global__ void reset_state(float* m, float* l, float* o, int sq, int d)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < sq) { m[i] = -INFINITY; l[i] = 0.f; }
  if (i < sq * d) o[i] = 0.f;
}

__global__ void finalize(const float* o, const float* l, float* out, int sq, int d)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < sq * d) out[i] = o[i] / l[i / d];
}

static void fill(std::vector<float>& h, unsigned seed)
{
  srand(seed);
  for (auto& x : h) x = (rand() / (float)RAND_MAX - 0.5f) * 0.2f;
}

int main(int argc, char** argv)
{
  MPI_Init(&argc, &argv);
  int rank, nranks;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);

  int ndev = 0;
  CUDA_CHECK(cudaGetDeviceCount(&ndev));
  CUDA_CHECK(cudaSetDevice(rank % ndev));

  ncclUniqueId id;
  if (rank == 0) NCCL_CHECK(ncclGetUniqueId(&id));
  MPI_Bcast(&id, sizeof(id), MPI_BYTE, 0, MPI_COMM_WORLD);
  ncclComm_t comm;
  NCCL_CHECK(ncclCommInitRank(&comm, nranks, id, rank));

  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cublasHandle_t blas;
  CUBLAS_CHECK(cublasCreate(&blas));
  CUBLAS_CHECK(cublasSetStream(blas, stream));

  const int S = kSeqPerRank, D = kHeadDim;
  const size_t qkv_elems = (size_t)S * D;

  float *q, *k_cur, *v_cur, *k_nxt, *v_nxt, *scores, *m, *l, *o, *out;
  CUDA_CHECK(cudaMalloc(&q, qkv_elems * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&k_cur, qkv_elems * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&v_cur, qkv_elems * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&k_nxt, qkv_elems * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&v_nxt, qkv_elems * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&scores, (size_t)S * S * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&m, S * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&l, S * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&o, qkv_elems * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&out, qkv_elems * sizeof(float)));

  // local K/V, kept pristine so every iteration restarts the ring from our own chunk
  float *k_local, *v_local;
  CUDA_CHECK(cudaMalloc(&k_local, qkv_elems * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&v_local, qkv_elems * sizeof(float)));

  {
    std::vector<float> h(qkv_elems);
    fill(h, 1000 + rank); CUDA_CHECK(cudaMemcpy(q, h.data(), qkv_elems * sizeof(float), cudaMemcpyHostToDevice));
    fill(h, 2000 + rank); CUDA_CHECK(cudaMemcpy(k_local, h.data(), qkv_elems * sizeof(float), cudaMemcpyHostToDevice));
    fill(h, 3000 + rank); CUDA_CHECK(cudaMemcpy(v_local, h.data(), qkv_elems * sizeof(float), cudaMemcpyHostToDevice));
  }

  const int next = (rank + 1) % nranks;
  const int prev = (rank - 1 + nranks) % nranks;
  const float scale = 1.0f / sqrtf((float)D);
  const float one = 1.f, zero = 0.f;

  cudaEvent_t t0, t1;
  CUDA_CHECK(cudaEventCreate(&t0));
  CUDA_CHECK(cudaEventCreate(&t1));

  for (int it = 0; it < WARMUP + ITERS; ++it) {
    if (it == WARMUP) {
      CUDA_CHECK(cudaStreamSynchronize(stream));
      MPI_Barrier(MPI_COMM_WORLD);
      CUDA_CHECK(cudaEventRecord(t0, stream));
    }
    CUDA_CHECK(cudaMemcpyAsync(k_cur, k_local, qkv_elems * sizeof(float), cudaMemcpyDeviceToDevice, stream));
    CUDA_CHECK(cudaMemcpyAsync(v_cur, v_local, qkv_elems * sizeof(float), cudaMemcpyDeviceToDevice, stream));
    reset_state<<<(S * D + 255) / 256, 256, 0, stream>>>(m, l, o, S, D);

    for (int step = 0; step < nranks; ++step) {
      // kick off the transfer of the next K/V block before computing on the current one
      if (step + 1 < nranks) {
        NCCL_CHECK(ncclGroupStart());
        NCCL_CHECK(ncclSend(k_cur, qkv_elems, ncclFloat, next, comm, stream));
        NCCL_CHECK(ncclSend(v_cur, qkv_elems, ncclFloat, next, comm, stream));
        NCCL_CHECK(ncclRecv(k_nxt, qkv_elems, ncclFloat, prev, comm, stream));
        NCCL_CHECK(ncclRecv(v_nxt, qkv_elems, ncclFloat, prev, comm, stream));
        NCCL_CHECK(ncclGroupEnd());
      }
      // scores(row-major S x S) = Q K^T  <=>  col-major (S x S) = K * Q^T with K,Q col-major D x S
      CUBLAS_CHECK(cublasSgemm(blas, CUBLAS_OP_T, CUBLAS_OP_N, S, S, D, &one,
                               k_cur, D, q, D, &zero, scores, S));
      online_softmax_update<<<S, 256, 0, stream>>>(scores, v_cur, m, l, o, S, S, D, scale);
      if (step + 1 < nranks) {
        std::swap(k_cur, k_nxt);
        std::swap(v_cur, v_nxt);
      }
    }
    finalize<<<(S * D + 255) / 256, 256, 0, stream>>>(o, l, out, S, D);
  }
  CUDA_CHECK(cudaEventRecord(t1, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
  float ms = 0.f;
  CUDA_CHECK(cudaEventElapsedTime(&ms, t0, t1));

  std::vector<float> h_out(qkv_elems);
  CUDA_CHECK(cudaMemcpy(h_out.data(), out, qkv_elems * sizeof(float), cudaMemcpyDeviceToHost));
  double local = 0.0, global = 0.0;
  for (float x : h_out) local += x;
  MPI_Reduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0)
    printf("ring attention: ranks=%d seq/rank=%d d=%d  %.3f ms/iter  checksum=%.6f\n",
           nranks, S, D, ms / ITERS, global);

  cudaFree(q); cudaFree(k_cur); cudaFree(v_cur); cudaFree(k_nxt); cudaFree(v_nxt);
  cudaFree(k_local); cudaFree(v_local);
  cudaFree(scores); cudaFree(m); cudaFree(l); cudaFree(o); cudaFree(out);
  cublasDestroy(blas);
  ncclCommDestroy(comm);
  cudaStreamDestroy(stream);
  MPI_Finalize();
  return 0;
}
