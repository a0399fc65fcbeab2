// Habit of vendor example suites (written here, not copied): the example is one function that a
// shared launcher runs per rank or per thread; it allocates with ncclMemAlloc, registers symmetric
// windows, all-reduces once and checks the result. No timed loop.
#include <cstdio>
#include <cstdlib>

#include "run_util.h"

#define NCCL_OK(x) do { ncclResult_t r_ = (x); if (r_ != ncclSuccess) { \
  std::fprintf(stderr, "NCCL %s:%d %s\n", __FILE__, __LINE__, ncclGetErrorString(r_)); std::exit(1); } } while (0)

void* allReduce(int rank, int nranks, int device) {
  cudaSetDevice(device);
  ncclUniqueId id;
  if (rank == 0) NCCL_OK(ncclGetUniqueId(&id));
  share_id(rank, &id);
  ncclComm_t comm;
  NCCL_OK(ncclCommInitRank(&comm, nranks, id, rank));
  cudaStream_t stream;
  cudaStreamCreate(&stream);
  const size_t count = 1 << 24;
  float *sendbuf = nullptr, *recvbuf = nullptr;
  NCCL_OK(ncclMemAlloc(reinterpret_cast<void**>(&sendbuf), count * sizeof(float)));
  NCCL_OK(ncclMemAlloc(reinterpret_cast<void**>(&recvbuf), count * sizeof(float)));
  ncclWindow_t send_win, recv_win;
  NCCL_OK(ncclCommWindowRegister(comm, sendbuf, count * sizeof(float), &send_win, NCCL_WIN_COLL_SYMMETRIC));
  NCCL_OK(ncclCommWindowRegister(comm, recvbuf, count * sizeof(float), &recv_win, NCCL_WIN_COLL_SYMMETRIC));
  float* host = static_cast<float*>(malloc(count * sizeof(float)));
  for (size_t i = 0; i < count; ++i) host[i] = static_cast<float>(rank);
  cudaMemcpy(sendbuf, host, count * sizeof(float), cudaMemcpyHostToDevice);

  NCCL_OK(ncclAllReduce(sendbuf, recvbuf, count, ncclFloat, ncclSum, comm, stream));
  cudaStreamSynchronize(stream);

  cudaMemcpy(host, recvbuf, count * sizeof(float), cudaMemcpyDeviceToHost);
  const float want = nranks * (nranks - 1) / 2.0f;
  int bad = 0;
  for (size_t i = 0; i < count; ++i) bad += host[i] != want;
  std::printf("rank %d: %s\n", rank, bad ? "FAILED" : "PASSED");
  ncclCommWindowDeregister(comm, send_win);
  ncclCommWindowDeregister(comm, recv_win);
  ncclMemFree(sendbuf);
  ncclMemFree(recvbuf);
  ncclCommDestroy(comm);
  free(host);
  return bad ? reinterpret_cast<void*>(1) : nullptr;
}

int main(int argc, char** argv) { return run_example(argc, argv, allReduce); }
