// Habit of programs that order their streams with events made where they are needed (written here,
// not copied): every pass creates its events, orders a second stream after the first with them,
// and destroys them. A harness iteration is a pass: the harness's events must not run out.
#include <mpi.h>
#include <nccl.h>
#include <cuda_runtime.h>
#include <cstdio>

__global__ void scale(float* y, const float* x, int n, float a) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i];
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, world = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world);
  ncclUniqueId id;
  if (rank == 0) ncclGetUniqueId(&id);
  MPI_Bcast(&id, sizeof(id), MPI_BYTE, 0, MPI_COMM_WORLD);
  cudaSetDevice(rank);
  ncclComm_t comm;
  ncclCommInitRank(&comm, world, id, rank);
  cudaStream_t compute, comm_stream;
  cudaStreamCreate(&compute);
  cudaStreamCreate(&comm_stream);
  const int n = 1 << 20;
  float *x, *t, *y;
  cudaMalloc(&x, n * sizeof(float));
  cudaMalloc(&t, n * sizeof(float));
  cudaMalloc(&y, n * sizeof(float));
  for (int it = 0; it < 200; ++it) {
    cudaEvent_t made, sent, a, b;
    cudaEventCreate(&made);
    cudaEventCreate(&sent);
    cudaEventCreate(&a);
    cudaEventCreate(&b);
    cudaEventRecord(a, compute);
    scale<<<(n + 255) / 256, 256, 0, compute>>>(t, x, n, 2.0f);
    cudaEventRecord(made, compute);
    cudaStreamWaitEvent(comm_stream, made, 0);
    ncclAllReduce(t, y, n, ncclFloat, ncclSum, comm, comm_stream);
    cudaEventRecord(sent, comm_stream);
    cudaStreamWaitEvent(compute, sent, 0);
    cudaEventRecord(b, compute);
    cudaEventDestroy(made);
    cudaEventDestroy(sent);
    cudaEventDestroy(a);
    cudaEventDestroy(b);
  }
  cudaStreamSynchronize(compute);
  std::printf("done\n");
  ncclCommDestroy(comm);
  MPI_Finalize();
  return 0;
}
