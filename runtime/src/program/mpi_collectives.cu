// runtime/src/program/mpi_collectives.cu: the candidate side's program.h mpi_on_device (cuco's MPI
// collectives of device memory, moved by NCCL) and cuco_program::mpi_comm (cuco/program/codesign.h:
// a CUDA-aware MPI program's collectives routed through the backend knob). Linked into every CUDA
// harness's candidate (a cuco runtime unit: nothing here depends on the program's own macros).
//
// A call whose buffers are device memory, on the world communicator, of a type NCCL has (and, for a
// reduction, an operation it has) becomes the matching cuco_program::comm call on the harness's
// communicator and stream, at backend "nccl" for MPI's own call ("mpi"), else at the knob's; any
// other call is staged by cuco's MPI. Either way the call keeps MPI's blocking contract: the device
// is synchronised first (the program's kernels that wrote a send buffer, on any of its streams, are
// done, as CUDA-aware MPI asks of the program), and the call returns once the data has arrived.
// Inside a capture of the harness's stream (graph "on") both waits are left to the stream's order.
// Every mpi_comm call the part knob's "compute" skips returns at once; the program's own MPI calls
// outside the blocks are staged then.
#define CUCO_PROGRAM_RUNTIME_UNIT 1

#include <cstdio>
#include <cstring>

#include <cuda_runtime.h>
#include <nccl.h>

#include <cuco/program/codesign.h>
#include <cuco/program/impl/candidate_state.h>
#include <cuco/program/mpi.h>

