// cuco/program/mpi.h: the MPI a program run by the harness sees (cuco init puts it where the
// program included <mpi.h>). Ranks are the harness's; every collective is built on
// cuco_program::host_allgather, so it has MPI's meaning on both sides (a real exchange between the
// candidate's ranks, or between the reference's rank threads). The error and version queries
// error macros call are here (MPI_Error_string, MPI_Error_class, MPI_Get_processor_name, ...), and
// MPI_Abort ends the program's thread like exit(). Groups and the communicators made of them
// (MPI_Comm_group, MPI_Group_incl, MPI_Comm_create) are here (impl/mpi_groups.h): a group of every
// rank makes the world, a rank outside the group gets MPI_COMM_NULL, and a communicator of some
// ranks answers its rank and size but refuses collectives. Point-to-point MPI (blocking and
// nonblocking, on host or device memory) is here (impl/mpi_p2p.h), its messages paired by their
// order between two ranks. One-sided MPI compiles and fails when run, with a message
// (impl/mpi_refused.h): a program checking its result with it after the timed loop, which the
// harness never runs, builds.
// MPI_Scan, MPI_Exscan and MPI_Reduce_scatter (counts per rank) are here, and the nonblocking
// collectives (MPI_Iallreduce, ...), run at their call. Splits by several colours (each rank gets its part; the
// collectives every rank makes at once on its own part: impl/mpi_groups.h) and Cartesian grids of
// every rank (impl/mpi_cart.h) are here, and so are derived datatypes that move as bytes (contiguous
// types and structs: impl/mpi_datatypes.h) and vectors in point-to-point calls (packed and unpacked
// there: impl/mpi_strided.h). So is MPI-IO, on POSIX files, each rank reading and
// writing at its own offsets (impl/mpi_io.h). The collectives take device memory as a CUDA-aware MPI
// does: in the candidate, MPI_Allreduce, MPI_Reduce, MPI_Bcast, MPI_Allgather, MPI_Alltoall and
// MPI_Reduce_scatter_block of device memory on the world move by NCCL (program.h's mpi_on_device);
// every other call, and every call of the reference, is staged through host memory (impl/mpi_device.h).
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <type_traits>
#include <utility>
#include <vector>

// What a C++ program gets from the real <mpi.h> besides MPI (OpenMPI's and MPICH's C++ bindings
// include <iostream>, <map>, <utility>, <cstdarg> unless told to skip them): hrshl212's solver uses
// std::cout with no include of its own.
#if !defined(OMPI_SKIP_MPICXX) && !defined(MPICH_SKIP_MPICXX) && defined(__cplusplus)
#include <cstdarg>
#include <iostream>
#include <map>
#endif

#include <cuco/program/impl/mpi_groups.h>
#include <cuco/program/impl/mpi_device.h>
#include <cuco/program/impl/mpi_ops.h>
#include <cuco/program/program.h>

#define OMPI_MPI_H 1  // a later #include <mpi.h> (Open MPI's) is empty
// Open MPI's extensions (<mpi-ext.h>, which cuco init also spells as this header): the stand-in
// moves device memory, as a CUDA-aware MPI does.
#define MPIX_CUDA_AWARE_SUPPORT 1
inline int MPIX_Query_cuda_support() { return 1; }
#define MPI_INCLUDED 1  // (MPICH's)

typedef int MPI_Comm;
typedef int MPI_Datatype;
typedef int MPI_Op;
typedef int MPI_Request;
typedef int MPI_Info;
typedef int MPI_Group;
struct MPI_Status {
  int MPI_SOURCE, MPI_TAG, MPI_ERROR;
  long long cuco_bytes;  // what a file read or write moved (impl/mpi_io.h: MPI_Get_count)
};

#define MPI_SUCCESS 0
#define MPI_ERR_COMM 5
#define MPI_ERR_OP 9
#define MPI_ERR_ARG 12
#define MPI_ERR_UNKNOWN 14
#define MPI_ERR_OTHER 15
#define MPI_ERR_LASTCODE 92
#define MPI_MAX_ERROR_STRING 256
#define MPI_MAX_LIBRARY_VERSION_STRING 256
#define MPI_VERSION 3
#define MPI_SUBVERSION 1
#define MPI_UNDEFINED (-32766)
typedef int MPI_Errhandler;
#define MPI_ERRORS_ARE_FATAL 1
#define MPI_ERRORS_RETURN 2
#define MPI_COMM_WORLD 0
#define MPI_COMM_NULL (-1)
#define MPI_GROUP_NULL (-1)
#define MPI_GROUP_EMPTY (-2)
// MPICH's values (Intel MPI's, Cray MPICH's, MVAPICH's): a program written against them sees them (eth-cscs's
// miniapp tests that a missing neighbour's rank, MPI_PROC_NULL, reads -1).
#define MPI_ANY_SOURCE (-2)
#define MPI_ANY_TAG (-1)
#define MPI_PROC_NULL (-1)
#define MPI_COMM_TYPE_SHARED 1
#define MPI_INFO_NULL 0
#define MPI_IN_PLACE (reinterpret_cast<void*>(1))
#define MPI_STATUS_IGNORE (static_cast<MPI_Status*>(nullptr))
#define MPI_MAX_PROCESSOR_NAME 256
#define MPI_THREAD_SINGLE 0
#define MPI_THREAD_FUNNELED 1
#define MPI_THREAD_SERIALIZED 2
#define MPI_THREAD_MULTIPLE 3
#define MPI_REQUEST_NULL 0
#define MPI_STATUSES_IGNORE (static_cast<MPI_Status*>(nullptr))

