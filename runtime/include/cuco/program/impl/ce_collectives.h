// cuco/program/impl/ce_collectives.h: the backend knob's "ce" (cuco/program/codesign.h): the
// program's reducing collectives and all-gathers moved by copy engines (no SM while the bytes move), defined in
// runtime/src/program/ce_collectives.cu (compiled once for every program).
//
// Each call pushes its parts with cudaMemcpyAsync into the receivers' symmetric staging buffers
// (one slot per sending rank), announces each with a flag written behind the copy on the stream,
// and each receiver, once every part has arrived, reduces the parts element by element in rank
// order (fp32 for halves: every rank computes identical bits) and hands the slots back with a flag
// of its own. Flags and stream waits are the harness's stream memory operations (no SM spins).
//   all-reduce:     every rank pushes its whole buffer to every other rank, and reduces all of it
//                   ((W-1) x its bytes out per rank: the same as a ring at W = 2);
//   reduce:         every rank but the root pushes to the root, which reduces;
//   reduce-scatter: every rank pushes segment q to rank q, which reduces its segment;
//   all-gather:     every rank pushes its part to every other rank, each of which copies it into
//                   its place once it has arrived ((W-1) x the part out per rank, as a ring; the
//                   staging slot frees the part from needing a symmetric output buffer).
// The n-th such call of an iteration uses staging set n (allocated collectively the first time,
// again when it must grow); a call outside the harness's iterations (a warm-up) the set of the
// first call with the same buffers. Contract: every rank makes the same calls in the same order,
// in one LSA team (one NVLink domain, at most 8 ranks); not inside a stream capture (the epochs
// are host counters a graph would freeze: the call fails, saying so).
#pragma once

#include <cstddef>

#include <cuda_runtime.h>
#include <nccl.h>
#include <nccl_device.h>

namespace cuco_program::ce {

// `dev_comm`: the candidate's device communicator (every rank of the LSA team).
ncclResult_t AllReduce(const ncclDevComm& dev_comm, const void* send, void* recv, size_t count, ncclDataType_t type,
                       ncclRedOp_t op, cudaStream_t stream);
ncclResult_t Reduce(const ncclDevComm& dev_comm, const void* send, void* recv, size_t count, ncclDataType_t type,
                    ncclRedOp_t op, int root, cudaStream_t stream);
ncclResult_t ReduceScatter(const ncclDevComm& dev_comm, const void* send, void* recv, size_t recv_count,
                           ncclDataType_t type, ncclRedOp_t op, cudaStream_t stream);
ncclResult_t AllGather(const ncclDevComm& dev_comm, const void* send, void* recv, size_t send_count,
                       ncclDataType_t type, cudaStream_t stream);
// The gather knob's form (gather_overlap.h): step `step` (1 to W-1, in order, every one on `stream`)
// of an all-gather whose own part the caller placed: this rank's part to rank + step, and rank -
// step's part into its place in `recv`. Step 1 takes the staging set, as one AllGather would.
ncclResult_t AllGatherStep(const ncclDevComm& dev_comm, const void* send, void* recv, size_t send_count,
                           ncclDataType_t type, int step, cudaStream_t stream);

}  // namespace cuco_program::ce
