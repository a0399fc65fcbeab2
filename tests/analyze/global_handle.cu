// The communicator, stream and cuBLAS handle are globals that main sets up after the layer that
// uses them is defined: the GEMM runs on the stream main gives the handle. The kernel calls device
// builtins, which a host-only parse does not declare.
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <nccl.h>

static ncclComm_t g_comm;
static cudaStream_t g_stream;
static cublasHandle_t g_blas;

__global__ void softplus(float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = fmaxf(y[i], 0.f) + __logf(1.f + __expf(-fabsf(y[i])));
}

static void layer(const float* w, const float* x, float* y, int n) {
  const float one = 1.f, zero = 0.f;
  cublasSgemm(g_blas, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, w, n, x, n, &zero, y, n);
  ncclAllReduce(y, y, (size_t)n * n, ncclFloat, ncclSum, g_comm, g_stream);
  softplus<<<(n * n + 255) / 256, 256, 0, g_stream>>>(y, n * n);
}

int main() {
  const int n = 512;
  ncclUniqueId id;
  ncclGetUniqueId(&id);
  ncclCommInitRank(&g_comm, 1, id, 0);
  cudaStreamCreateWithFlags(&g_stream, cudaStreamNonBlocking);
  cublasCreate(&g_blas);
  cublasSetStream(g_blas, g_stream);
  float *w, *x, *y;
  cudaMalloc(&w, (size_t)n * n * sizeof(float));
  cudaMalloc(&x, (size_t)n * n * sizeof(float));
  cudaMalloc(&y, (size_t)n * n * sizeof(float));
  for (int i = 0; i < 10; ++i) layer(w, x, y, n);
  cudaStreamSynchronize(g_stream);
  return 0;
}