// Datatypes: the value is the element size; the kind rides in the tens of thousands.
#define MPI_DATATYPE_NULL 0
#define MPI_BYTE 1
#define MPI_CHAR 10001
#define MPI_UNSIGNED_CHAR 20001
#define MPI_INT 30004
#define MPI_UNSIGNED 40004
#define MPI_LONG 50008
#define MPI_UNSIGNED_LONG 60008
#define MPI_LONG_LONG 70008
#define MPI_LONG_LONG_INT 70008
#define MPI_UNSIGNED_LONG_LONG 80008
#define MPI_INT64_T 70008
#define MPI_UINT64_T 80008
#define MPI_INT32_T 30004
#define MPI_UINT32_T 40004
#define MPI_FLOAT 90004
#define MPI_DOUBLE 100008
#define MPI_SIGNED_CHAR 110001
#define MPI_INT8_T 110001
#define MPI_UINT8_T 20001
#define MPI_SHORT 120002
#define MPI_INT16_T 120002
#define MPI_UNSIGNED_SHORT 130002
#define MPI_UINT16_T 130002
#define MPI_C_BOOL 140001
#define MPI_CXX_BOOL 140001
#define MPI_LONG_DOUBLE 150016
#define MPI_WCHAR 160004
#define MPI_AINT 70008
#define MPI_OFFSET 70008
#define MPI_COUNT 70008
// Complex numbers move (broadcasts, gathers) but are not reduced here.
#define MPI_C_FLOAT_COMPLEX 170008
#define MPI_CXX_FLOAT_COMPLEX 170008
#define MPI_C_DOUBLE_COMPLEX 180016
#define MPI_CXX_DOUBLE_COMPLEX 180016
// Value-index pairs for MPI_MAXLOC and MPI_MINLOC (impl/mpi_ops.h's ValueIndex: the C struct's size).
#define MPI_2INT 190008
#define MPI_FLOAT_INT 200008
#define MPI_DOUBLE_INT 210016
#define MPI_LONG_INT 220016

#include <cuco/program/impl/mpi_refused.h>

namespace cuco_program::mpi {

// Strided datatypes (MPI_Type_vector; impl/mpi_datatypes.h) are kStrided + their number: moved by
// the point-to-point calls alone (impl/mpi_p2p.h packs and unpacks them); anywhere else a program
// handing one is stopped with the reason (an exception: the reference says "the iteration threw").
constexpr MPI_Datatype kStrided = 3000000;
inline bool IsStrided(MPI_Datatype t) { return t >= kStrided; }
inline size_t TypeBytes(MPI_Datatype t) {
  if (IsStrided(t)) {
    const char* why = "cuco's MPI stand-in moves a strided datatype (MPI_Type_vector) in point-to-point calls only "
                      "(MPI_Send, MPI_Recv, MPI_Isend, MPI_Irecv, MPI_Sendrecv), not in a collective or a file";
    std::fprintf(stderr, "cuco: %s\n", why);
    throw std::runtime_error(why);
  }
  return t == MPI_DATATYPE_NULL ? 0 : static_cast<size_t>(t % 10000);
}

// The `count` values of the world ranks `ranks` reduced with `op` into out (in their order, as MPI
// does for sums); out is left as it is when there are none. Every rank calls it (the values are
// exchanged).
inline int ReduceRanks(const void* send, void* out, int count, MPI_Datatype t, MPI_Op op, const std::vector<int>& ranks) {
  const size_t bytes = TypeBytes(t) * static_cast<size_t>(count);
  std::vector<unsigned char> all(bytes * static_cast<size_t>(cuco_program::world()));
  cuco_program::host_allgather(send, all.data(), bytes);
  if (ranks.empty()) return MPI_SUCCESS;
  std::memcpy(out, all.data() + bytes * static_cast<size_t>(ranks[0]), bytes);
  auto reduce = [&](auto* acc, size_t i) {  // rank ranks[i]'s values into acc
    using T = std::remove_pointer_t<decltype(acc)>;
    if (!OpAllowed<T>(op)) {
      std::fprintf(stderr, "cuco: the MPI reduction %d is not one MPI allows on this datatype (%d)\n", op, t);
      return MPI_ERR_OP;
    }
    ReduceInto(acc, reinterpret_cast<const T*>(all.data() + bytes * static_cast<size_t>(ranks[i])), count, op);
    return MPI_SUCCESS;
  };
  for (size_t i = 1; i < ranks.size(); ++i) {
    int r = MPI_SUCCESS;
    auto reduce_loc = [&](auto* acc) {  // a value-index pair: MPI_MAXLOC or MPI_MINLOC only
      using P = std::remove_pointer_t<decltype(acc)>;
      if (ReduceLocInto(acc, reinterpret_cast<const P*>(all.data() + bytes * static_cast<size_t>(ranks[i])), count, op))
        return MPI_SUCCESS;
      std::fprintf(stderr, "cuco: the MPI reduction %d of a value-index pair (%d): MPI allows MPI_MAXLOC and MPI_MINLOC\n",
                   op, t);
      return MPI_ERR_OP;
    };
    switch (t) {
      case MPI_INT: r = reduce(static_cast<int32_t*>(out), i); break;
      case MPI_SIGNED_CHAR: r = reduce(static_cast<int8_t*>(out), i); break;
      case MPI_UNSIGNED_CHAR: r = reduce(static_cast<uint8_t*>(out), i); break;
      case MPI_SHORT: r = reduce(static_cast<int16_t*>(out), i); break;
      case MPI_UNSIGNED_SHORT: r = reduce(static_cast<uint16_t*>(out), i); break;
      case MPI_C_BOOL: r = reduce(static_cast<bool*>(out), i); break;
      case MPI_LONG_DOUBLE: r = reduce(static_cast<long double*>(out), i); break;
      case MPI_2INT: r = reduce_loc(static_cast<ValueIndex<int>*>(out)); break;
      case MPI_FLOAT_INT: r = reduce_loc(static_cast<ValueIndex<float>*>(out)); break;
      case MPI_DOUBLE_INT: r = reduce_loc(static_cast<ValueIndex<double>*>(out)); break;
      case MPI_LONG_INT: r = reduce_loc(static_cast<ValueIndex<long>*>(out)); break;
      case MPI_UNSIGNED: r = reduce(static_cast<uint32_t*>(out), i); break;
      case MPI_LONG:
      case MPI_LONG_LONG: r = reduce(static_cast<int64_t*>(out), i); break;
      case MPI_UNSIGNED_LONG:
      case MPI_UNSIGNED_LONG_LONG: r = reduce(static_cast<uint64_t*>(out), i); break;
      case MPI_FLOAT: r = reduce(static_cast<float*>(out), i); break;
      case MPI_DOUBLE: r = reduce(static_cast<double*>(out), i); break;
      default:
        std::fprintf(stderr, "cuco: an MPI reduction of this datatype (%d) is not supported\n", t);
        return MPI_ERR_OTHER;
    }
    if (r != MPI_SUCCESS) return r;
  }
  return MPI_SUCCESS;
}

}  // namespace cuco_program::mpi

