// Included by ring.cu: one ring step as grouped send/recv; `Ring` is main.cu's.
#pragma once
#include <nccl.h>

inline void exchange(const Ring& r, ncclComm_t comm, cudaStream_t s) {
  ncclGroupStart();
  ncclSend(r.send, r.count, ncclFloat, r.next, comm, s);
  ncclRecv(r.recv, r.count, ncclFloat, r.prev, comm, s);
  ncclGroupEnd();
}
