// Data-parallel forward with one thread per GPU, as in the NCCL "one device per thread" example:
// each step copies the next host micro-batch to the GPU (plain cudaMemcpy), runs a bf16 cuBLASLt
// GEMM on the thread's stream, sums the outputs over the GPUs with ncclAllReduce and averages.
//   ./dp_threads [ngpus] [batch] [in] [out]
#include <cublasLt.h>
#include <cuda_bf16.h>

#include <cmath>
#include <thread>
#include <vector>

#include "utils.h"

#define NUM_BATCHES 4
#define STEPS 20

__global__ void average_kernel(const __nv_bfloat16* sum, float* avg, int n, float inv_world) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) avg[i] = __bfloat162float(sum[i]) * inv_world;
}

struct ThreadArgs {
  int rank, nranks;
  ncclUniqueId id;
  int batch, in_features, out_features;
  double checksum;
  float ms;
};

static void run_rank(ThreadArgs* a) {
  CUDACHECK(cudaSetDevice(a->rank));
  ncclComm_t comm;
  NCCLCHECK(ncclCommInitRank(&comm, a->nranks, a->id, a->rank));
  cudaStream_t s;
  CUDACHECK(cudaStreamCreate(&s));

  const size_t x_elems = (size_t)a->batch * a->in_features, w_elems = (size_t)a->in_features * a->out_features, y_elems = (size_t)a->batch * a->out_features;
  // The host side of the input pipeline: NUM_BATCHES micro-batches, different on every rank.
  std::vector<std::vector<__nv_bfloat16>> h_x(NUM_BATCHES, std::vector<__nv_bfloat16>(x_elems));
  std::vector<float> tmp(std::max(x_elems, w_elems));
  for (int b = 0; b < NUM_BATCHES; ++b) {
    fill_uniform(tmp.data(), x_elems, 1000 * a->rank + b, 1.f);
    for (size_t i = 0; i < x_elems; ++i) h_x[b][i] = __float2bfloat16(tmp[i]);
  }
  std::vector<__nv_bfloat16> h_w(w_elems);
  fill_uniform(tmp.data(), w_elems, 77, 1.f / sqrtf((float)a->in_features));  // replicated weights
  for (size_t i = 0; i < w_elems; ++i) h_w[i] = __float2bfloat16(tmp[i]);

  __nv_bfloat16 *d_x, *d_w, *d_y;
  float* d_avg;
  CUDACHECK(cudaMalloc(&d_x, x_elems * sizeof(__nv_bfloat16)));
  CUDACHECK(cudaMalloc(&d_w, w_elems * sizeof(__nv_bfloat16)));
  CUDACHECK(cudaMalloc(&d_y, y_elems * sizeof(__nv_bfloat16)));
  CUDACHECK(cudaMalloc(&d_avg, y_elems * sizeof(float)));
  CUDACHECK(cudaMemcpy(d_w, h_w.data(), w_elems * sizeof(__nv_bfloat16), cudaMemcpyHostToDevice));

  // Row-major y[batch][out] = x[batch][in] w[in][out], i.e. column-major y^T = w^T x^T.
  cublasLtHandle_t lt;
  CUBLASCHECK(cublasLtCreate(&lt));
  cublasLtMatmulDesc_t op;
  CUBLASCHECK(cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
  cublasLtMatrixLayout_t lw, lx, ly;
  CUBLASCHECK(cublasLtMatrixLayoutCreate(&lw, CUDA_R_16BF, a->out_features, a->in_features, a->out_features));
  CUBLASCHECK(cublasLtMatrixLayoutCreate(&lx, CUDA_R_16BF, a->in_features, a->batch, a->in_features));
  CUBLASCHECK(cublasLtMatrixLayoutCreate(&ly, CUDA_R_16BF, a->out_features, a->batch, a->out_features));
  const float alpha = 1.f, beta = 0.f;
  const int threads = 256, blocks = (int)((y_elems + threads - 1) / threads);

  cudaEvent_t start, stop;
  CUDACHECK(cudaEventCreate(&start));
  CUDACHECK(cudaEventCreate(&stop));
  for (int step = 0; step < STEPS + 1; ++step) {
    if (step == 1) CUDACHECK(cudaEventRecord(start, s));  // step 0 is warmup
    CUDACHECK(cudaMemcpy(d_x, h_x[step % NUM_BATCHES].data(), x_elems * sizeof(__nv_bfloat16), cudaMemcpyHostToDevice));
    CUBLASCHECK(cublasLtMatmul(lt, op, &alpha, d_w, lw, d_x, lx, &beta, d_y, ly, d_y, ly, nullptr, nullptr, 0, s));
    NCCLCHECK(ncclAllReduce(d_y, d_y, y_elems, ncclBfloat16, ncclSum, comm, s));
    average_kernel<<<blocks, threads, 0, s>>>(d_y, d_avg, (int)y_elems, 1.f / a->nranks);
  }
  CUDACHECK(cudaEventRecord(stop, s));
  CUDACHECK(cudaStreamSynchronize(s));
  CUDACHECK(cudaEventElapsedTime(&a->ms, start, stop));
  a->ms /= STEPS;

  std::vector<float> h_avg(y_elems);
  CUDACHECK(cudaMemcpy(h_avg.data(), d_avg, y_elems * sizeof(float), cudaMemcpyDeviceToHost));
  a->checksum = checksum(h_avg.data(), y_elems);

  cublasLtMatrixLayoutDestroy(lw);
  cublasLtMatrixLayoutDestroy(lx);
  cublasLtMatrixLayoutDestroy(ly);
  cublasLtMatmulDescDestroy(op);
  cublasLtDestroy(lt);
  CUDACHECK(cudaFree(d_x));
  CUDACHECK(cudaFree(d_w));
  CUDACHECK(cudaFree(d_y));
  CUDACHECK(cudaFree(d_avg));
  NCCLCHECK(ncclCommDestroy(comm));
}

int main(int argc, char* argv[]) {
  int nDev = 0;
  CUDACHECK(cudaGetDeviceCount(&nDev));
  if (argc > 1) nDev = atoi(argv[1]);
  const int batch = argc > 2 ? atoi(argv[2]) : 1024;
  const int in_features = argc > 3 ? atoi(argv[3]) : 2048;
  const int out_features = argc > 4 ? atoi(argv[4]) : 2048;

  ncclUniqueId id;
  NCCLCHECK(ncclGetUniqueId(&id));
  std::vector<ThreadArgs> args(nDev);
  std::vector<std::thread> pool;
  for (int r = 0; r < nDev; ++r) {
    args[r] = ThreadArgs{r, nDev, id, batch, in_features, out_features, 0.0, 0.f};
    pool.emplace_back(run_rank, &args[r]);
  }
  for (auto& t : pool) t.join();

  // Every rank holds the same average; they must agree.
  bool same = true;
  for (int r = 1; r < nDev; ++r) same = same && fabs(args[r].checksum - args[0].checksum) < 1e-6 * (1 + fabs(args[0].checksum));
  printf("dp_threads bf16: %d GPUs, batch %d, %d -> %d\n", nDev, batch, in_features, out_features);
  printf("checksum: %.6f (ranks %s)\n", args[0].checksum, same ? "agree" : "DISAGREE");
  printf("avg iteration time: %.3f ms\n", args[0].ms);
  return same ? 0 : 1;
}
