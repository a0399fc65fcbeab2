// A GEMM helper defined before main takes the cuBLAS handle as a parameter; main gives that handle
// its one stream, the stream the all-reduce runs on: the GEMM and the all-reduce are ordered by it.
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <nccl.h>

static void gemm(cublasHandle_t h, int n, const float* a, const float* b, float* c) {
  const float one = 1.f, zero = 0.f;
  cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, a, n, b, n, &zero, c, n);
}

int main() {
  const int n = 512;
  ncclUniqueId id;
  ncclComm_t comm;
  ncclGetUniqueId(&id);
  ncclCommInitRank(&comm, 1, id, 0);
  cudaStream_t stream;
  cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
  cublasHandle_t blas;
  cublasCreate(&blas);
  cublasSetStream(blas, stream);
  float *w, *x, *y;
  cudaMalloc(&w, (size_t)n * n * sizeof(float));
  cudaMalloc(&x, (size_t)n * n * sizeof(float));
  cudaMalloc(&y, (size_t)n * n * sizeof(float));
  for (int i = 0; i < 10; ++i) {
    gemm(blas, n, w, x, y);
    ncclAllReduce(y, y, (size_t)n * n, ncclFloat, ncclSum, comm, stream);
  }
  cudaStreamSynchronize(stream);
  return 0;
}
