// Habit of task-based factorisations (written here, not copied): the panels of a blocked
// factorisation are tasks; each pass of a `while` runs the first task whose flag is not yet set,
// broadcasts the panel a task finished, and sets the flags. The passes differ: the first scales, the
// next broadcasts, the last find nothing left to do.
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

__global__ void scale_panel(double* panel, int nb, double f) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < nb * nb; i += gridDim.x * blockDim.x) panel[i] *= f;
}

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

  const int tasks = 8, nb = 256;
  double* panels;
  CUDA_OK(cudaMalloc(&panels, sizeof(double) * tasks * nb * nb));
  CUDA_OK(cudaMemset(panels, 0, sizeof(double) * tasks * nb * nb));
  std::vector<bool> scaled(tasks, false), sent(tasks, false);
  int done = 0;
  while (done < tasks) {
    for (int k = 0; k < tasks; ++k)
      if (k % nranks == rank && !scaled[k]) {
        scale_panel<<<64, 256, 0, stream>>>(panels + size_t(k) * nb * nb, nb, 0.5);
        scaled[k] = true;
        break;
      }
    for (int k = 0; k < tasks; ++k) {
      if (sent[k]) continue;
      NCCL_OK(ncclBroadcast(panels + size_t(k) * nb * nb, panels + size_t(k) * nb * nb, size_t(nb) * nb, ncclDouble,
                            k % nranks, comm, stream));
      sent[k] = true;
      ++done;
      break;
    }
  }
  CUDA_OK(cudaStreamSynchronize(stream));
  if (rank == 0) std::printf("%d panels factored and broadcast\n", tasks);
  NCCL_OK(ncclCommDestroy(comm));
  MPI_Finalize();
  return 0;
}
