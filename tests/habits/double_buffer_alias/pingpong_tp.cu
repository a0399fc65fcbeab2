// Habit of overlap code (written here, not copied): the GEMM of each pass writes one of two output
// buffers, chosen by the pass's parity through a local pointer (`float* c_out = (pass & 1) ? c_pong :
// c_ping;`), so the all-reduce of one pass may run while the next GEMM writes the other buffer.
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <mpi.h>
#include <nccl.h>
#include <cstdio>
#include <cstdlib>

#define CUDA_OK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); std::exit(1); } } while (0)
#define NCCL_OK(x) do { ncclResult_t r_ = (x); if (r_ != ncclSuccess) { \
  std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, ncclGetErrorString(r_)); std::exit(1); } } while (0)

__global__ void fill(float* x, size_t n, int seed) {
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    x[i] = static_cast<float>((i * 7 + seed) % 19) / 19.0f - 0.5f;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  CUDA_OK(cudaSetDevice(rank));
  ncclUniqueId id;
  if (rank == 0) NCCL_OK(ncclGetUniqueId(&id));
  MPI_Bcast(&id, sizeof(id), MPI_BYTE, 0, MPI_COMM_WORLD);
  ncclComm_t comm;
  NCCL_OK(ncclCommInitRank(&comm, ranks, id, rank));
  const int m = 2048, n = 2048, k = 4096 / ranks;
  float *a, *b, *c_ping, *c_pong;
  CUDA_OK(cudaMalloc(&a, sizeof(float) * m * k));
  CUDA_OK(cudaMalloc(&b, sizeof(float) * k * n));
  CUDA_OK(cudaMalloc(&c_ping, sizeof(float) * m * n));
  CUDA_OK(cudaMalloc(&c_pong, sizeof(float) * m * n));
  fill<<<128, 256>>>(a, static_cast<size_t>(m) * k, rank);
  fill<<<128, 256>>>(b, static_cast<size_t>(k) * n, rank + 3);
  cudaStream_t compute, comm_stream;
  CUDA_OK(cudaStreamCreate(&compute));
  CUDA_OK(cudaStreamCreate(&comm_stream));
  cudaEvent_t gemm_done, start, stop;
  CUDA_OK(cudaEventCreateWithFlags(&gemm_done, cudaEventDisableTiming));
  CUDA_OK(cudaEventCreate(&start));
  CUDA_OK(cudaEventCreate(&stop));
  cublasHandle_t handle;
  cublasCreate(&handle);
  cublasSetStream(handle, compute);
  const float one = 1.0f, zero = 0.0f;
  int pass = 0;
  CUDA_OK(cudaEventRecord(start, comm_stream));
  for (int it = 0; it < 20; ++it) {
    float* c_out = (pass & 1) == 0 ? c_ping : c_pong;
    ++pass;
    cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &one, a, m, b, k, &zero, c_out, m);
    CUDA_OK(cudaEventRecord(gemm_done, compute));
    CUDA_OK(cudaStreamWaitEvent(comm_stream, gemm_done, 0));
    NCCL_OK(ncclAllReduce(c_out, c_out, static_cast<size_t>(m) * n, ncclFloat, ncclSum, comm, comm_stream));
  }
  CUDA_OK(cudaEventRecord(stop, comm_stream));
  CUDA_OK(cudaEventSynchronize(stop));
  float ms = 0.0f;
  CUDA_OK(cudaEventElapsedTime(&ms, start, stop));
  if (rank == 0) std::printf("%.3f ms a pass\n", ms / 20);
  cublasDestroy(handle);
  cudaFree(a);
  cudaFree(b);
  cudaFree(c_ping);
  cudaFree(c_pong);
  ncclCommDestroy(comm);
  MPI_Finalize();
  return 0;
}
