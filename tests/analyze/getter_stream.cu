// A class keeping its communicator's stream, handed out by a getter (`link.stream()`, as
// NCCLOverlap's `comm->getStream()`): cuBLAS is set to that stream, and the class's own method
// all-reduces on its member, named with `this->`. The GEMM and the all-reduce are on one stream.
// `other` is a second stream the program makes: the kernel on it races with the all-reduce.
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <nccl.h>

class Link {
 public:
  cudaStream_t stream() const { return stream_; }
  void reduce(float* x, size_t n) { ncclAllReduce(x, x, n, ncclFloat, ncclSum, comm_, this->stream_); }

 private:
  ncclComm_t comm_;
  cudaStream_t stream_;
};

__global__ void bump(float* x) { x[threadIdx.x] += 1.0f; }

int main() {
  Link link;
  cublasHandle_t h;
  cublasCreate(&h);
  cublasSetStream(h, link.stream());
  float *a, *b, *c;
  cudaMalloc(&a, 64 * sizeof(float));
  cudaMalloc(&b, 64 * sizeof(float));
  cudaMalloc(&c, 64 * sizeof(float));
  cudaStream_t other;
  cudaStreamCreateWithFlags(&other, cudaStreamNonBlocking);
  const float one = 1.0f, zero = 0.0f;
  cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 8, 8, 8, &one, a, 8, b, 8, &zero, c, 8);
  link.reduce(c, 64);
  bump<<<1, 64, 0, other>>>(a);
  link.reduce(a, 64);
  return 0;
}
