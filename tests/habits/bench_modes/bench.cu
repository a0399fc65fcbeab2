// Habit of collective benchmarks (written here, not copied): several timing modes, bandwidth by
// default and latency when `-latency` is given, each with its own timed loop; the latency loop
// comes last in the file, in the branch a plain run does not take.
#include <cuda_runtime.h>
#include <mpi.h>
#include <nccl.h>
#include <cstdio>
#include <cstring>

static bool has_flag(int argc, char** argv, const char* flag) {
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], flag) == 0) return true;
  return false;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, nranks;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  const bool latency = has_flag(argc, argv, "-latency");
  const int iters = 50;
  cudaSetDevice(rank);
  ncclUniqueId id;
  if (rank == 0) ncclGetUniqueId(&id);
  MPI_Bcast(&id, sizeof(id), MPI_BYTE, 0, MPI_COMM_WORLD);
  ncclComm_t comm;
  ncclCommInitRank(&comm, nranks, id, rank);
  cudaStream_t s;
  cudaStreamCreate(&s);
  const size_t big = 1 << 26, small = 8;
  float *x, *y;
  cudaMalloc(&x, big * sizeof(float));
  cudaMalloc(&y, big * sizeof(float));
  cudaEvent_t t0, t1;
  cudaEventCreate(&t0);
  cudaEventCreate(&t1);
  float ms = 0;
  if (!latency) {
    cudaEventRecord(t0, s);
    for (int i = 0; i < iters; ++i) ncclAllReduce(x, y, big, ncclFloat, ncclSum, comm, s);
    cudaEventRecord(t1, s);
  } else {
    cudaEventRecord(t0, s);
    for (int i = 0; i < iters; ++i) {
      ncclAllReduce(x, y, small, ncclFloat, ncclSum, comm, s);
      cudaStreamSynchronize(s);
    }
    cudaEventRecord(t1, s);
  }
  cudaEventSynchronize(t1);
  cudaEventElapsedTime(&ms, t0, t1);
  if (rank == 0) std::printf("%s: %.3f ms per call\n", latency ? "latency" : "bandwidth", ms / iters);
  ncclCommDestroy(comm);
  MPI_Finalize();
  return 0;
}
