// cuco/program/impl/mpi_p2p.h: point-to-point MPI in cuco's stand-in (cuco/program/mpi.h includes
// it at its end), on host or device memory (a CUDA-aware MPI's halo exchange), built on program.h's
// p2p_send and p2p_receive: over NCCL between the candidate's ranks, through a mailbox between the
// reference's rank threads. Here: MPI_Send (and Ssend, Bsend, Rsend), MPI_Recv, MPI_Sendrecv and
// MPI_Sendrecv_replace, MPI_Isend (and Issend) and MPI_Irecv, and the waits and tests of their
// requests. What MPI does that this does not, refused with the reason on stderr:
//   - a message is paired by its order between two ranks (program.h), so a receive from
//     MPI_ANY_SOURCE, and MPI_Probe, are refused; the reference refuses a receive MPI would pair
//     with a later message by its tag, or whose count is not the message's;
// MPI_PROC_NULL is no rank, as MPI's: its sends and receives do nothing. A nonblocking send's
// bytes go with the rank's next receive or wait; a nonblocking receive completes at its wait (a test
// waits too, and says done).
#pragma once

#include <map>
#include <memory>
#include <vector>

namespace cuco_program::mpi {

// The world rank of rank `r` of communicator `c`; -1 when it has none.
inline int WorldRank(MPI_Comm c, int r) {
  const std::vector<int> ranks = CommRanks(c);
  return r >= 0 && r < static_cast<int>(ranks.size()) ? ranks[static_cast<size_t>(r)] : -1;
}

inline int PointToPointRefused(const char* call, const char* why) {
  std::fprintf(stderr, "cuco: %s is not in cuco's MPI stand-in (cuco/program/mpi.h): %s\n", call, why);
  return MPI_ERR_OTHER;
}
inline int NoSuchRank(const char* call, int r) {
  std::fprintf(stderr, "cuco: %s names rank %d, which its communicator does not have\n", call, r);
  return MPI_ERR_ARG;
}

inline void Fill(MPI_Status* status, int source, int tag, size_t bytes) {
  if (status == MPI_STATUS_IGNORE) return;
  status->MPI_SOURCE = source;
  status->MPI_TAG = tag;
  status->MPI_ERROR = MPI_SUCCESS;
  status->cuco_bytes = static_cast<long long>(bytes);
}

// `n` items of strided type `s` at `strided` to or from `packed` (n * s.packed() bytes), on host
// memory (mpi_strided.h) or device memory (a 2-D copy per item). False when a copy failed.
inline bool MoveStrided(void* strided, const StridedType& s, int n, unsigned char* packed, bool pack) {
  auto* base = static_cast<unsigned char*>(strided);
  if (!OnDevice(strided)) return MoveStridedHost(base, s, n, packed, pack), true;
  const size_t w = static_cast<size_t>(s.block_bytes), h = static_cast<size_t>(s.count), pitch = static_cast<size_t>(s.stride_bytes);
  for (long long k = 0; k < n; ++k) {
    unsigned char* item = base + k * s.extent();
    unsigned char* flat = packed + k * s.packed();
    const cudaError_t e = pack ? cudaMemcpy2D(flat, w, item, pitch, w, h, cudaMemcpyDeviceToHost)
                               : cudaMemcpy2D(item, pitch, flat, w, w, h, cudaMemcpyHostToDevice);
    if (e != cudaSuccess) return false;
  }
  return true;
}

inline int Send(const char* call, const void* buf, int count, MPI_Datatype t, int dest, int tag, MPI_Comm c, bool stays) {
  if (dest == MPI_PROC_NULL) return MPI_SUCCESS;
  const int to = WorldRank(c, dest);
  if (to < 0) return NoSuchRank(call, dest);
  if (IsStrided(t)) {  // packed here, its bytes copied at once
    const StridedType s = Strided(t);
    std::vector<unsigned char> packed(static_cast<size_t>(s.packed() * count));
    if (!MoveStrided(const_cast<void*>(buf), s, count, packed.data(), true)) return MPI_ERR_OTHER;
    return cuco_program::p2p_send(packed.data(), packed.size(), to, tag, false) == 0 ? MPI_SUCCESS : MPI_ERR_OTHER;
  }
  return cuco_program::p2p_send(buf, TypeBytes(t) * static_cast<size_t>(count), to, tag, stays) == 0 ? MPI_SUCCESS
                                                                                                      : MPI_ERR_OTHER;
}

// A receive not yet made: what its wait completes.
struct PendingReceive {
  P2pReceive receive;
  int source;  // the rank in its communicator, for the status
  // A strided type's: received packed into `packed`, unpacked at its completion into `unpack_to`.
  std::shared_ptr<std::vector<unsigned char>> packed;
  void* unpack_to = nullptr;
  StridedType strided;
  int count = 0;
};
// A request: a receive to complete, or a send already on its way (receive.from -1).
inline thread_local std::map<MPI_Request, PendingReceive> t_requests;
inline thread_local MPI_Request t_next_request = 1;

// The receive of `count` elements from `source` of `c` into buf, as a pending receive; a
// refusal's code in *code (MPI_PROC_NULL: none, *code MPI_SUCCESS and its `from` -1).
inline PendingReceive Receive(const char* call, void* buf, int count, MPI_Datatype t, int source, int tag, MPI_Comm c,
                              int* code) {
  *code = MPI_SUCCESS;
  PendingReceive p{{nullptr, 0, -1, tag}, source};
  if (source == MPI_PROC_NULL) return p;
  if (source == MPI_ANY_SOURCE) {
    *code = PointToPointRefused(call, "a receive from MPI_ANY_SOURCE (cuco pairs messages by the ranks that send them)");
    return p;
  }
  p.receive.from = WorldRank(c, source);
  if (p.receive.from < 0) *code = NoSuchRank(call, source);
  if (IsStrided(t)) {
    p.strided = Strided(t);
    p.packed = std::make_shared<std::vector<unsigned char>>(static_cast<size_t>(p.strided.packed() * count));
    p.unpack_to = buf;
    p.count = count;
    p.receive.data = p.packed->data();
    p.receive.bytes = p.packed->size();
    return p;
  }
  p.receive.data = buf;
  p.receive.bytes = TypeBytes(t) * static_cast<size_t>(count);
  return p;
}

// Completes the receives of `pending` (those from a rank) at once, and fills their statuses
// (statuses[i] for pending[i]; MPI_STATUSES_IGNORE: none).
inline int Complete(const std::vector<PendingReceive>& pending, MPI_Status* statuses) {
  std::vector<P2pReceive> receives;
  for (const PendingReceive& p : pending)
    if (p.receive.from >= 0) receives.push_back(p.receive);
  const int rc = receives.empty() ? cuco_program::p2p_flush() : cuco_program::p2p_receive(receives.data(), static_cast<int>(receives.size()));
  bool unpacked = true;
  for (const PendingReceive& p : pending)
    if (rc == 0 && p.receive.from >= 0 && p.packed)
      unpacked = MoveStrided(p.unpack_to, p.strided, p.count, p.packed->data(), false) && unpacked;
  if (statuses != MPI_STATUSES_IGNORE)
    for (size_t i = 0; i < pending.size(); ++i)
      Fill(&statuses[i], pending[i].receive.from < 0 ? MPI_PROC_NULL : pending[i].source, pending[i].receive.tag,
           pending[i].receive.bytes);
  return rc == 0 && unpacked ? MPI_SUCCESS : MPI_ERR_OTHER;
}

inline MPI_Request NewRequest(const PendingReceive& p) {
  const MPI_Request id = t_next_request++;
  t_requests[id] = p;
  return id;
}

// The pending receive of request `r`, which it ends (*r = MPI_REQUEST_NULL); a send's or a null
// request's: none (`from` -1).
inline PendingReceive TakeRequest(MPI_Request* r) {
  PendingReceive p{{nullptr, 0, -1, MPI_ANY_TAG}, MPI_PROC_NULL};
  if (*r == MPI_REQUEST_NULL) return p;
  const auto it = t_requests.find(*r);
  if (it != t_requests.end()) p = it->second, t_requests.erase(it);
  *r = MPI_REQUEST_NULL;
  return p;
}

}  // namespace cuco_program::mpi

