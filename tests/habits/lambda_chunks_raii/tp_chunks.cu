// Habit of modern C++ TP programs (written here, not copied; TensorParallelPTX's SUMMA runner is one):
// device buffers owned by an RAII class and reached through `.get()`, the work of one chunk in a
// lambda defined before the timed loop (capturing by reference), writing one of two output buffers
// chosen by a counter of passes the lambda steps, and the timed loop calling it for each chunk of
// every profile run.
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <mpi.h>
#include <nccl.h>
#include <cstdio>
#include <cstdlib>

#define CHECK_CUDA(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); std::exit(1); } } while (0)
#define CHECK_NCCL(x) do { ncclResult_t r_ = (x); if (r_ != ncclSuccess) { \
  std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, ncclGetErrorString(r_)); std::exit(1); } } while (0)

template <typename T>
class DeviceBuffer {
 public:
  explicit DeviceBuffer(size_t n) { CHECK_CUDA(cudaMalloc(&ptr_, n * sizeof(T))); }
  ~DeviceBuffer() { cudaFree(ptr_); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  T* get() const { return ptr_; }
 private:
  T* ptr_ = nullptr;
};

__global__ void fill(float* x, size_t n, int seed) {
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    x[i] = static_cast<float>((i * 7 + seed) % 19) / 19.0f - 0.5f;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  CHECK_CUDA(cudaSetDevice(rank));
  ncclUniqueId id;
  if (rank == 0) CHECK_NCCL(ncclGetUniqueId(&id));
  MPI_Bcast(&id, sizeof(id), MPI_BYTE, 0, MPI_COMM_WORLD);
  ncclComm_t comm;
  CHECK_NCCL(ncclCommInitRank(&comm, ranks, id, rank));

  const int m = 2048, n = 3072, k = 4096 / ranks, num_chunks = 3, profile_runs = 10;
  const int chunk_n = n / num_chunks;
  DeviceBuffer<float> d_a(static_cast<size_t>(m) * k), d_b(static_cast<size_t>(k) * n);
  DeviceBuffer<float> d_c_ping(static_cast<size_t>(m) * chunk_n), d_c_pong(static_cast<size_t>(m) * chunk_n);
  fill<<<128, 256>>>(d_a.get(), static_cast<size_t>(m) * k, rank);
  fill<<<128, 256>>>(d_b.get(), static_cast<size_t>(k) * n, rank + 3);
  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreate(&stream));
  cublasHandle_t handle;
  cublasCreate(&handle);
  cublasSetStream(handle, stream);
  const float one = 1.0f, zero = 0.0f;

  // One chunk of C's columns: its GEMM, then its all-reduce, into ping and pong by turns (the
  // collective of one chunk overlaps the next chunk's GEMM, writing the other buffer).
  int pass = 0;
  auto run_chunk = [&](int chunk_idx) {
    const int buf = pass & 1;
    ++pass;
    float* c_out = (buf == 0) ? d_c_ping.get() : d_c_pong.get();
    const float* b_cols = d_b.get() + static_cast<size_t>(chunk_idx) * chunk_n * k;
    cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, m, chunk_n, k, &one, d_a.get(), m, b_cols, k, &zero, c_out, m);
    CHECK_NCCL(ncclAllReduce(c_out, c_out, static_cast<size_t>(m) * chunk_n, ncclFloat, ncclSum, comm, stream));
  };

  for (int chunk_idx = 0; chunk_idx < num_chunks; ++chunk_idx) run_chunk(chunk_idx);  // warm-up
  cudaEvent_t start, stop;
  CHECK_CUDA(cudaEventCreate(&start));
  CHECK_CUDA(cudaEventCreate(&stop));
  CHECK_CUDA(cudaEventRecord(start, stream));
  for (int iter = 0; iter < profile_runs; ++iter)
    for (int chunk_idx = 0; chunk_idx < num_chunks; ++chunk_idx)
      run_chunk(chunk_idx);
  CHECK_CUDA(cudaEventRecord(stop, stream));
  CHECK_CUDA(cudaEventSynchronize(stop));
  float ms = 0.0f;
  CHECK_CUDA(cudaEventElapsedTime(&ms, start, stop));
  float corner = 0.0f;
  CHECK_CUDA(cudaMemcpy(&corner, d_c_ping.get(), sizeof(float), cudaMemcpyDeviceToHost));
  if (rank == 0) std::printf("C[0][0] = %f, %.3f ms a run\n", corner, ms / profile_runs);
  cublasDestroy(handle);
  ncclCommDestroy(comm);
  MPI_Finalize();
  return 0;
}
