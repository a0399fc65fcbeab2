// A layer whose constructor keeps the stream it is given in a member and gives its cuBLAS handle the
// same stream by the parameter's name: in forward, the GEMM's stream `st` names nothing (the
// constructor's parameter), so no race with the all-reduce on the member `stream` is claimed.
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <nccl.h>

struct Layer {
  cudaStream_t stream;
  cublasHandle_t blas;
  float *x, *y;
  int n;
  Layer(int n_, cudaStream_t st) : n(n_) {
    stream = st;
    cublasCreate(&blas);
    cublasSetStream(blas, st);
    cudaMalloc(&x, (size_t)n * sizeof(float));
    cudaMalloc(&y, (size_t)n * sizeof(float));
  }
  void forward(ncclComm_t comm) {
    const float w = 0.5f;
    cublasSaxpy(blas, n, &w, x, 1, y, 1);
    cudaStreamSynchronize(stream);
    ncclAllReduce(y, y, n, ncclFloat, ncclSum, comm, stream);
  }
};

int main() {
  ncclUniqueId id;
  ncclComm_t comm;
  ncclGetUniqueId(&id);
  ncclCommInitRank(&comm, 1, id, 0);
  cudaStream_t s;
  cudaStreamCreate(&s);
  Layer layer(1 << 20, s);
  for (int i = 0; i < 10; ++i) layer.forward(comm);
  cudaStreamSynchronize(s);
  return 0;
}
