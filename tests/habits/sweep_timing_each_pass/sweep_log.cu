// Habit of collective benchmarks (written here, not copied): a sweep over message sizes that
// allocates per size, warms up, times each pass of its timed loop with the host clock inside the
// loop, and appends each size's mean time to a log file.
#include <cuda_runtime.h>
#include <mpi.h>
#include <nccl.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <vector>

#define CUDA_OK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); std::exit(1); } } while (0)
#define NCCL_OK(x) do { ncclResult_t r_ = (x); if (r_ != ncclSuccess) { \
  std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, ncclGetErrorString(r_)); std::exit(1); } } while (0)

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, nranks = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  int gpus = 0;
  CUDA_OK(cudaGetDeviceCount(&gpus));
  CUDA_OK(cudaSetDevice(rank % gpus));
  ncclUniqueId id;
  if (rank == 0) NCCL_OK(ncclGetUniqueId(&id));
  MPI_Bcast(&id, sizeof(id), MPI_BYTE, 0, MPI_COMM_WORLD);
  ncclComm_t comm;
  NCCL_OK(ncclCommInitRank(&comm, nranks, id, rank));
  cudaStream_t stream;
  CUDA_OK(cudaStreamCreate(&stream));

  const int runs = 20;
  int* h_in;
  int *d_in, *d_out;
  for (int count = 1 << 12; count <= 1 << 16; count <<= 2) {
    const size_t bytes = size_t(count) * nranks * sizeof(int);
    h_in = new int[size_t(count) * nranks];
    for (size_t j = 0; j < size_t(count) * nranks; ++j) h_in[j] = rank * 1000 + int(j % 997);
    CUDA_OK(cudaMalloc(&d_in, bytes));
    CUDA_OK(cudaMalloc(&d_out, bytes));

    for (int j = 0; j < 3; ++j) {
      CUDA_OK(cudaMemcpy(d_in, h_in, bytes, cudaMemcpyHostToDevice));
      NCCL_OK(ncclGroupStart());
      for (int p = 0; p < nranks; ++p) {
        NCCL_OK(ncclSend(d_in + size_t(p) * count, count, ncclInt, p, comm, stream));
        NCCL_OK(ncclRecv(d_out + size_t(p) * count, count, ncclInt, p, comm, stream));
      }
      NCCL_OK(ncclGroupEnd());
      CUDA_OK(cudaStreamSynchronize(stream));
    }

    std::vector<double> times(runs);
    for (int j = 0; j < runs; ++j) {
      CUDA_OK(cudaMemcpy(d_in, h_in, bytes, cudaMemcpyHostToDevice));
      auto start = std::chrono::steady_clock::now();
      NCCL_OK(ncclGroupStart());
      for (int p = 0; p < nranks; ++p) {
        NCCL_OK(ncclSend(d_in + size_t(p) * count, count, ncclInt, p, comm, stream));
        NCCL_OK(ncclRecv(d_out + size_t(p) * count, count, ncclInt, p, comm, stream));
      }
      NCCL_OK(ncclGroupEnd());
      CUDA_OK(cudaStreamSynchronize(stream));
      auto stop = std::chrono::steady_clock::now();
      times[j] = std::chrono::duration<double, std::micro>(stop - start).count();
    }

    if (rank == 0) {
      double sum = 0;
      for (double t : times) sum += t;
      std::ofstream log("sweep.log", std::ios_base::app);
      log << count * sizeof(int) << " bytes per peer: " << sum / runs << " us" << std::endl;
    }
    delete[] h_in;
    CUDA_OK(cudaFree(d_in));
    CUDA_OK(cudaFree(d_out));
  }
  NCCL_OK(ncclCommDestroy(comm));
  MPI_Finalize();
  return 0;
}
