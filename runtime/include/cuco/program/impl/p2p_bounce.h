// cuco/program/impl/p2p_bounce.h: the program's ncclSend / ncclRecv on the candidate side
// (candidate_shims.h renames them to these; defined in runtime/src/program/p2p_bounce.cu, compiled
// once for every program).
// NCCL (2.28) moves a send/recv pair over NVLink without a copy when the buffers are registered
// with the communicator, and it requires both sides to be registered ("We require users registering
// buffers on both sides", src/enqueue.cc): a registered send facing an unregistered receive waits
// for a handshake that never comes. The harness's buffers are registered NCCL windows; the program's
// own buffers are not. So a send or receive on one of this iteration's harness buffers goes through
// a plain buffer of its own: a send is copied into it first; a receive lands in it and is copied
// out once its group has ended. Every other send or receive is NCCL's own.
// Measured: pp_microbatch_initall (a pipeline stage sending from its bound output buffer to the next
// stage's own buffer) hung at its first harness iteration at two GPUs without this.
#pragma once

#include <cstddef>

#include <cuda_runtime.h>
#include <nccl.h>

namespace cuco_program::p2p {

ncclResult_t Send(const void* buf, size_t count, ncclDataType_t type, int peer, ncclComm_t comm, cudaStream_t stream);
ncclResult_t Recv(void* buf, size_t count, ncclDataType_t type, int peer, ncclComm_t comm, cudaStream_t stream);
// ncclGroupStart / ncclGroupEnd: a receive bounced inside a group is copied out when it ends.
ncclResult_t GroupStart();
ncclResult_t GroupEnd();
// The groups GroupStart opened on the calling thread and GroupEnd has not closed (per thread).
int GroupDepth();

}  // namespace cuco_program::p2p
