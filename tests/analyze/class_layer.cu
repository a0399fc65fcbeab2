// A row-parallel layer as a class: its weights are members, its GEMM runs on the handle main gave
// a stream, and main's host vectors fill device buffers.
#include <cstdio>
#include <vector>
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <nccl.h>

class Layer {
 public:
  Layer(int in, int out) : in_(in), out_(out) {
    cudaMalloc(&w_, (size_t)in * out * sizeof(float));
    std::vector<float> h((size_t)in * out, 0.01f);
    cudaMemcpy(w_, h.data(), h.size() * sizeof(float), cudaMemcpyHostToDevice);
  }
  void forward(cublasHandle_t blas, ncclComm_t comm, cudaStream_t s, const float* x, float* y, int tokens) {
    const float one = 1.f, zero = 0.f;
    cublasSgemm(blas, CUBLAS_OP_N, CUBLAS_OP_N, out_, tokens, in_, &one, w_, out_, x, in_, &zero, y, out_);
    ncclAllReduce(y, y, (size_t)tokens * out_, ncclFloat, ncclSum, comm, s);
  }

 private:
  int in_, out_;
  float* w_ = nullptr;
};

int main() {
  const int tokens = 256, in = 1024, out = 1024;
  ncclUniqueId id;
  ncclGetUniqueId(&id);
  ncclComm_t comm;
  ncclCommInitRank(&comm, 1, id, 0);
  cudaStream_t stream;
  cudaStreamCreate(&stream);
  cublasHandle_t blas;
  cublasCreate(&blas);
  cublasSetStream(blas, stream);
  Layer layer(in, out);
  float *x, *y;
  cudaMalloc(&x, (size_t)tokens * in * sizeof(float));
  cudaMalloc(&y, (size_t)tokens * out * sizeof(float));
  std::vector<float> hx((size_t)tokens * in, 1.f);
  cudaMemcpy(x, hx.data(), hx.size() * sizeof(float), cudaMemcpyHostToDevice);
  for (int i = 0; i < 10; ++i) layer.forward(blas, comm, stream, x, y, tokens);
  std::vector<float> hy((size_t)tokens * out);
  cudaMemcpy(hy.data(), y, hy.size() * sizeof(float), cudaMemcpyDeviceToHost);
  printf("checksum %f\n", hy[0]);
  return 0;
}
