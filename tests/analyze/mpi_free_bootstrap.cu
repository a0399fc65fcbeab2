// No MPI: rank 0 writes the ncclUniqueId to a shared file, the others poll for it; ranks come
// from the environment. Then a broadcast of weights from rank 0 and a reduce of a loss.
#include <cstdio>
#include <cstdlib>
#include <unistd.h>
#include <cuda_runtime.h>
#include <nccl.h>

static ncclUniqueId read_or_create_id(int rank, const char* path) {
  ncclUniqueId id;
  if (rank == 0) {
    ncclGetUniqueId(&id);
    FILE* f = std::fopen(path, "wb");
    std::fwrite(&id, sizeof id, 1, f);
    std::fclose(f);
  } else {
    FILE* f = nullptr;
    while (!(f = std::fopen(path, "rb"))) usleep(1000);
    std::fread(&id, sizeof id, 1, f);
    std::fclose(f);
  }
  return id;
}

int main() {
  int rank = std::atoi(std::getenv("RANK")), world = std::atoi(std::getenv("WORLD_SIZE"));
  cudaSetDevice(rank);
  ncclUniqueId id = read_or_create_id(rank, "/tmp/nccl_id.bin");
  ncclComm_t comm, half_comm;
  ncclCommInitRank(&comm, world, id, rank);
  ncclCommSplit(comm, rank % 2, rank, &half_comm, nullptr);
  float *weights, *loss;
  ncclMemAlloc((void**)&weights, 1 << 20);
  cudaMallocHost(&loss, sizeof(float));
  ncclBroadcast(weights, weights, 1 << 18, ncclFloat, 0, comm, 0);
  ncclReduce(loss, loss, 1, ncclFloat, ncclSum, 0, half_comm, 0);
  cudaDeviceSynchronize();
  return 0;
}
