// An incast benchmark in the manner of MPI microbenchmark suites: every rank but the root sends one
// block to the root, which receives each into its own slot of the same buffer (the two sides of an
// `if` on the rank), timed over a communicator made of a group of the ranks, with a destination
// list read from the environment into a `char*`, and checked after the timed loop with MPI
// point-to-point messages.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>
#include <mpi.h>
#include <nccl.h>

__global__ void fill(float* x, int n, int rank) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) x[i] = rank + 1 + i % 3;
}
__global__ void sum_into(const float* x, int n, float* out) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) atomicAdd(out, x[i]);
}
// The checksum of a device buffer, on the host (the suite's own helper, as a thrust reduce would be).
float checksum(const float* x, int n) {
  float* d;
  float h = 0;
  cudaMalloc(&d, sizeof(float));
  cudaMemset(d, 0, sizeof(float));
  sum_into<<<64, 256>>>(x, n, d);
  cudaMemcpy(&h, d, sizeof(float), cudaMemcpyDeviceToHost);
  cudaFree(d);
  return h;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  char* root_env = getenv("INCAST_ROOT");
  const int root = root_env != NULL ? atoi(root_env) : 0;
  // The ranks timed together: all of them, as a group made into a communicator.
  MPI_Group world_group, timed_group;
  MPI_Comm_group(MPI_COMM_WORLD, &world_group);
  int* members = (int*)malloc(size * sizeof(int));
  for (int r = 0; r < size; ++r) members[r] = r;
  MPI_Group_incl(world_group, size, members, &timed_group);
  MPI_Comm timed;
  MPI_Comm_create(MPI_COMM_WORLD, timed_group, &timed);

  cudaSetDevice(rank);
  ncclUniqueId id;
  if (rank == 0) ncclGetUniqueId(&id);
  MPI_Bcast(&id, sizeof(id), MPI_BYTE, 0, MPI_COMM_WORLD);
  ncclComm_t comm;
  ncclCommInitRank(&comm, size, id, rank);
  const int block = argc > 1 ? atoi(argv[1]) : 1 << 16;
  float* buf;
  cudaMalloc(&buf, (size_t)block * size * sizeof(float));
  fill<<<64, 256>>>(buf, block * size, rank);
  cudaDeviceSynchronize();

  double total = 0;
  for (int it = -3; it < 20; ++it) {
    MPI_Barrier(timed);
    const double t0 = MPI_Wtime();
    ncclGroupStart();
    if (rank == root) {
      for (int r = 0; r < size; ++r)
        if (r != root) ncclRecv(buf + (size_t)r * block, block, ncclFloat, r, comm, NULL);
    } else {
      ncclSend(buf, block, ncclFloat, root, comm, NULL);
    }
    ncclGroupEnd();
    cudaStreamSynchronize(NULL);
    if (it >= 0) total += MPI_Wtime() - t0;
  }

  // The check: the root's checksum, sent to the next rank.
  float last = checksum(buf, block * size);
  if (size > 1 && rank == root) {
    MPI_Send(&last, 1, MPI_FLOAT, (root + 1) % size, 7, MPI_COMM_WORLD);
  } else if (size > 1 && rank == (root + 1) % size) {
    MPI_Status st;
    MPI_Recv(&last, 1, MPI_FLOAT, root, 7, MPI_COMM_WORLD, &st);
  }
  if (rank == 0) printf("incast of %d floats: %.3f ms\n", block, total / 20 * 1e3);
  ncclCommDestroy(comm);
  MPI_Finalize();
  return 0;
}
