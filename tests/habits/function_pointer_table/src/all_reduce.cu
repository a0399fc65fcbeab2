#include "common.h"

static void AllReduceGetBuffSize(size_t* sendBytes, size_t* recvBytes, size_t count, int nranks) {
  (void)nranks;
  *sendBytes = count * sizeof(float);
  *recvBytes = count * sizeof(float);
}

static ncclResult_t AllReduceRunColl(void* sendbuff, void* recvbuff, size_t count, ncclDataType_t type,
                                     ncclRedOp_t op, int root, ncclComm_t comm, cudaStream_t stream) {
  (void)root;
  return ncclAllReduce(sendbuff, recvbuff, count, type, op, comm, stream);
}

struct testColl allReduceTest = {"AllReduce", AllReduceGetBuffSize, AllReduceRunColl};
struct testColl* collTest = &allReduceTest;
