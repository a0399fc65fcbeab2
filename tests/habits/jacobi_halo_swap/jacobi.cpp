// Habit of multi-GPU stencil teaching codes (written here, not copied): run as `mpirun -np 4
// ./jacobi -nx 4096` (the world size is only in this comment); options through a template
// reader; the boundary rows are relaxed on a push stream and sent as halos to the neighbours while
// the interior rows are relaxed on the compute stream (the same array, rows that do not meet);
// the two grids are swapped at the end of every step.
#include <cuda_runtime.h>
#include <mpi.h>
#include <nccl.h>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <string>
#include <utility>
#include <nvtx3/nvToolsExt.h>  // NVTX ranges around the solve, as NVIDIA's Jacobi codes have them
void launch_relax(float* out, const float* in, float* norm, int row_begin, int row_end, int nx, cudaStream_t s);
int steps_done = 0;  // a file-scope global, as the NCCL examples' `pthread_barrier_t barrier;`
template <typename T>
T get_argval(char** begin, char** end, const std::string& arg, const T dflt) {
  T v = dflt;
  for (char** it = begin; it != end; ++it)
    if (arg == *it && it + 1 != end) std::istringstream(*(it + 1)) >> v;
  return v;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int nx = get_argval<int>(argv, argv + argc, "-nx", 4096);
  const int ny = get_argval<int>(argv, argv + argc, "-ny", 4096);
  const int niter = get_argval<int>(argv, argv + argc, "-niter", 100);
  cudaSetDevice(rank);
  ncclUniqueId id;
  if (rank == 0) ncclGetUniqueId(&id);
  MPI_Bcast(&id, sizeof(id), MPI_BYTE, 0, MPI_COMM_WORLD);
  ncclComm_t comm;
  ncclCommInitRank(&comm, size, id, rank);
  const int rows = ny / size + 2;
  const int iy_start = 1, iy_end = rows - 1;
  float *a, *a_new, *norm;
  cudaMalloc(&a, (size_t)nx * rows * sizeof(float));
  cudaMalloc(&a_new, (size_t)nx * rows * sizeof(float));
  cudaMalloc(&norm, sizeof(float));
  cudaMemset(a, 0, (size_t)nx * rows * sizeof(float));
  cudaMemset(a_new, 0, (size_t)nx * rows * sizeof(float));
  cudaDeviceSynchronize();
  cudaStream_t compute, push;
  cudaStreamCreateWithFlags(&compute, cudaStreamNonBlocking);
  cudaStreamCreateWithFlags(&push, cudaStreamNonBlocking);
  cudaEvent_t pushed;
  cudaEventCreateWithFlags(&pushed, cudaEventDisableTiming);
  const int top = rank > 0 ? rank - 1 : size - 1, bottom = (rank + 1) % size;
  double start = MPI_Wtime(); nvtxRangePushA("solve");
  for (int it = 0; it < niter; ++it) {
    launch_relax(a_new, a, norm, iy_start, iy_start + 1, nx, push);
    launch_relax(a_new, a, norm, iy_end - 1, iy_end, nx, push);
    launch_relax(a_new, a, norm, iy_start + 1, iy_end - 1, nx, compute);
    ncclGroupStart();
    ncclRecv(a_new, nx, ncclFloat, top, comm, push);
    ncclSend(a_new + (iy_end - 1) * nx, nx, ncclFloat, bottom, comm, push);
    ncclRecv(a_new + iy_end * nx, nx, ncclFloat, bottom, comm, push);
    ncclSend(a_new + iy_start * nx, nx, ncclFloat, top, comm, push);
    ncclGroupEnd();
    cudaEventRecord(pushed, push);
    cudaStreamWaitEvent(compute, pushed, 0);
    cudaStreamSynchronize(compute);
    std::swap(a, a_new);
  }
  double stop = MPI_Wtime(); nvtxRangePop(); steps_done += niter;
  if (rank == 0) std::printf("%d x %d: %.3f ms per step\n", ny, nx, (stop - start) * 1e3 / niter);
  ncclCommDestroy(comm);
  MPI_Finalize();
  return 0;
}
