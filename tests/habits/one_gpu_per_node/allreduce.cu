// Habit of programs written for clusters of one GPU a node (written here, not copied): every rank
// selects GPU 0, the only one its node has, and all-reduces a vector in a timed loop.
#include <cuda_runtime.h>
#include <mpi.h>
#include <nccl.h>
#include <cstdio>
#include <cstdlib>
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
  const int local_gpu = 0;  // one GPU a node
  CUDA_OK(cudaSetDevice(local_gpu));
  ncclUniqueId id;
  if (rank == 0) NCCL_OK(ncclGetUniqueId(&id));
  MPI_Bcast(&id, sizeof(id), MPI_BYTE, 0, MPI_COMM_WORLD);
  ncclComm_t comm;
  NCCL_OK(ncclCommInitRank(&comm, nranks, id, rank));
  cudaStream_t stream;
  CUDA_OK(cudaStreamCreate(&stream));
  const size_t n = 1 << 20;
  std::vector<float> host(n, 1.0f + rank);
  float *grad, *sum;
  CUDA_OK(cudaMalloc(&grad, n * sizeof(float)));
  CUDA_OK(cudaMalloc(&sum, n * sizeof(float)));
  CUDA_OK(cudaMemcpy(grad, host.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  double t0 = MPI_Wtime();
  for (int it = 0; it < 20; ++it) {
    NCCL_OK(ncclAllReduce(grad, sum, n, ncclFloat, ncclSum, comm, stream));
  }
  CUDA_OK(cudaStreamSynchronize(stream));
  double t1 = MPI_Wtime();
  if (rank == 0) std::printf("all-reduce of %zu floats: %.3f ms each\n", n, (t1 - t0) * 1e3 / 20);
  NCCL_OK(ncclCommDestroy(comm));
  MPI_Finalize();
  return 0;
}
