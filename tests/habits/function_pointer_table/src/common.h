// A collective benchmark laid out as nccl-tests is: main and the timed loop in common.cu, each
// collective in a file of its own that fills a table of function pointers the loop calls through.
#pragma once
#include <cstddef>
#include <nccl.h>
#include <cuda_runtime.h>

struct testColl {
  const char name[20];
  void (*getBuffSize)(size_t* sendBytes, size_t* recvBytes, size_t count, int nranks);
  ncclResult_t (*runColl)(void* sendbuff, void* recvbuff, size_t count, ncclDataType_t type, ncclRedOp_t op,
                          int root, ncclComm_t comm, cudaStream_t stream);
};

extern struct testColl* collTest;
