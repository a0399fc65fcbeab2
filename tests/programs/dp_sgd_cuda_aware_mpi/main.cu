// Data-parallel SGD of a linear layer under CUDA-aware MPI, one process per GPU, no NCCL: rank 0's
// weights are broadcast from device memory once, then every step runs forward + weight gradient on
// the rank's shard of the batch (cuBLAS), sums the gradients over the ranks with MPI_Allreduce on
// device memory, applies SGD on every rank, and sums the step's squared error (a host float) for
// the log.
//   mpirun -np 2 ./dp_sgd [--batch 512] [--in 1024] [--out 1024] [--steps 20]
#include <mpi.h>
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CUDA_CALL(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  fprintf(stderr, "%s:%d CUDA: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); MPI_Abort(MPI_COMM_WORLD, 1); } } while (0)
#define CUBLAS_CALL(x) do { cublasStatus_t s_ = (x); if (s_ != CUBLAS_STATUS_SUCCESS) { \
  fprintf(stderr, "%s:%d cuBLAS status %d\n", __FILE__, __LINE__, (int)s_); MPI_Abort(MPI_COMM_WORLD, 1); } } while (0)
#define MPI_CALL(x) do { int r_ = (x); if (r_ != MPI_SUCCESS) { \
  char msg_[MPI_MAX_ERROR_STRING]; int len_ = 0; MPI_Error_string(r_, msg_, &len_); \
  fprintf(stderr, "%s:%d MPI: %s\n", __FILE__, __LINE__, msg_); MPI_Abort(MPI_COMM_WORLD, r_); } } while (0)

// err = y - target
__global__ void residual(const float* y, const float* target, float* err, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) err[i] = y[i] - target[i];
}

__global__ void sgd(float* w, const float* grad, float lr, size_t n) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) w[i] -= lr * grad[i];
}

static int flag(int argc, char** argv, const char* name, int dflt) {
  for (int i = 1; i + 1 < argc; ++i)
    if (strcmp(argv[i], name) == 0) return atoi(argv[i + 1]);
  return dflt;
}

static void fill(std::vector<float>& v, uint64_t seed, float scale) {
  uint64_t s = seed * 0x9E3779B97F4A7C15ULL + 1;
  for (float& x : v) {
    s ^= s << 13, s ^= s >> 7, s ^= s << 17;
    x = scale * ((float)(s >> 40) / (float)(1 << 24) * 2.f - 1.f);
  }
}

int main(int argc, char** argv) {
  MPI_CALL(MPI_Init(&argc, &argv));
  int rank = 0, size = 1, ndev = 1;
  MPI_CALL(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  MPI_CALL(MPI_Comm_size(MPI_COMM_WORLD, &size));
  CUDA_CALL(cudaGetDeviceCount(&ndev));
  CUDA_CALL(cudaSetDevice(rank % ndev));
  const int batch = flag(argc, argv, "--batch", 512);  // per rank
  const int in_dim = flag(argc, argv, "--in", 1024);
  const int out_dim = flag(argc, argv, "--out", 1024);
  const int steps = flag(argc, argv, "--steps", 20);
  const float lr = 0.1f / (float)(batch * size);
  const size_t w_elems = (size_t)in_dim * out_dim, y_elems = (size_t)batch * out_dim;

  cudaStream_t stream;
  cublasHandle_t blas;
  CUDA_CALL(cudaStreamCreate(&stream));
  CUBLAS_CALL(cublasCreate(&blas));
  CUBLAS_CALL(cublasSetStream(blas, stream));
  float *d_w, *d_x, *d_target, *d_y, *d_err, *d_grad;
  CUDA_CALL(cudaMalloc(&d_w, w_elems * sizeof(float)));
  CUDA_CALL(cudaMalloc(&d_x, (size_t)batch * in_dim * sizeof(float)));
  CUDA_CALL(cudaMalloc(&d_target, y_elems * sizeof(float)));
  CUDA_CALL(cudaMalloc(&d_y, y_elems * sizeof(float)));
  CUDA_CALL(cudaMalloc(&d_err, y_elems * sizeof(float)));
  CUDA_CALL(cudaMalloc(&d_grad, w_elems * sizeof(float)));
  std::vector<float> h_w(w_elems), h_x((size_t)batch * in_dim), h_t(y_elems);
  fill(h_w, 1, 0.01f);
  fill(h_x, 100 + rank, 1.f);  // this rank's shard of the batch
  fill(h_t, 200 + rank, 1.f);
  CUDA_CALL(cudaMemcpy(d_x, h_x.data(), h_x.size() * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_CALL(cudaMemcpy(d_target, h_t.data(), h_t.size() * sizeof(float), cudaMemcpyHostToDevice));
  if (rank == 0) CUDA_CALL(cudaMemcpy(d_w, h_w.data(), w_elems * sizeof(float), cudaMemcpyHostToDevice));
  MPI_CALL(MPI_Bcast(d_w, (int)w_elems, MPI_FLOAT, 0, MPI_COMM_WORLD));  // CUDA-aware: device memory

  const float one = 1.f, zero = 0.f;
  float sq_err = 0.f, total_sq_err = 0.f;
  double t0 = 0.0;
  for (int s = 0; s <= steps; ++s) {
    if (s == 1) t0 = MPI_Wtime();  // step 0 warms up
    // y[batch][out] = x[batch][in] * w[in][out]
    CUBLAS_CALL(cublasSgemm(blas, CUBLAS_OP_N, CUBLAS_OP_N, out_dim, batch, in_dim, &one, d_w, out_dim, d_x, in_dim,
                            &zero, d_y, out_dim));
    residual<<<(unsigned)((y_elems + 255) / 256), 256, 0, stream>>>(d_y, d_target, d_err, (int)y_elems);
    CUBLAS_CALL(cublasSdot(blas, (int)y_elems, d_err, 1, d_err, 1, &sq_err));
    // grad[in][out] = x^T[in][batch] * err[batch][out]
    CUBLAS_CALL(cublasSgemm(blas, CUBLAS_OP_N, CUBLAS_OP_T, out_dim, in_dim, batch, &one, d_err, out_dim, d_x, in_dim,
                            &zero, d_grad, out_dim));
    CUDA_CALL(cudaStreamSynchronize(stream));  // the gradient is made before MPI reads it
    MPI_CALL(MPI_Allreduce(MPI_IN_PLACE, d_grad, (int)w_elems, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD));
    MPI_CALL(MPI_Allreduce(&sq_err, &total_sq_err, 1, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD));
    sgd<<<(unsigned)((w_elems + 255) / 256), 256, 0, stream>>>(d_w, d_grad, lr, w_elems);
  }
  CUDA_CALL(cudaStreamSynchronize(stream));
  const double ms = (MPI_Wtime() - t0) * 1e3 / steps;

  CUDA_CALL(cudaMemcpy(h_w.data(), d_w, w_elems * sizeof(float), cudaMemcpyDeviceToHost));
  double sum = 0;
  for (float v : h_w) sum += v;
  if (rank == 0)
    printf("dp_sgd: %d ranks, batch %d per rank, %dx%d weights: loss %.4f, weights checksum %.6f, %.3f ms a step\n",
           size, batch, in_dim, out_dim, 0.5f * total_sq_err / (float)(batch * size), sum, ms);
  for (float* p : {d_w, d_x, d_target, d_y, d_err, d_grad}) CUDA_CALL(cudaFree(p));
  CUBLAS_CALL(cublasDestroy(blas));
  CUDA_CALL(cudaStreamDestroy(stream));
  MPI_CALL(MPI_Finalize());
  return 0;
}
