// cuco/program/codesign.h: the design space of a harness made of a user's program (candidate side;
// cuco/program/candidate.h includes it).
//
// `cuco transform` makes generation 0 of such a seed by declaring two knobs (more with chunks and gather, below) at the top of its first
// EVOLVE block that lies at file scope, and by routing every NCCL call inside the blocks through
// cuco_program::comm with the backend knob as its first argument:
//     constexpr const char* kCucoBackend = "nccl";  // cuco:knob backend
//     constexpr const char* kCucoGraph = "off";     // cuco:knob graph
//     [[maybe_unused]] static const bool cuco_graph_knob = cuco_program::set_graph(kCucoGraph);
//     ncclAllReduce(a, b, n, ...)  ->  cuco_program::comm::AllReduce(kCucoBackend, a, b, n, ...)
// With both knobs at these defaults generation 0 does what the program does. Where the program
// communicates in files it includes (kept as they are), its knobs' lines also route every NCCL call
// outside the blocks through the backend knob (cuco/program/impl/included_calls.h):
//     [[maybe_unused]] static const bool cuco_included_calls = cuco_program::comm::RouteIncluded(kCucoBackend);
//
// backend "nccl": the program's own host NCCL call, unchanged.
//         "lsa":  the device-initiated drop-in of cuco/codesign/collectives.h (SM loads and stores
//                 over NVLink), under its contract: every rank in one LSA team (at most 8), every
//                 rank in every call and group in the same order, the program's communicator is
//                 the harness's. A buffer peers read that is not symmetric memory (the program's
//                 own cudaMalloc'd ones) is first copied into a symmetric staging buffer: the n-th
//                 such call of an iteration has its own, allocated collectively (every rank, same
//                 order) the first time it is needed, and again when it must grow.
//         "ce":   offered where the program reduces or all-gathers: its all-reduces, reduce-scatters,
//                 reduces and all-gathers move by copy engines into the peers' symmetric staging
//                 buffers, each receiver reducing the parts in rank order or copying each into its
//                 place (cuco/program/impl/ce_collectives.h; no SM while the bytes move, so behind the
//                 chunks knob, or ahead of the GEMM with the gather knob, they overlap the GEMM at
//                 little cost to it); every other call is the program's own host NCCL call. Same
//                 contract as "lsa", and not inside a stream capture (graph "on" fails, saying so).
// graph   "off":  the iteration's body runs as the program wrote it.
//         "on":   per binding of the harness's buffers (the harness rotates output sets), the body
//                 runs eagerly the first time (so lazy set-ups happen outside a capture), is captured
//                 into a CUDA graph the second time (ctx.stream, with every stream the program was
//                 given forked into the capture and joined back) and replayed from then on. In the
//                 capture, a wait for an event recorded only in an earlier pass (a double buffer's)
//                 is dropped, and so is a wait outside one for an event a capture recorded last:
//                 what follows on ctx.stream comes after that pass already. A body
//                 that cannot be captured (a host synchronisation, a launch on the legacy stream)
//                 fails its iteration with CUDA's reason. A replay repeats the host decisions of the
//                 captured iteration: a body whose work changes with the iteration gives other
//                 outputs, which verification sees.
// chunks  "1":    as the program wrote it.
//         "2", "4", "8" (offered where a collective reads the buffer that the call statement just
//                 before it writes, and the blocks call a GEMM it can split):
//                     cuco_program::overlap::Producer cuco_producer_74(kCucoChunks, z);
//                     gemm(blas, m, n, k, h, w2, z);          // cublasSgemm -> overlap::Sgemm inside
//                     cuco_program::comm::AllReduce(kCucoBackend, z, z, ...);
//                 the GEMM writing `z` (cublasSgemm, cublasHgemm, cublasGemmEx, cublasLtMatmul, each
//                 replaced by its stand-in in cuco_program::overlap) runs as that many column chunks
//                 of its output, and the collective runs per chunk on a side stream (the harness's
//                 highest-priority side stream), each part once its chunk is made, so communication
//                 overlaps the rest of the GEMM; the program's stream then waits for all of it. An
//                 all-reduce splits into all-reduces of the chunks; a reduce-scatter into reduces of
//                 each chunk's part in a rank's segment, to that rank. A GEMM whose output is not
//                 contiguous, or whose columns are fewer than the chunks, runs whole, and so does
//                 its collective (cuco/program/impl/chunk_overlap.h). Inside the program's NCCL
//                 group the chunks' calls go with the group closed, unless it holds a send or receive.
//                 The chunks are equal, each boundary at a multiple of up to 128 columns where the
//                 columns allow (chunk_bounds.h).
// comm_ctas "all": cuco's device collectives (backend "lsa") take up to two blocks per SM.
//         "64", "32", "16" (offered with chunks or gather, where GEMMs overlap the collectives):
//                 at most that many blocks per collective kernel, leaving the other SMs to the GEMM
//                 (cuco/program/impl/comm_ctas_knob.h). Nothing else changes: the other backends
//                 at a limit are excluded from the search.
// gather  "off":  as the program wrote it.
//         "on" (offered where the call statement just after an all-gather reads its output, and
//                 the blocks call a GEMM it can split):
//                     cuco_program::overlap::Consumer cuco_consumer_128(kCucoGather, x_full);
//                     cuco_program::comm::AllGather(kCucoBackend, x_local, x_full, ...);
//                     gemm(blas, seq, ffn, hidden, x_full, w1, h);
//                 the all-gather is kept until the GEMM reading `x_full` as B, which then runs per
//                 source rank's columns: its own rank's at once, each peer's once its send/recv step
//                 on a side stream has arrived (cuco/program/impl/gather_overlap.h); any other use
//                 gets the all-gather whole first.
// part    "none": the program. "compute" / "comm" (workload.toml's [[variants]] compute_alone and
//                 comm_alone, never searched): its communication skipped / the GEMMs cuco stands in
//                 for skipped (every cuBLAS/cublasLt GEMM of the program calls its stand-in,
//                 candidate_shims.h, split by a knob or not), timed alone for the program's overlap bound
//                 (part_knob.h):
//                     constexpr const char* kCucoPart = "none";      // cuco:knob part
//                     [[maybe_unused]] static const bool cuco_part_knob = cuco_program::set_part(kCucoPart);
// An unknown knob value fails the call (or, for graph, every iteration) with a message naming it.
// The knobs are read at run time only: cuco's builder compiles a candidate once for every setting of
// its knob values (each knob line's value becomes knob_value(i), defined by a unit of the values;
// src/evaluate/runtime_knobs.h), so a knob's value must not be needed in a constant expression.
// The comm:: calls are defined in runtime/src/program/program_collectives.cu, a runtime unit every
// CUDA harness's candidate links (the program's file compiles none of the device API's headers).
#pragma once

