// Expert-parallel MoE layer under MPI (one process per GPU).
//   mpirun -np 4 ./moe --tokens 1024 --hidden 1024 --ffn 2048 --experts-per-rank 2 --capacity 192
#include <mpi.h>

#include <cstdio>
#include <vector>

#include "moe.h"
#include "utils.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, world = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world);

  MoeShape shape;
  shape.tokens = arg_int(argc, argv, "--tokens", 1024);
  shape.hidden = arg_int(argc, argv, "--hidden", 1024);
  shape.ffn = arg_int(argc, argv, "--ffn", 2048);
  shape.experts_per_rank = arg_int(argc, argv, "--experts-per-rank", 2);
  shape.capacity = arg_int(argc, argv, "--capacity", 192);
  const int iters = arg_int(argc, argv, "--iters", 20);

  int local_rank = rank;
  if (const char* lr = getenv("OMPI_COMM_WORLD_LOCAL_RANK")) local_rank = atoi(lr);
  CUDACHECK(cudaSetDevice(local_rank));

  ncclUniqueId id;
  if (rank == 0) NCCLCHECK(ncclGetUniqueId(&id));
  MPI_Bcast(&id, sizeof(ncclUniqueId), MPI_BYTE, 0, MPI_COMM_WORLD);
  ncclComm_t comm;
  NCCLCHECK(ncclCommInitRank(&comm, world, id, rank));

  cudaStream_t stream;
  CUDACHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cublasHandle_t blas;
  CUBLASCHECK(cublasCreate(&blas));
  CUBLASCHECK(cublasSetStream(blas, stream));

  MoeBuffers bufs;
  moe_alloc(&bufs, shape, rank, world);

  for (int i = 0; i < 3; ++i) moe_forward(shape, bufs, world, blas, comm, stream);
  cudaEvent_t start, stop;
  CUDACHECK(cudaEventCreate(&start));
  CUDACHECK(cudaEventCreate(&stop));
  CUDACHECK(cudaEventRecord(start, stream));
  for (int i = 0; i < iters; ++i) moe_forward(shape, bufs, world, blas, comm, stream);
  CUDACHECK(cudaEventRecord(stop, stream));
  CUDACHECK(cudaEventSynchronize(stop));
  float ms = 0.f;
  CUDACHECK(cudaEventElapsedTime(&ms, start, stop));

  const size_t n = (size_t)shape.tokens * shape.hidden;
  std::vector<float> y(n);
  std::vector<int> counts(shape.experts_per_rank * world);
  CUDACHECK(cudaMemcpy(y.data(), bufs.y, n * sizeof(float), cudaMemcpyDeviceToHost));
  CUDACHECK(cudaMemcpy(counts.data(), bufs.counts, counts.size() * sizeof(int), cudaMemcpyDeviceToHost));
  int dropped = 0;
  for (int c : counts) dropped += c > shape.capacity ? c - shape.capacity : 0;
  double local = checksum(y.data(), n), total = 0;
  int dropped_total = 0;
  MPI_Reduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  MPI_Reduce(&dropped, &dropped_total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    printf("moe: %d ranks, %d experts, %d tokens/rank, dropped %d tokens\n", world, shape.experts_per_rank * world,
           shape.tokens, dropped_total);
    printf("checksum: %.6f\n", total);
    printf("avg iteration time: %.3f ms\n", ms / iters);
  }

  moe_free(&bufs);
  cublasDestroy(blas);
  ncclCommDestroy(comm);
  MPI_Finalize();
  return 0;
}