namespace cuco_program {
namespace {

bool Own(const char* backend) { return backend != nullptr && std::strcmp(backend, "mpi") == 0; }

bool Known(const char* call, const char* backend) {
  for (const char* b : {"mpi", "lsa", "ce"})
    if (backend != nullptr && std::strcmp(backend, b) == 0) return true;
  std::fprintf(stderr, "cuco: %s: backend knob \"%s\" is none of \"mpi\", \"lsa\" and \"ce\"\n", call,
               backend ? backend : "(null)");
  return false;
}

// NCCL's type for an MPI type of cuco's MPI; false for any other (complex, pairs, derived, bool).
// `reduced`: the type is reduced, so bytes (MPI_BYTE, MPI_CHAR) do not qualify.
bool NcclType(int t, bool reduced, ncclDataType_t* out) {
  switch (t) {
    case MPI_BYTE: case MPI_CHAR: if (reduced) return false; *out = ncclInt8; return true;
    case MPI_SIGNED_CHAR: *out = ncclInt8; return true;
    case MPI_UNSIGNED_CHAR: *out = ncclUint8; return true;
    case MPI_INT: *out = ncclInt32; return true;
    case MPI_UNSIGNED: *out = ncclUint32; return true;
    case MPI_LONG: case MPI_LONG_LONG: *out = ncclInt64; return true;
    case MPI_UNSIGNED_LONG: case MPI_UNSIGNED_LONG_LONG: *out = ncclUint64; return true;
    case MPI_FLOAT: *out = ncclFloat32; return true;
    case MPI_DOUBLE: *out = ncclFloat64; return true;
    default: return false;
  }
}

bool NcclOp(int op, ncclRedOp_t* out) {
  switch (op) {
    case MPI_SUM: *out = ncclSum; return true;
    case MPI_PROD: *out = ncclProd; return true;
    case MPI_MAX: *out = ncclMax; return true;
    case MPI_MIN: *out = ncclMin; return true;
    default: return false;
  }
}

// Whether every buffer of `buffers` is device memory, on the world communicator: the call moves
// over the harness's communicator, whose ranks are the world's.
bool OnDeviceInWorld(int comm, std::initializer_list<const void*> buffers) {
  if (comm != MPI_COMM_WORLD) return false;
  for (const void* p : buffers)
    if (!mpi::OnDevice(p)) return false;
  return true;
}

int Failed(const char* call, const char* backend, const char* what) {
  std::fprintf(stderr, "cuco: %s with backend \"%s\" over the harness's communicator: %s\n", call, backend, what);
  std::fflush(stderr);
  return MPI_ERR_OTHER;
}

// `issue(comm, stream)` under MPI's blocking contract (the file's comment).
template <class Issue>
int OverHarness(const char* call, const char* backend, Issue issue) {
  if (p2p_flush() != 0) return MPI_ERR_OTHER;  // the rank's buffered sends go first, as MPI's do
  cuco::RankContext& ctx = *candidate_detail::S().ctx;
  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  if (cudaStreamIsCapturing(ctx.stream, &capture) != cudaSuccess) return Failed(call, backend, "cudaStreamIsCapturing");
  const bool eager = capture == cudaStreamCaptureStatusNone;
  if (eager && cudaDeviceSynchronize() != cudaSuccess) return Failed(call, backend, "cudaDeviceSynchronize before it");
  const ncclResult_t r = issue(ctx.comm, ctx.stream);
  if (r != ncclSuccess) return Failed(call, backend, ncclGetErrorString(r));
  if (eager && cudaStreamSynchronize(ctx.stream) != cudaSuccess) return Failed(call, backend, "cudaStreamSynchronize");
  return MPI_SUCCESS;
}

}  // namespace

int mpi_on_device(const MpiCollective& call, const char* backend) {
  using C = MpiCollective;
  // The part knob's "compute" skips the calls the backend knob routes (mpi_comm, below), not the
  // program's own MPI (a set-up's broadcast of its weights), which is then staged as in the reference.
  if (candidate_detail::SkipCommunication()) return -1;
  const char* be = Own(backend) ? "nccl" : backend;
  const int rank = candidate_detail::S().ctx->rank;
  const void* send = call.send;
  void* recv = call.recv;
  ncclDataType_t t = ncclUint8;
  ncclRedOp_t o = ncclSum;
  const bool reduces = call.kind == C::kAllreduce || call.kind == C::kReduce || call.kind == C::kReduceScatterBlock;
  if (call.count < 0 || !NcclType(call.type, reduces, &t) || (reduces && !NcclOp(call.op, &o))) return -1;
  const size_t n = static_cast<size_t>(call.count);
  switch (call.kind) {
    case C::kAllreduce:
      if (send == MPI_IN_PLACE) send = recv;
      if (!OnDeviceInWorld(call.comm, {send, recv})) return -1;
      return OverHarness("MPI_Allreduce", be, [&](ncclComm_t c, cudaStream_t s) {
        return comm::AllReduce(be, send, recv, n, t, o, c, s);
      });
    case C::kReduce: {
      if (call.root < 0 || call.root >= world()) return -1;
      if (send == MPI_IN_PLACE) send = recv;  // the root's only (MPI)
      // A non-root's receive buffer is not MPI's: NCCL's is unused there, the send buffer stands in.
      void* into = rank == call.root ? recv : const_cast<void*>(send);
      if (!OnDeviceInWorld(call.comm, {send, into})) return -1;
      return OverHarness("MPI_Reduce", be, [&](ncclComm_t c, cudaStream_t s) {
        return comm::Reduce(be, send, into, n, t, o, call.root, c, s);
      });
    }
    case C::kBcast:
      if (call.root < 0 || call.root >= world() || !OnDeviceInWorld(call.comm, {recv})) return -1;
      return OverHarness("MPI_Bcast", be, [&](ncclComm_t c, cudaStream_t s) {
        return comm::Broadcast(be, recv, recv, n, t, call.root, c, s);
      });
    case C::kAllgather:
      if (send == MPI_IN_PLACE)  // this rank's part is in place in recv
        send = static_cast<const unsigned char*>(recv) + mpi::TypeBytes(call.type) * n * static_cast<size_t>(rank);
      else if (call.send_type != call.type || call.send_count != call.count)
        return -1;
      if (!OnDeviceInWorld(call.comm, {send, recv})) return -1;
      return OverHarness("MPI_Allgather", be, [&](ncclComm_t c, cudaStream_t s) {
        return comm::AllGather(be, send, recv, n, t, c, s);
      });
    case C::kAlltoall:
      if (send == MPI_IN_PLACE || call.send_type != call.type || call.send_count != call.count ||
          !OnDeviceInWorld(call.comm, {send, recv}))
        return -1;
      return OverHarness("MPI_Alltoall", be, [&](ncclComm_t c, cudaStream_t s) {
        return comm::AlltoAll(be, send, recv, n, t, c, s);
      });
    case C::kReduceScatterBlock:
      // In place, MPI reads the whole input from recv and leaves this rank's part at its start, where
      // NCCL's in-place form leaves it at the rank's offset: staged.
      if (send == MPI_IN_PLACE || !OnDeviceInWorld(call.comm, {send, recv})) return -1;
      return OverHarness("MPI_Reduce_scatter_block", be, [&](ncclComm_t c, cudaStream_t s) {
        return comm::ReduceScatter(be, send, recv, n, t, o, c, s);
      });
  }
  return -1;
}

namespace mpi_comm {
namespace {

// The knob's call: `own()` (the program's MPI call) at "mpi", and where mpi_on_device does not move it.
template <class Call>
int Routed(const char* name, const char* backend, const MpiCollective& call, Call own) {
  if (candidate_detail::SkipCommunication()) return MPI_SUCCESS;
  if (!Known(name, backend)) return MPI_ERR_ARG;
  if (!Own(backend))
    if (const int r = mpi_on_device(call, backend); r >= 0) return r;
  return own();
}

}  // namespace

using C = MpiCollective;

int Allreduce(const char* backend, const void* send, void* recv, int count, int type, int op, int comm) {
  return Routed("MPI_Allreduce", backend, {C::kAllreduce, send, recv, count, type, op, 0, comm},
                [&] { return MPI_Allreduce(send, recv, count, type, op, comm); });
}

int Reduce(const char* backend, const void* send, void* recv, int count, int type, int op, int root, int comm) {
  return Routed("MPI_Reduce", backend, {C::kReduce, send, recv, count, type, op, root, comm},
                [&] { return MPI_Reduce(send, recv, count, type, op, root, comm); });
}

int Bcast(const char* backend, void* buffer, int count, int type, int root, int comm) {
  return Routed("MPI_Bcast", backend, {C::kBcast, buffer, buffer, count, type, 0, root, comm},
                [&] { return MPI_Bcast(buffer, count, type, root, comm); });
}

int Allgather(const char* backend, const void* send, int send_count, int send_type, void* recv, int recv_count,
              int recv_type, int comm) {
  return Routed("MPI_Allgather", backend,
                {C::kAllgather, send, recv, recv_count, recv_type, 0, 0, comm, send_count, send_type},
                [&] { return MPI_Allgather(send, send_count, send_type, recv, recv_count, recv_type, comm); });
}

int Alltoall(const char* backend, const void* send, int send_count, int send_type, void* recv, int recv_count,
             int recv_type, int comm) {
  return Routed("MPI_Alltoall", backend,
                {C::kAlltoall, send, recv, recv_count, recv_type, 0, 0, comm, send_count, send_type},
                [&] { return MPI_Alltoall(send, send_count, send_type, recv, recv_count, recv_type, comm); });
}

int Reduce_scatter_block(const char* backend, const void* send, void* recv, int recv_count, int type, int op,
                         int comm) {
  return Routed("MPI_Reduce_scatter_block", backend, {C::kReduceScatterBlock, send, recv, recv_count, type, op, 0, comm},
                [&] { return MPI_Reduce_scatter_block(send, recv, recv_count, type, op, comm); });
}

}  // namespace mpi_comm
}  // namespace cuco_program
