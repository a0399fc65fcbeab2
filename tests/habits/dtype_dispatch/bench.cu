// Habit of collective benchmarks (written here, not copied): main reads a data type and dispatches to
// a template that allocates its buffers, warms up, and times its all-to-all once; main itself names
// no buffer. One branch of the chain runs, so main calls the template once a run.
#include <cuda_runtime.h>
#include <nccl.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>

template <typename T>
void run_alltoall(size_t per_peer, int world, ncclComm_t comm, cudaStream_t s, ncclDataType_t type) {
  T *send, *recv;
  cudaMalloc(&send, per_peer * world * sizeof(T));
  cudaMalloc(&recv, per_peer * world * sizeof(T));
  cudaMemset(send, 1, per_peer * world * sizeof(T));
  auto exchange = [&]() {
    ncclGroupStart();
    for (int p = 0; p < world; ++p) {
      ncclSend(send + p * per_peer, per_peer, type, p, comm, s);
      ncclRecv(recv + p * per_peer, per_peer, type, p, comm, s);
    }
    ncclGroupEnd();
  };
  exchange();  // warm-up
  cudaStreamSynchronize(s);
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  cudaEventRecord(a, s);
  exchange();
  cudaEventRecord(b, s);
  cudaEventSynchronize(b);
  float ms = 0;
  cudaEventElapsedTime(&ms, a, b);
  std::printf("all-to-all: %.3f ms\n", ms);
  cudaFree(send);
  cudaFree(recv);
}

int main(int argc, char** argv) {
  const char* dtype = argc > 1 ? argv[1] : "float";
  const int rank = std::atoi(std::getenv("RANK")), world = std::atoi(std::getenv("WORLD_SIZE"));
  cudaSetDevice(rank);
  ncclUniqueId id;
  ncclGetUniqueId(&id);  // one host: a real launcher would share rank 0's
  ncclComm_t comm;
  ncclCommInitRank(&comm, world, id, rank);
  cudaStream_t s;
  cudaStreamCreate(&s);
  const size_t per_peer = 1 << 16;
  if (std::strcmp(dtype, "int") == 0) {
    run_alltoall<int>(per_peer, world, comm, s, ncclInt);
  } else if (std::strcmp(dtype, "float") == 0) {
    run_alltoall<float>(per_peer, world, comm, s, ncclFloat);
  } else {
    run_alltoall<double>(per_peer, world, comm, s, ncclDouble);
  }
  ncclCommDestroy(comm);
  return 0;
}
