// Grouping through a macro, as C++ code bases write it (crazyguitar/cppcheatsheet's NCCL examples):
// `NCCL_GROUP({ for (...) NCCL_CHECK(ncclReduceScatter(...)); });`, the group's start and end
// written in the macro's replacement around its argument.
#include <cassert>
#include <nccl.h>

#define NCCL_CHECK(cmd)                \
  do {                                 \
    ncclResult_t r = cmd;              \
    assert(r == ncclSuccess);          \
  } while (0)
#define NCCL_GROUP(body)        \
  NCCL_CHECK(ncclGroupStart()); \
  body NCCL_CHECK(ncclGroupEnd())

int main() {
  int devs[2] = {0, 1};
  ncclComm_t comms[2];
  float *send[2], *recv[2];
  cudaStream_t s[2];
  ncclCommInitAll(comms, 2, devs);
  NCCL_GROUP({
    for (int i = 0; i < 2; i++) NCCL_CHECK(ncclReduceScatter(send[i], recv[i], 512, ncclFloat, ncclSum, comms[i], s[i]));
  });
  return 0;
}