inline int MPI_Init(int*, char***) { return MPI_SUCCESS; }
inline int MPI_Init_thread(int*, char***, int required, int* provided) {
  if (provided) *provided = required;
  return MPI_SUCCESS;
}
inline int MPI_Initialized(int* flag) { return (*flag = 1), MPI_SUCCESS; }
inline int MPI_Finalize() { return cuco_program::p2p_flush() == 0 ? MPI_SUCCESS : MPI_ERR_OTHER; }
inline int MPI_Finalized(int* flag) { return (*flag = 0), MPI_SUCCESS; }
namespace cuco_program::mpi {
// The group of a communicator of some ranks or of a split's part; -1 for the world.
inline int GroupOf(MPI_Comm c) { return OfSomeRanks(c) ? c - kGroupComm : OfASplit(c) ? c - kSplitComm : -1; }
// The world ranks of communicator c, in its rank order.
inline std::vector<int> CommRanks(MPI_Comm c) {
  if (GroupOf(c) >= 0) return GroupRanks(GroupOf(c));
  std::vector<int> all(static_cast<size_t>(cuco_program::world()));
  for (int r = 0; r < cuco_program::world(); ++r) all[static_cast<size_t>(r)] = r;
  return all;
}
}  // namespace cuco_program::mpi
inline int MPI_Comm_rank(MPI_Comm c, int* r) {
  namespace m = cuco_program::mpi;
  return (*r = m::GroupOf(c) >= 0 ? m::IndexIn(m::GroupOf(c), cuco_program::rank()) : cuco_program::rank()), MPI_SUCCESS;
}
inline int MPI_Comm_size(MPI_Comm c, int* n) {
  namespace m = cuco_program::mpi;
  return (*n = m::GroupOf(c) >= 0 ? static_cast<int>(m::GroupRanks(m::GroupOf(c)).size()) : cuco_program::world()),
         MPI_SUCCESS;
}
// A communicator's group: every rank, or the ranks it was made of.
inline int MPI_Comm_group(MPI_Comm c, MPI_Group* g) {
  namespace m = cuco_program::mpi;
  if (m::GroupOf(c) >= 0) return (*g = m::GroupOf(c)), MPI_SUCCESS;
  std::vector<int> all(static_cast<size_t>(cuco_program::world()));
  for (int r = 0; r < cuco_program::world(); ++r) all[static_cast<size_t>(r)] = r;
  return (*g = m::NewGroup(all)), MPI_SUCCESS;
}
// The ranks of g at the n indices `ranks`.
inline int MPI_Group_incl(MPI_Group g, int n, const int ranks[], MPI_Group* out) {
  const std::vector<int> from = cuco_program::mpi::GroupRanks(g);
  std::vector<int> picked;
  for (int i = 0; i < n; ++i) {
    if (ranks[i] < 0 || ranks[i] >= static_cast<int>(from.size())) return MPI_ERR_ARG;
    picked.push_back(from[static_cast<size_t>(ranks[i])]);
  }
  return (*out = cuco_program::mpi::NewGroup(picked)), MPI_SUCCESS;
}
inline int MPI_Group_size(MPI_Group g, int* n) {
  return (*n = static_cast<int>(cuco_program::mpi::GroupRanks(g).size())), MPI_SUCCESS;
}
inline int MPI_Group_rank(MPI_Group g, int* r) {
  const int at = cuco_program::mpi::IndexIn(g, cuco_program::rank());
  return (*r = at < 0 ? MPI_UNDEFINED : at), MPI_SUCCESS;
}
inline int MPI_Group_free(MPI_Group* g) { return (*g = MPI_GROUP_NULL), MPI_SUCCESS; }
// Every rank in g: the world; this rank not in it: MPI_COMM_NULL; else a communicator of some ranks.
inline int MPI_Comm_create(MPI_Comm, MPI_Group g, MPI_Comm* out) {
  namespace m = cuco_program::mpi;
  const std::vector<int> ranks = m::GroupRanks(g);
  if (m::IndexIn(g, cuco_program::rank()) < 0) return (*out = MPI_COMM_NULL), MPI_SUCCESS;
  *out = static_cast<int>(ranks.size()) == cuco_program::world() ? MPI_COMM_WORLD : m::kGroupComm + g;
  return MPI_SUCCESS;
}
// What the stand-in refuses, with the reason on stderr: a collective on a communicator of some ranks
// (point-to-point and one-sided MPI: impl/mpi_refused.h).
namespace cuco_program::mpi {
inline int RefusedOn(const char* call, const char* comm, const char* why) {
  std::fprintf(stderr, "cuco: %s on %s is not in cuco's MPI stand-in, %s\n", call, comm, why);
  return MPI_ERR_COMM;
}
inline int NotOnSomeRanks(const char* call) {
  return RefusedOn(call, "a communicator of some ranks (MPI_Comm_create of a group)", "whose collectives span every rank");
}
inline int NotOnASplit(const char* call) {
  return RefusedOn(call, "a part of a split communicator", "which has MPI_Bcast, MPI_Barrier, MPI_Allgather and the "
                                                            "reductions there");
}
// `text` and its NUL into `out`, no byte more: a program's buffer may be shorter than the
// MPI_MAX_* the standard asks for (`char name[50]` for the processor's name), which a write of
// MPI_MAX_* bytes overruns (glibc's fortified snprintf aborts the process on it).
inline int WriteText(char* out, const char* text, int* len) {
  const size_t n = std::strlen(text);
  std::memcpy(out, text, n + 1);
  *len = static_cast<int>(n);
  return MPI_SUCCESS;
}
}  // namespace cuco_program::mpi
inline int MPI_Get_processor_name(char* name, int* len) { return cuco_program::mpi::WriteText(name, "cuco-host", len); }
// One host: the ranks sharing memory are all of them, so the split (and a duplicate) is the world.
inline int MPI_Comm_split_type(MPI_Comm comm, int, int, MPI_Info, MPI_Comm* out) { return (*out = comm), MPI_SUCCESS; }
inline int MPI_Comm_dup(MPI_Comm comm, MPI_Comm* out) { return (*out = comm), MPI_SUCCESS; }
inline int MPI_Comm_free(MPI_Comm* comm) { return (*comm = MPI_COMM_NULL), MPI_SUCCESS; }
inline double MPI_Wtime() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
// Ends the program's thread (or the iteration) like exit(): never the process the harness or the
// supervisor runs in (program_exit.h).
[[noreturn]] inline int MPI_Abort(MPI_Comm, int code) { cuco_program::EndProgram({code == 0 ? 1 : code, false, "MPI_Abort"}); }
// What error macros call: cuco's MPI fails only with MPI_ERR_OTHER, whose text says it is cuco's.
inline int MPI_Error_string(int code, char* text, int* len) {
  const char* what = code == MPI_SUCCESS ? "MPI_SUCCESS: no error"
                                         : "an MPI call failed in cuco's stand-in (cuco/program/mpi.h; its message is above)";
  return cuco_program::mpi::WriteText(text, what, len);
}
inline int MPI_Error_class(int code, int* cls) { return (*cls = code), MPI_SUCCESS; }
inline int MPI_Get_version(int* version, int* subversion) {
  *version = MPI_VERSION;
  *subversion = MPI_SUBVERSION;
  return MPI_SUCCESS;
}
inline int MPI_Get_library_version(char* text, int* len) {
  return cuco_program::mpi::WriteText(text, "cuco's MPI stand-in (cuco/program/mpi.h)", len);
}
inline int MPI_Query_thread(int* provided) { return (*provided = MPI_THREAD_MULTIPLE), MPI_SUCCESS; }
inline int MPI_Is_thread_main(int* flag) { return (*flag = 1), MPI_SUCCESS; }
inline int MPI_Comm_set_errhandler(MPI_Comm, MPI_Errhandler) { return MPI_SUCCESS; }
inline int MPI_Comm_get_errhandler(MPI_Comm, MPI_Errhandler* h) { return (*h = MPI_ERRORS_ARE_FATAL), MPI_SUCCESS; }
inline double MPI_Wtick() { return 1e-9; }
inline int MPI_Barrier(MPI_Comm c) {
  if (cuco_program::mpi::OfSomeRanks(c)) return cuco_program::mpi::NotOnSomeRanks("MPI_Barrier");
  unsigned char one = 1;
  std::vector<unsigned char> all(static_cast<size_t>(cuco_program::world()));
  cuco_program::host_allgather(&one, all.data(), 1);
  return MPI_SUCCESS;
}
inline int MPI_Bcast(void* buf, int count, MPI_Datatype t, int root, MPI_Comm c) {
  if (const int r = cuco_program::mpi_on_device({cuco_program::MpiCollective::kBcast, buf, buf, count, t, 0, root, c}, "mpi"); r >= 0) return r;
  if (cuco_program::mpi::OfSomeRanks(c)) return cuco_program::mpi::NotOnSomeRanks("MPI_Bcast");
  const std::vector<int> ranks = cuco_program::mpi::CommRanks(c);  // a split's part: its root among its ranks
  if (root < 0 || root >= static_cast<int>(ranks.size())) return MPI_ERR_ARG;
  const size_t bytes = cuco_program::mpi::TypeBytes(t) * static_cast<size_t>(count);
  cuco_program::mpi::Staged staged(buf, bytes, true, true);  // device memory (impl/mpi_device.h)
  if (!staged.ok()) return MPI_ERR_OTHER;
  buf = staged.get();
  std::vector<unsigned char> all(bytes * static_cast<size_t>(cuco_program::world()));
  cuco_program::host_allgather(buf, all.data(), bytes);
  std::memcpy(buf, all.data() + bytes * static_cast<size_t>(ranks[static_cast<size_t>(root)]), bytes);
  return MPI_SUCCESS;
}
inline int MPI_Allgather(const void* send, int scount, MPI_Datatype st, void* recv, int rcount, MPI_Datatype rt,
                         MPI_Comm c) {
  if (const int r = cuco_program::mpi_on_device({cuco_program::MpiCollective::kAllgather, send, recv, rcount, rt, 0, 0, c, scount, st}, "mpi");
      r >= 0)
    return r;
  if (cuco_program::mpi::OfSomeRanks(c)) return cuco_program::mpi::NotOnSomeRanks("MPI_Allgather");
  const std::vector<int> ranks = cuco_program::mpi::CommRanks(c);
  int me = 0;
  MPI_Comm_rank(c, &me);
  const size_t bytes = cuco_program::mpi::TypeBytes(rt) * static_cast<size_t>(rcount);
  cuco_program::mpi::Staged s_send(send, cuco_program::mpi::TypeBytes(st) * static_cast<size_t>(scount), true, false),
      s_recv(recv, bytes * ranks.size(), send == MPI_IN_PLACE, true);
  if (!s_send.ok() || !s_recv.ok()) return MPI_ERR_OTHER;
  send = s_send.get(), recv = s_recv.get();
  const unsigned char* mine = send == MPI_IN_PLACE ? static_cast<unsigned char*>(recv) + bytes * static_cast<size_t>(me)
                                                   : static_cast<const unsigned char*>(send);
  (void)scount;
  (void)st;
  std::vector<unsigned char> copy(mine, mine + bytes), all(bytes * static_cast<size_t>(cuco_program::world()));
  cuco_program::host_allgather(copy.data(), all.data(), bytes);
  for (size_t i = 0; i < ranks.size(); ++i)  // the part's ranks, in its order
    std::memcpy(static_cast<unsigned char*>(recv) + i * bytes, all.data() + static_cast<size_t>(ranks[i]) * bytes, bytes);
  return MPI_SUCCESS;
}
inline int MPI_Gather(const void* send, int scount, MPI_Datatype st, void* recv, int rcount, MPI_Datatype rt, int root,
                      MPI_Comm c) {
  if (cuco_program::mpi::OfSomeRanks(c)) return cuco_program::mpi::NotOnSomeRanks("MPI_Gather");
  if (cuco_program::mpi::OfASplit(c)) return cuco_program::mpi::NotOnASplit("MPI_Gather");
  const size_t bytes = cuco_program::mpi::TypeBytes(st) * static_cast<size_t>(scount);
  const bool at_root = cuco_program::rank() == root;  // recv is the root's only
  cuco_program::mpi::Staged s_send(send, bytes, true, false),
      s_recv(at_root ? recv : nullptr, bytes * static_cast<size_t>(cuco_program::world()), send == MPI_IN_PLACE, true);
  if (!s_send.ok() || !s_recv.ok()) return MPI_ERR_OTHER;
  send = s_send.get();
  if (at_root) recv = s_recv.get();
  std::vector<unsigned char> all(bytes * static_cast<size_t>(cuco_program::world()));
  cuco_program::host_allgather(send == MPI_IN_PLACE ? static_cast<unsigned char*>(recv) + bytes * cuco_program::rank() : send,
                               all.data(), bytes);
  if (cuco_program::rank() == root) std::memcpy(recv, all.data(), all.size());
  (void)rcount;
  (void)rt;
  return MPI_SUCCESS;
}
inline int MPI_Alltoall(const void* send, int scount, MPI_Datatype st, void* recv, int rcount, MPI_Datatype rt, MPI_Comm c) {
  if (const int r = cuco_program::mpi_on_device({cuco_program::MpiCollective::kAlltoall, send, recv, rcount, rt, 0, 0, c, scount, st}, "mpi");
      r >= 0)
    return r;
  if (cuco_program::mpi::OfSomeRanks(c)) return cuco_program::mpi::NotOnSomeRanks("MPI_Alltoall");
  if (cuco_program::mpi::OfASplit(c)) return cuco_program::mpi::NotOnASplit("MPI_Alltoall");
  const size_t bytes = cuco_program::mpi::TypeBytes(st) * static_cast<size_t>(scount);  // one block
  const size_t world = static_cast<size_t>(cuco_program::world()), me = static_cast<size_t>(cuco_program::rank());
  cuco_program::mpi::Staged s_send(send, bytes * world, true, false), s_recv(recv, bytes * world, send == MPI_IN_PLACE, true);
  if (!s_send.ok() || !s_recv.ok()) return MPI_ERR_OTHER;
  send = s_send.get(), recv = s_recv.get();
  std::vector<unsigned char> mine(bytes * world), all(bytes * world * world);
  std::memcpy(mine.data(), send == MPI_IN_PLACE ? recv : send, mine.size());
  cuco_program::host_allgather(mine.data(), all.data(), mine.size());
  for (size_t q = 0; q < world; ++q)
    std::memcpy(static_cast<unsigned char*>(recv) + q * bytes, all.data() + (q * world + me) * bytes, bytes);
  (void)rcount;
  (void)rt;
  return MPI_SUCCESS;
}
// The v variants of the world: blocks of each rank's own length, gathered padded to the longest.
inline int MPI_Alltoallv(const void* send, const int scounts[], const int sdispls[], MPI_Datatype st, void* recv,
                         const int rcounts[], const int rdispls[], MPI_Datatype rt, MPI_Comm c) {
  if (cuco_program::mpi::OfSomeRanks(c)) return cuco_program::mpi::NotOnSomeRanks("MPI_Alltoallv");
  if (cuco_program::mpi::OfASplit(c)) return cuco_program::mpi::NotOnASplit("MPI_Alltoallv");
  if (send == MPI_IN_PLACE) send = recv, scounts = rcounts, sdispls = rdispls, st = rt;
  const size_t world = static_cast<size_t>(cuco_program::world()), me = static_cast<size_t>(cuco_program::rank());
  const size_t sbytes = cuco_program::mpi::TypeBytes(st), rbytes = cuco_program::mpi::TypeBytes(rt);
  cuco_program::mpi::Staged s_send(send, cuco_program::mpi::Extent(scounts, sdispls, world, sbytes), true, false),
      s_recv(recv, cuco_program::mpi::Extent(rcounts, rdispls, world, rbytes), true, true);
  if (!s_send.ok() || !s_recv.ok()) return MPI_ERR_OTHER;
  send = s_send.get(), recv = s_recv.get();
  std::vector<int> counts(scounts, scounts + world), all_counts(world * world);  // [p * world + q]: p sends q
  cuco_program::host_allgather(counts.data(), all_counts.data(), world * sizeof(int));
  size_t longest = 0;
  for (size_t p = 0; p < world; ++p) {
    size_t total = 0;
    for (size_t q = 0; q < world; ++q) total += static_cast<size_t>(all_counts[p * world + q]) * sbytes;
    longest = std::max(longest, total);
  }
  std::vector<unsigned char> mine(longest), all(longest * world);
  for (size_t q = 0, at = 0; q < world; at += static_cast<size_t>(scounts[q]) * sbytes, ++q)
    std::memcpy(mine.data() + at, static_cast<const unsigned char*>(send) + static_cast<size_t>(sdispls[q]) * sbytes,
                static_cast<size_t>(scounts[q]) * sbytes);
  cuco_program::host_allgather(mine.data(), all.data(), longest);
  for (size_t p = 0; p < world; ++p) {
    size_t at = 0;  // p's block for this rank, after those for the ranks before it
    for (size_t q = 0; q < me; ++q) at += static_cast<size_t>(all_counts[p * world + q]) * sbytes;
    const size_t bytes = std::min(static_cast<size_t>(all_counts[p * world + me]) * sbytes,
                                  static_cast<size_t>(rcounts[p]) * rbytes);
    std::memcpy(static_cast<unsigned char*>(recv) + static_cast<size_t>(rdispls[p]) * rbytes,
                all.data() + p * longest + at, bytes);
  }
  return MPI_SUCCESS;
}
inline int MPI_Allgatherv(const void* send, int scount, MPI_Datatype st, void* recv, const int rcounts[],
                          const int displs[], MPI_Datatype rt, MPI_Comm c) {
  if (cuco_program::mpi::OfSomeRanks(c)) return cuco_program::mpi::NotOnSomeRanks("MPI_Allgatherv");
  if (cuco_program::mpi::OfASplit(c)) return cuco_program::mpi::NotOnASplit("MPI_Allgatherv");
  const size_t world = static_cast<size_t>(cuco_program::world()), me = static_cast<size_t>(cuco_program::rank());
  const size_t rbytes = cuco_program::mpi::TypeBytes(rt);
  cuco_program::mpi::Staged s_send(send, static_cast<size_t>(scount) * cuco_program::mpi::TypeBytes(st), true, false),
      s_recv(recv, cuco_program::mpi::Extent(rcounts, displs, world, rbytes), true, true);
  if (!s_send.ok() || !s_recv.ok()) return MPI_ERR_OTHER;
  send = s_send.get(), recv = s_recv.get();
  size_t longest = 0;
  for (size_t p = 0; p < world; ++p) longest = std::max(longest, static_cast<size_t>(rcounts[p]) * rbytes);
  const unsigned char* own = send == MPI_IN_PLACE
                                 ? static_cast<const unsigned char*>(recv) + static_cast<size_t>(displs[me]) * rbytes
                                 : static_cast<const unsigned char*>(send);
  const size_t own_bytes = send == MPI_IN_PLACE ? static_cast<size_t>(rcounts[me]) * rbytes
                                                : static_cast<size_t>(scount) * cuco_program::mpi::TypeBytes(st);
  std::vector<unsigned char> mine(longest), all(longest * world);
  std::memcpy(mine.data(), own, std::min(own_bytes, longest));
  cuco_program::host_allgather(mine.data(), all.data(), longest);
  for (size_t p = 0; p < world; ++p)
    std::memcpy(static_cast<unsigned char*>(recv) + static_cast<size_t>(displs[p]) * rbytes, all.data() + p * longest,
                static_cast<size_t>(rcounts[p]) * rbytes);
  return MPI_SUCCESS;
}
inline int MPI_Scatter(const void* send, int scount, MPI_Datatype st, void* recv, int rcount, MPI_Datatype rt, int root,
                       MPI_Comm c) {
  if (cuco_program::mpi::OfSomeRanks(c)) return cuco_program::mpi::NotOnSomeRanks("MPI_Scatter");
  if (cuco_program::mpi::OfASplit(c)) return cuco_program::mpi::NotOnASplit("MPI_Scatter");
  const size_t bytes = cuco_program::mpi::TypeBytes(rt) * static_cast<size_t>(rcount);  // one block
  const size_t world = static_cast<size_t>(cuco_program::world()), me = static_cast<size_t>(cuco_program::rank());
  const bool at_root = static_cast<int>(me) == root;  // send is the root's only
  cuco_program::mpi::Staged s_send(at_root ? send : nullptr, bytes * world, true, false), s_recv(recv, bytes, false, true);
  if (!s_send.ok() || !s_recv.ok()) return MPI_ERR_OTHER;
  if (at_root) send = s_send.get();
  recv = s_recv.get();
  std::vector<unsigned char> mine(bytes * world), all(bytes * world * world);
  if (static_cast<int>(me) == root) std::memcpy(mine.data(), send, mine.size());
  cuco_program::host_allgather(mine.data(), all.data(), mine.size());
  if (recv != MPI_IN_PLACE) std::memcpy(recv, all.data() + (static_cast<size_t>(root) * world + me) * bytes, bytes);
  (void)scount;
  (void)st;
  return MPI_SUCCESS;
}
// The v-forms of the rooted gather and scatter: each part padded to the longest, which every rank
// learns first (only the root knows the counts and displacements of the varying side).
inline int MPI_Gatherv(const void* send, int scount, MPI_Datatype st, void* recv, const int rcounts[], const int displs[],
                       MPI_Datatype rt, int root, MPI_Comm c) {
  if (cuco_program::mpi::OfSomeRanks(c)) return cuco_program::mpi::NotOnSomeRanks("MPI_Gatherv");
  if (cuco_program::mpi::OfASplit(c)) return cuco_program::mpi::NotOnASplit("MPI_Gatherv");
  const size_t world = static_cast<size_t>(cuco_program::world()), me = static_cast<size_t>(cuco_program::rank());
  const bool at_root = static_cast<int>(me) == root;  // recv, rcounts and displs are the root's only
  const size_t rbytes = cuco_program::mpi::TypeBytes(rt);
  cuco_program::mpi::Staged s_recv(at_root ? recv : nullptr, at_root ? cuco_program::mpi::Extent(rcounts, displs, world, rbytes) : 0,
                                   send == MPI_IN_PLACE, true);
  const size_t own_bytes = send == MPI_IN_PLACE ? static_cast<size_t>(rcounts[me]) * rbytes
                                                : static_cast<size_t>(scount) * cuco_program::mpi::TypeBytes(st);
  cuco_program::mpi::Staged s_send(send == MPI_IN_PLACE ? nullptr : send, own_bytes, true, false);
  if (!s_send.ok() || !s_recv.ok()) return MPI_ERR_OTHER;
  if (at_root) recv = s_recv.get();
  const unsigned char* own = send == MPI_IN_PLACE
                                 ? static_cast<const unsigned char*>(recv) + static_cast<size_t>(displs[me]) * rbytes
                                 : static_cast<const unsigned char*>(s_send.get());
  std::vector<size_t> lengths(world);
  cuco_program::host_allgather(&own_bytes, lengths.data(), sizeof(size_t));
  const size_t longest = *std::max_element(lengths.begin(), lengths.end());
  std::vector<unsigned char> mine(longest), all(longest * world);
  if (own_bytes > 0) std::memcpy(mine.data(), own, own_bytes);
  cuco_program::host_allgather(mine.data(), all.data(), longest);
  if (at_root)
    for (size_t p = 0; p < world; ++p)
      if (!(send == MPI_IN_PLACE && p == me))
        std::memcpy(static_cast<unsigned char*>(recv) + static_cast<size_t>(displs[p]) * rbytes, all.data() + p * longest,
                    std::min(lengths[p], static_cast<size_t>(rcounts[p]) * rbytes));
  return MPI_SUCCESS;
}
inline int MPI_Scatterv(const void* send, const int scounts[], const int displs[], MPI_Datatype st, void* recv, int rcount,
                        MPI_Datatype rt, int root, MPI_Comm c) {
  if (cuco_program::mpi::OfSomeRanks(c)) return cuco_program::mpi::NotOnSomeRanks("MPI_Scatterv");
  if (cuco_program::mpi::OfASplit(c)) return cuco_program::mpi::NotOnASplit("MPI_Scatterv");
  const size_t world = static_cast<size_t>(cuco_program::world()), me = static_cast<size_t>(cuco_program::rank());
  const bool at_root = static_cast<int>(me) == root;  // send, scounts and displs are the root's only
  const size_t sbytes = cuco_program::mpi::TypeBytes(st), bytes = cuco_program::mpi::TypeBytes(rt) * static_cast<size_t>(rcount);
  cuco_program::mpi::Staged s_send(at_root ? send : nullptr, at_root ? cuco_program::mpi::Extent(scounts, displs, world, sbytes) : 0,
                                   true, false),
      s_recv(recv == MPI_IN_PLACE ? nullptr : recv, bytes, false, true);
  if (!s_send.ok() || !s_recv.ok()) return MPI_ERR_OTHER;
  size_t longest = 0;
  if (at_root)
    for (size_t p = 0; p < world; ++p) longest = std::max(longest, static_cast<size_t>(scounts[p]) * sbytes);
  std::vector<size_t> longests(world);
  cuco_program::host_allgather(&longest, longests.data(), sizeof(size_t));
  longest = longests[static_cast<size_t>(root)];
  std::vector<unsigned char> mine(longest * world), all(longest * world * world);
  if (at_root)
    for (size_t p = 0; p < world; ++p)
      std::memcpy(mine.data() + p * longest, static_cast<const unsigned char*>(s_send.get()) + static_cast<size_t>(displs[p]) * sbytes,
                  static_cast<size_t>(scounts[p]) * sbytes);
  cuco_program::host_allgather(mine.data(), all.data(), mine.size());
  if (recv != MPI_IN_PLACE)
    std::memcpy(s_recv.get(), all.data() + (static_cast<size_t>(root) * world + me) * longest, std::min(bytes, longest));
  return MPI_SUCCESS;
}
// A split every rank makes at once (of the world, or each of its own part of an earlier split): one
// color everywhere is the communicator split; else this rank's part, its ranks ordered by key, then
// by their rank in the communicator split (MPI's order).
inline int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm* out) {
  namespace m = cuco_program::mpi;
  if (m::OfSomeRanks(comm)) return m::NotOnSomeRanks("MPI_Comm_split");
  const int mine[2] = {color, key};
  std::vector<int> all(2 * static_cast<size_t>(cuco_program::world()));
  cuco_program::host_allgather(mine, all.data(), sizeof mine);
  const std::vector<int> ranks = m::CommRanks(comm);
  std::vector<std::pair<int, int>> part;  // (key, index in comm) of the ranks of this color
  bool one_color = true;
  for (size_t i = 0; i < ranks.size(); ++i) {
    const int q = ranks[i];
    one_color &= all[2 * static_cast<size_t>(q)] == color;
    if (all[2 * static_cast<size_t>(q)] == color) part.push_back({all[2 * static_cast<size_t>(q) + 1], static_cast<int>(i)});
  }
  if (color == MPI_UNDEFINED) return (*out = MPI_COMM_NULL), MPI_SUCCESS;
  if (one_color) return (*out = comm), MPI_SUCCESS;
  std::sort(part.begin(), part.end());
  std::vector<int> members;
  for (const auto& [k, i] : part) members.push_back(ranks[static_cast<size_t>(i)]);
  *out = m::kSplitComm + m::NewGroup(members);
  return MPI_SUCCESS;
}
namespace cuco_program::mpi {
// The reductions on a communicator: this rank's `count` values (recv's under MPI_IN_PLACE) reduced
// with the other ranks' into out as ReduceRanks does, over ranks 0 .. ranks-1; refused (`call`
// named) on a communicator of some ranks.
inline int ReduceOnComm(const char* call, const void* send, void* recv, void* out, int count, MPI_Datatype t, MPI_Op op,
                        MPI_Comm c, int ranks) {
  if (OfSomeRanks(c)) return NotOnSomeRanks(call);
  std::vector<unsigned char> mine(TypeBytes(t) * static_cast<size_t>(count));
  // Device memory (impl/mpi_device.h): recv read for MPI_IN_PLACE; `out` written (recv, or the
  // caller's host buffer), read too (what a rank the reduction leaves out keeps: MPI_Exscan's rank 0).
  Staged s_send(send, mine.size(), true, false), s_recv(recv, mine.size(), send == MPI_IN_PLACE, false),
      s_out(out, mine.size(), true, true);
  if (!s_send.ok() || !s_recv.ok() || !s_out.ok()) return MPI_ERR_OTHER;
  send = s_send.get(), recv = s_recv.get(), out = s_out.get();
  std::memcpy(mine.data(), send == MPI_IN_PLACE ? recv : send, mine.size());
  std::vector<int> members = CommRanks(c);
  members.resize(static_cast<size_t>(std::max(0, std::min(ranks, static_cast<int>(members.size())))));
  return ReduceRanks(mine.data(), out, count, t, op, members);
}
}  // namespace cuco_program::mpi
inline int MPI_Allreduce(const void* send, void* recv, int count, MPI_Datatype t, MPI_Op op, MPI_Comm c) {
  if (const int r = cuco_program::mpi_on_device({cuco_program::MpiCollective::kAllreduce, send, recv, count, t, op, 0, c}, "mpi"); r >= 0) return r;
  return cuco_program::mpi::ReduceOnComm("MPI_Allreduce", send, recv, recv, count, t, op, c, cuco_program::world());
}
inline int MPI_Reduce(const void* send, void* recv, int count, MPI_Datatype t, MPI_Op op, int root, MPI_Comm c) {
  if (const int r = cuco_program::mpi_on_device({cuco_program::MpiCollective::kReduce, send, recv, count, t, op, root, c}, "mpi"); r >= 0) return r;
  std::vector<unsigned char> out(cuco_program::mpi::TypeBytes(t) * static_cast<size_t>(count));
  int me = 0;
  MPI_Comm_rank(c, &me);
  // recv is the root's only; device memory there is staged (impl/mpi_device.h).
  cuco_program::mpi::Staged s_recv(me == root ? recv : nullptr, out.size(), send == MPI_IN_PLACE, true);
  if (!s_recv.ok()) return MPI_ERR_OTHER;
  if (me == root) recv = s_recv.get();
  const int rc = cuco_program::mpi::ReduceOnComm("MPI_Reduce", send, recv, out.data(), count, t, op, c, cuco_program::world());
  if (rc == MPI_SUCCESS && me == root) std::memcpy(recv, out.data(), out.size());
  return rc;
}
// MPI_Reduce_scatter_block: `rcount` values per rank, reduced over the ranks; rank r keeps block r.
// In place, the input is recv's whole (every block), and this rank's block is left at its start.
inline int MPI_Reduce_scatter_block(const void* send, void* recv, int rcount, MPI_Datatype t, MPI_Op op, MPI_Comm c) {
  if (const int r = cuco_program::mpi_on_device({cuco_program::MpiCollective::kReduceScatterBlock, send, recv, rcount, t, op, 0, c}, "mpi");
      r >= 0)
    return r;
  if (cuco_program::mpi::OfASplit(c)) return cuco_program::mpi::NotOnASplit("MPI_Reduce_scatter_block");
  const size_t world = static_cast<size_t>(cuco_program::world());
  const size_t block = cuco_program::mpi::TypeBytes(t) * static_cast<size_t>(rcount);
  const bool in_place = send == MPI_IN_PLACE;
  int me = 0;
  MPI_Comm_rank(c, &me);
  cuco_program::mpi::Staged s_recv(recv, in_place ? block * world : block, in_place, true);  // device memory
  if (!s_recv.ok()) return MPI_ERR_OTHER;
  recv = s_recv.get();
  std::vector<unsigned char> all(block * world);
  const int rc = cuco_program::mpi::ReduceOnComm("MPI_Reduce_scatter_block", in_place ? recv : send, nullptr,
                                                 all.data(), rcount * static_cast<int>(world), t, op, c,
                                                 cuco_program::world());
  if (rc == MPI_SUCCESS) std::memcpy(recv, all.data() + block * static_cast<size_t>(me), block);
  return rc;
}
// MPI_Reduce_scatter: rcounts[q] values for rank q, reduced over the ranks; rank r keeps its part, the
// values after those of ranks 0 .. r-1 (a 3-D-grid matmul's C). In place, the input is recv's whole.
inline int MPI_Reduce_scatter(const void* send, void* recv, const int rcounts[], MPI_Datatype t, MPI_Op op, MPI_Comm c) {
  if (cuco_program::mpi::OfASplit(c)) return cuco_program::mpi::NotOnASplit("MPI_Reduce_scatter");
  int me = 0, ranks = 0;
  MPI_Comm_rank(c, &me);
  MPI_Comm_size(c, &ranks);
  size_t total = 0, before = 0;
  for (int q = 0; q < ranks; ++q) total += static_cast<size_t>(rcounts[q]), before += q < me ? static_cast<size_t>(rcounts[q]) : 0;
  const size_t bytes = cuco_program::mpi::TypeBytes(t);
  const size_t mine = bytes * static_cast<size_t>(rcounts[me]);
  const bool in_place = send == MPI_IN_PLACE;
  cuco_program::mpi::Staged s_recv(recv, in_place ? bytes * total : mine, in_place, true);  // device memory
  if (!s_recv.ok()) return MPI_ERR_OTHER;
  recv = s_recv.get();
  std::vector<unsigned char> all(bytes * total);
  const int rc = cuco_program::mpi::ReduceOnComm("MPI_Reduce_scatter", in_place ? recv : send, nullptr, all.data(),
                                                 static_cast<int>(total), t, op, c, cuco_program::world());
  if (rc == MPI_SUCCESS) std::memcpy(recv, all.data() + bytes * before, mine);
  return rc;
}
// The nonblocking collectives run at their call, as an eager MPI may, every rank starting them in one
// order; the request is done (MPI_REQUEST_NULL), as MPI_Isend's is here.
inline int MPI_Iallreduce(const void* send, void* recv, int count, MPI_Datatype t, MPI_Op op, MPI_Comm c, MPI_Request* req) {
  return (*req = MPI_REQUEST_NULL), MPI_Allreduce(send, recv, count, t, op, c);
}
inline int MPI_Ireduce(const void* send, void* recv, int count, MPI_Datatype t, MPI_Op op, int root, MPI_Comm c,
                       MPI_Request* req) {
  return (*req = MPI_REQUEST_NULL), MPI_Reduce(send, recv, count, t, op, root, c);
}
inline int MPI_Ibcast(void* buf, int count, MPI_Datatype t, int root, MPI_Comm c, MPI_Request* req) {
  return (*req = MPI_REQUEST_NULL), MPI_Bcast(buf, count, t, root, c);
}
inline int MPI_Iallgather(const void* send, int scount, MPI_Datatype st, void* recv, int rcount, MPI_Datatype rt, MPI_Comm c,
                          MPI_Request* req) {
  return (*req = MPI_REQUEST_NULL), MPI_Allgather(send, scount, st, recv, rcount, rt, c);
}
inline int MPI_Ialltoall(const void* send, int scount, MPI_Datatype st, void* recv, int rcount, MPI_Datatype rt, MPI_Comm c,
                         MPI_Request* req) {
  return (*req = MPI_REQUEST_NULL), MPI_Alltoall(send, scount, st, recv, rcount, rt, c);
}
inline int MPI_Ibarrier(MPI_Comm c, MPI_Request* req) { return (*req = MPI_REQUEST_NULL), MPI_Barrier(c); }
// MPI_Scan: ranks 0 .. this one reduced; MPI_Exscan: the ranks before this one (rank 0's recv is
// left as it is, as MPI leaves it undefined).
inline int MPI_Scan(const void* send, void* recv, int count, MPI_Datatype t, MPI_Op op, MPI_Comm c) {
  int me = 0;
  MPI_Comm_rank(c, &me);
  return cuco_program::mpi::ReduceOnComm("MPI_Scan", send, recv, recv, count, t, op, c, me + 1);
}
inline int MPI_Exscan(const void* send, void* recv, int count, MPI_Datatype t, MPI_Op op, MPI_Comm c) {
  int me = 0;
  MPI_Comm_rank(c, &me);
  return cuco_program::mpi::ReduceOnComm("MPI_Exscan", send, recv, recv, count, t, op, c, me);
}

#include <cuco/program/impl/mpi_cart.h>
#include <cuco/program/impl/mpi_datatypes.h>
#include <cuco/program/impl/mpi_io.h>
#include <cuco/program/impl/mpi_p2p.h>
