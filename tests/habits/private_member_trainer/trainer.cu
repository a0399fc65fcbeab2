// Habit of data-parallel training stress programs (written here, not copied): one process drives
// every GPU through a trainer object whose device buffers are private members, one vector entry
// per GPU; main's loop only calls the object's step, which runs a GEMM, an all-reduce of the
// gradients in place and an axpy update of the weights on each GPU.
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <nccl.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CK_CUDA(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); std::exit(1); } } while (0)
#define CK_NCCL(x) do { ncclResult_t r_ = (x); if (r_ != ncclSuccess) { \
  std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, ncclGetErrorString(r_)); std::exit(1); } } while (0)

class Trainer {
 public:
  explicit Trainer(int n) : n_(n) {
    CK_CUDA(cudaGetDeviceCount(&gpus_));
    comms_.resize(gpus_);
    streams_.resize(gpus_);
    handles_.resize(gpus_);
    weights_.resize(gpus_);
    inputs_.resize(gpus_);
    grads_.resize(gpus_);
    CK_NCCL(ncclCommInitAll(comms_.data(), gpus_, nullptr));
    const size_t bytes = static_cast<size_t>(n) * n * sizeof(float);
    std::vector<float> h(static_cast<size_t>(n) * n, 0.01f);
    for (int g = 0; g < gpus_; ++g) {
      CK_CUDA(cudaSetDevice(g));
      CK_CUDA(cudaStreamCreate(&streams_[g]));
      cublasCreate(&handles_[g]);
      cublasSetStream(handles_[g], streams_[g]);
      CK_CUDA(cudaMalloc(&weights_[g], bytes));
      CK_CUDA(cudaMalloc(&inputs_[g], bytes));
      CK_CUDA(cudaMalloc(&grads_[g], bytes));
      CK_CUDA(cudaMemcpy(weights_[g], h.data(), bytes, cudaMemcpyHostToDevice));
      CK_CUDA(cudaMemcpy(inputs_[g], h.data(), bytes, cudaMemcpyHostToDevice));
    }
  }
  void step() {
    const float one = 1.f, zero = 0.f, rate = -0.001f;
    for (int g = 0; g < gpus_; ++g) {
      CK_CUDA(cudaSetDevice(g));
      cublasSgemm(handles_[g], CUBLAS_OP_N, CUBLAS_OP_N, n_, n_, n_, &one, weights_[g], n_, inputs_[g], n_, &zero,
                  grads_[g], n_);
    }
    allReduceGradients();
    for (int g = 0; g < gpus_; ++g) {
      CK_CUDA(cudaSetDevice(g));
      cublasSaxpy(handles_[g], n_ * n_, &rate, grads_[g], 1, weights_[g], 1);
    }
    for (int g = 0; g < gpus_; ++g) {
      CK_CUDA(cudaSetDevice(g));
      CK_CUDA(cudaStreamSynchronize(streams_[g]));
    }
  }

 private:
  void allReduceGradients() {
    CK_NCCL(ncclGroupStart());
    for (int g = 0; g < gpus_; ++g)
      CK_NCCL(ncclAllReduce(grads_[g], grads_[g], static_cast<size_t>(n_) * n_, ncclFloat, ncclSum, comms_[g],
                            streams_[g]));
    CK_NCCL(ncclGroupEnd());
  }

  int n_ = 0, gpus_ = 0;
  std::vector<ncclComm_t> comms_;
  std::vector<cudaStream_t> streams_;
  std::vector<cublasHandle_t> handles_;
  std::vector<float*> weights_, inputs_, grads_;
};

int main() {
  Trainer trainer(512);
  for (int epoch = 0; epoch < 20; ++epoch) {
    trainer.step();
    std::printf("epoch %d\n", epoch);
  }
  return 0;
}
