// Habit of type-generic benchmarks (written here, not copied): the buffers are untyped (`void*`,
// sized in bytes) and the data type is one variable the program sets once and hands to a helper
// that makes the collective call. Its values are bf16, known only from that variable.
#include <cuda_runtime.h>
#include <nccl.h>
#include <cstdio>
#include <cstdlib>

static size_t type_size(ncclDataType_t t) { return t == ncclBfloat16 || t == ncclHalf ? 2 : 4; }

static void run_allreduce(const void* send, void* recv, size_t count, ncclDataType_t type, ncclComm_t comm,
                          cudaStream_t s) {
  ncclAllReduce(send, recv, count, type, ncclSum, comm, s);
}

int main() {
  const int rank = std::atoi(std::getenv("RANK")), world = std::atoi(std::getenv("WORLD_SIZE"));
  cudaSetDevice(rank);
  ncclUniqueId id;
  ncclGetUniqueId(&id);  // one host: a real launcher would share rank 0's
  ncclComm_t comm;
  ncclCommInitRank(&comm, world, id, rank);
  cudaStream_t s;
  cudaStreamCreate(&s);
  const ncclDataType_t dtype = ncclBfloat16;
  const size_t count = 1 << 20, bytes = count * type_size(dtype);
  void *sendbuf, *recvbuf;
  cudaMalloc(&sendbuf, bytes);
  cudaMalloc(&recvbuf, bytes);
  cudaMemset(sendbuf, 0, bytes);
  cudaEvent_t t0, t1;
  cudaEventCreate(&t0);
  cudaEventCreate(&t1);
  const int iters = 20;
  cudaEventRecord(t0, s);
  for (int it = 0; it < iters; ++it) run_allreduce(sendbuf, recvbuf, count, dtype, comm, s);
  cudaEventRecord(t1, s);
  cudaEventSynchronize(t1);
  float ms = 0;
  cudaEventElapsedTime(&ms, t0, t1);
  std::printf("rank %d: %.3f ms per all-reduce\n", rank, ms / iters);
  ncclCommDestroy(comm);
  return 0;
}