inline int MPI_Send(const void* buf, int count, MPI_Datatype t, int dest, int tag, MPI_Comm c) {
  return cuco_program::mpi::Send("MPI_Send", buf, count, t, dest, tag, c, false);
}
inline int MPI_Ssend(const void* buf, int count, MPI_Datatype t, int dest, int tag, MPI_Comm c) {
  return cuco_program::mpi::Send("MPI_Ssend", buf, count, t, dest, tag, c, false);
}
inline int MPI_Bsend(const void* buf, int count, MPI_Datatype t, int dest, int tag, MPI_Comm c) {
  return cuco_program::mpi::Send("MPI_Bsend", buf, count, t, dest, tag, c, false);
}
inline int MPI_Rsend(const void* buf, int count, MPI_Datatype t, int dest, int tag, MPI_Comm c) {
  return cuco_program::mpi::Send("MPI_Rsend", buf, count, t, dest, tag, c, false);
}
inline int MPI_Recv(void* buf, int count, MPI_Datatype t, int source, int tag, MPI_Comm c, MPI_Status* status) {
  int code = MPI_SUCCESS;
  const cuco_program::mpi::PendingReceive p = cuco_program::mpi::Receive("MPI_Recv", buf, count, t, source, tag, c, &code);
  return code != MPI_SUCCESS ? code : cuco_program::mpi::Complete({p}, status);
}
inline int MPI_Sendrecv(const void* send, int scount, MPI_Datatype st, int dest, int stag, void* recv, int rcount,
                        MPI_Datatype rt, int source, int rtag, MPI_Comm c, MPI_Status* status) {
  int code = MPI_SUCCESS;
  const cuco_program::mpi::PendingReceive p =
      cuco_program::mpi::Receive("MPI_Sendrecv", recv, rcount, rt, source, rtag, c, &code);
  if (code != MPI_SUCCESS) return code;
  // The send's bytes stay until the receive below, which takes them with it.
  code = cuco_program::mpi::Send("MPI_Sendrecv", send, scount, st, dest, stag, c, true);
  return code != MPI_SUCCESS ? code : cuco_program::mpi::Complete({p}, status);
}
inline int MPI_Sendrecv_replace(void* buf, int count, MPI_Datatype t, int dest, int stag, int source, int rtag,
                                MPI_Comm c, MPI_Status* status) {
  int code = MPI_SUCCESS;
  const cuco_program::mpi::PendingReceive p =
      cuco_program::mpi::Receive("MPI_Sendrecv_replace", buf, count, t, source, rtag, c, &code);
  if (code != MPI_SUCCESS) return code;
  code = cuco_program::mpi::Send("MPI_Sendrecv_replace", buf, count, t, dest, stag, c, false);  // copied: buf is overwritten
  return code != MPI_SUCCESS ? code : cuco_program::mpi::Complete({p}, status);
}
inline int MPI_Isend(const void* buf, int count, MPI_Datatype t, int dest, int tag, MPI_Comm c, MPI_Request* req) {
  *req = MPI_REQUEST_NULL;
  const int code = cuco_program::mpi::Send("MPI_Isend", buf, count, t, dest, tag, c, true);
  if (code == MPI_SUCCESS) *req = cuco_program::mpi::NewRequest({{nullptr, 0, -1, tag}, dest});
  return code;
}
inline int MPI_Issend(const void* buf, int count, MPI_Datatype t, int dest, int tag, MPI_Comm c, MPI_Request* req) {
  return MPI_Isend(buf, count, t, dest, tag, c, req);
}
inline int MPI_Irecv(void* buf, int count, MPI_Datatype t, int source, int tag, MPI_Comm c, MPI_Request* req) {
  *req = MPI_REQUEST_NULL;
  int code = MPI_SUCCESS;
  const cuco_program::mpi::PendingReceive p = cuco_program::mpi::Receive("MPI_Irecv", buf, count, t, source, tag, c, &code);
  if (code == MPI_SUCCESS) *req = cuco_program::mpi::NewRequest(p);
  return code;
}
inline int MPI_Wait(MPI_Request* req, MPI_Status* status) {
  return cuco_program::mpi::Complete({cuco_program::mpi::TakeRequest(req)}, status);
}
inline int MPI_Waitall(int count, MPI_Request reqs[], MPI_Status* statuses) {
  std::vector<cuco_program::mpi::PendingReceive> pending;
  for (int i = 0; i < count; ++i) pending.push_back(cuco_program::mpi::TakeRequest(&reqs[i]));
  return cuco_program::mpi::Complete(pending, statuses);
}
// The first active request of `reqs`, completed; MPI_UNDEFINED in *index when none is.
inline int MPI_Waitany(int count, MPI_Request reqs[], int* index, MPI_Status* status) {
  *index = MPI_UNDEFINED;
  for (int i = 0; i < count; ++i)
    if (reqs[i] != MPI_REQUEST_NULL) return (*index = i), MPI_Wait(&reqs[i], status);
  return MPI_SUCCESS;
}
// Every active request completed at once: all of them are the ones done.
inline int MPI_Waitsome(int count, MPI_Request reqs[], int* done, int indices[], MPI_Status* statuses) {
  std::vector<cuco_program::mpi::PendingReceive> pending;
  *done = 0;
  for (int i = 0; i < count; ++i)
    if (reqs[i] != MPI_REQUEST_NULL) indices[(*done)++] = i, pending.push_back(cuco_program::mpi::TakeRequest(&reqs[i]));
  if (*done == 0) return (*done = MPI_UNDEFINED), MPI_SUCCESS;
  return cuco_program::mpi::Complete(pending, statuses);
}
inline int MPI_Test(MPI_Request* req, int* flag, MPI_Status* status) {
  *flag = 1;
  return MPI_Wait(req, status);
}
inline int MPI_Testall(int count, MPI_Request reqs[], int* flag, MPI_Status* statuses) {
  *flag = 1;
  return MPI_Waitall(count, reqs, statuses);
}
// A freed request still completes, as MPI's: a receive now.
inline int MPI_Request_free(MPI_Request* req) { return MPI_Wait(req, MPI_STATUS_IGNORE); }
inline int MPI_Probe(int, int, MPI_Comm, MPI_Status*) {
  return cuco_program::mpi::PointToPointRefused("MPI_Probe", "a message's size is known only to its receive");
}
inline int MPI_Iprobe(int, int, MPI_Comm, int* flag, MPI_Status*) {
  *flag = 0;
  return cuco_program::mpi::PointToPointRefused("MPI_Iprobe", "a message's size is known only to its receive");
}