#include <cstddef>

#include <cuda_runtime.h>
#include <nccl.h>

namespace cuco_program {

// Sets the graph knob ("off" | "on"); returns true. Called from a static initialiser of the seed.
inline bool set_graph(const char* value);
// Sets the part knob ("none" | "compute" | "comm"); returns true. Likewise.
inline bool set_part(const char* value);
// Sets the comm_ctas knob ("all" | a block count); returns true. Likewise.
inline bool set_comm_ctas(const char* value);

// The value of a candidate's index-th knob line (in the order of its lines), where the builder took
// the values out of its code; defined by the unit of the values it compiles beside it.
const char* knob_value(int index);

namespace comm {

ncclResult_t AllReduce(const char* backend, const void* send, void* recv, size_t count, ncclDataType_t type,
                       ncclRedOp_t op, ncclComm_t comm, cudaStream_t stream);
ncclResult_t AllGather(const char* backend, const void* send, void* recv, size_t send_count, ncclDataType_t type,
                       ncclComm_t comm, cudaStream_t stream);
ncclResult_t ReduceScatter(const char* backend, const void* send, void* recv, size_t recv_count, ncclDataType_t type,
                           ncclRedOp_t op, ncclComm_t comm, cudaStream_t stream);
ncclResult_t Broadcast(const char* backend, const void* send, void* recv, size_t count, ncclDataType_t type, int root,
                       ncclComm_t comm, cudaStream_t stream);
ncclResult_t Bcast(const char* backend, void* buffer, size_t count, ncclDataType_t type, int root, ncclComm_t comm,
                   cudaStream_t stream);
ncclResult_t Reduce(const char* backend, const void* send, void* recv, size_t count, ncclDataType_t type,
                    ncclRedOp_t op, int root, ncclComm_t comm, cudaStream_t stream);
ncclResult_t AlltoAll(const char* backend, const void* send, void* recv, size_t count, ncclDataType_t type,
                      ncclComm_t comm, cudaStream_t stream);
ncclResult_t Gather(const char* backend, const void* send, void* recv, size_t count, ncclDataType_t type, int root,
                    ncclComm_t comm, cudaStream_t stream);
ncclResult_t Scatter(const char* backend, const void* send, void* recv, size_t count, ncclDataType_t type, int root,
                     ncclComm_t comm, cudaStream_t stream);
ncclResult_t Send(const char* backend, const void* buffer, size_t count, ncclDataType_t type, int peer,
                  ncclComm_t comm, cudaStream_t stream);
ncclResult_t Recv(const char* backend, void* buffer, size_t count, ncclDataType_t type, int peer, ncclComm_t comm,
                  cudaStream_t stream);
ncclResult_t GroupStart(const char* backend);
ncclResult_t GroupEnd(const char* backend);

}  // namespace comm

// A program that communicates through CUDA-aware MPI alone: `cuco transform` routes its MPI
// collectives inside the blocks through the backend knob, whose values are then "mpi" (its own call,
// the default), "lsa" and, where it reduces or all-gathers, "ce":
//     MPI_Allreduce(a, b, n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD)
//       ->  cuco_program::mpi_comm::Allreduce(kCucoBackend, a, b, n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD)
// cuco's MPI already moves such a call on device memory, on the world communicator, of a type (and
// operation) NCCL has, by NCCL (program.h's mpi_on_device: the "mpi" value); "lsa" and "ce" make it
// the comm:: call above at that backend instead, on the harness's communicator and stream; any
// other call stays the program's own MPI call. Each keeps MPI's blocking contract
// (runtime/src/program/mpi_collectives.cu). The MPI types are cuco's (cuco/program/mpi.h: ints), so
// they are ints here.
namespace mpi_comm {

int Allreduce(const char* backend, const void* send, void* recv, int count, int type, int op, int comm);
int Reduce(const char* backend, const void* send, void* recv, int count, int type, int op, int root, int comm);
int Bcast(const char* backend, void* buffer, int count, int type, int root, int comm);
int Allgather(const char* backend, const void* send, int send_count, int send_type, void* recv, int recv_count,
              int recv_type, int comm);
int Alltoall(const char* backend, const void* send, int send_count, int send_type, void* recv, int recv_count,
             int recv_type, int comm);
int Reduce_scatter_block(const char* backend, const void* send, void* recv, int recv_count, int type, int op,
                         int comm);

}  // namespace mpi_comm
}  // namespace cuco_program

