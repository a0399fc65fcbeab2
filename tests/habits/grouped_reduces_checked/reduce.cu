// Habit of cluster-documentation examples (written here, not copied): an MPI program that reduces
// two vectors to rank 0 once, the two ncclReduce calls inside one group, every group call wrapped
// in the program's check macro, and comments inside the calls' arguments naming each buffer.
#include <cuda_runtime.h>
#include <mpi.h>
#include <nccl.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK_CUDA(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); std::exit(1); } } while (0)
#define CHECK_NCCL(x) do { ncclResult_t r_ = (x); if (r_ != ncclSuccess) { \
  std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, ncclGetErrorString(r_)); std::exit(1); } } while (0)

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, nranks = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  CHECK_CUDA(cudaSetDevice(rank));
  ncclUniqueId id;
  if (rank == 0) CHECK_NCCL(ncclGetUniqueId(&id));
  MPI_Bcast(&id, sizeof(id), MPI_BYTE, 0, MPI_COMM_WORLD);
  ncclComm_t comm;
  CHECK_NCCL(ncclCommInitRank(&comm, nranks, id, rank));
  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreate(&stream));
  const int n = 4096;
  std::vector<double> hx(n, 1.0 + rank), hy(n, 2.0 - rank);
  double *x, *y, *sum_x, *sum_y;
  CHECK_CUDA(cudaMalloc(&x, n * sizeof(double)));
  CHECK_CUDA(cudaMalloc(&y, n * sizeof(double)));
  CHECK_CUDA(cudaMalloc(&sum_x, n * sizeof(double)));
  CHECK_CUDA(cudaMalloc(&sum_y, n * sizeof(double)));
  CHECK_CUDA(cudaMemcpy(x, hx.data(), n * sizeof(double), cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(y, hy.data(), n * sizeof(double), cudaMemcpyHostToDevice));
  CHECK_NCCL(ncclGroupStart());
  CHECK_NCCL(ncclReduce(/*send*/ x, /*recv*/ sum_x, n, ncclDouble, ncclSum, /*root*/ 0, comm, stream));
  CHECK_NCCL(ncclReduce(/*send*/ y,  // the second vector, reduced with the first
                        /*recv*/ sum_y, n, ncclDouble, ncclSum, 0, comm, stream));
  CHECK_NCCL(ncclGroupEnd());
  CHECK_CUDA(cudaStreamSynchronize(stream));
  if (rank == 0) {
    double first = 0;
    CHECK_CUDA(cudaMemcpy(&first, sum_x, sizeof(double), cudaMemcpyDeviceToHost));
    std::printf("sum of x[0] over %d ranks: %.1f\n", nranks, first);
  }
  CHECK_NCCL(ncclCommDestroy(comm));
  MPI_Finalize();
  return 0;
}
