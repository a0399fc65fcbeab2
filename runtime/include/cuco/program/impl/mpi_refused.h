// cuco/program/impl/mpi_refused.h: the MPI that cuco's stand-in (cuco/program/mpi.h, which includes
// this after its types) compiles but refuses when run, with the reason on stderr: one-sided MPI
// (windows, puts, gets, accumulates). A program that uses it after its timed loop (checking its
// result), or in a library header's wrappers it never calls, builds and runs. A refused nonblocking
// call leaves its request MPI_REQUEST_NULL, on which MPI_Wait, MPI_Waitall and MPI_Test succeed, as
// MPI's own do. (Point-to-point MPI is impl/mpi_p2p.h.)
#pragma once

#include <cstddef>
#include <cstdio>

typedef int MPI_Win;
typedef std::ptrdiff_t MPI_Aint;
#define MPI_WIN_NULL (-1)
#define MPI_MODE_NOCHECK 1024
#define MPI_MODE_NOSTORE 2048
#define MPI_MODE_NOPUT 4096
#define MPI_MODE_NOPRECEDE 8192
#define MPI_MODE_NOSUCCEED 16384
#define MPI_LOCK_EXCLUSIVE 234
#define MPI_LOCK_SHARED 235

namespace cuco_program::mpi {
inline int Refused(const char* call, const char* family) {
  std::fprintf(stderr, "cuco: %s (%s MPI) is not in cuco's MPI stand-in (cuco/program/mpi.h)\n", call, family);
  return MPI_ERR_OTHER;
}
inline int OneSidedRefused(const char* call, MPI_Request* req = nullptr) {
  if (req) *req = MPI_REQUEST_NULL;
  return Refused(call, "one-sided");
}
}  // namespace cuco_program::mpi

inline int MPI_Win_create(void*, MPI_Aint, int, MPI_Info, MPI_Comm, MPI_Win* win) {
  *win = MPI_WIN_NULL;
  return cuco_program::mpi::OneSidedRefused("MPI_Win_create");
}
inline int MPI_Win_allocate(MPI_Aint, int, MPI_Info, MPI_Comm, void*, MPI_Win* win) {
  *win = MPI_WIN_NULL;
  return cuco_program::mpi::OneSidedRefused("MPI_Win_allocate");
}
inline int MPI_Win_allocate_shared(MPI_Aint, int, MPI_Info, MPI_Comm, void*, MPI_Win* win) {
  *win = MPI_WIN_NULL;
  return cuco_program::mpi::OneSidedRefused("MPI_Win_allocate_shared");
}
inline int MPI_Win_shared_query(MPI_Win, int, MPI_Aint*, int*, void*) {
  return cuco_program::mpi::OneSidedRefused("MPI_Win_shared_query");
}
inline int MPI_Win_free(MPI_Win* win) { return (*win = MPI_WIN_NULL), MPI_SUCCESS; }
inline int MPI_Win_fence(int, MPI_Win) { return cuco_program::mpi::OneSidedRefused("MPI_Win_fence"); }
inline int MPI_Win_lock(int, int, int, MPI_Win) { return cuco_program::mpi::OneSidedRefused("MPI_Win_lock"); }
inline int MPI_Win_unlock(int, MPI_Win) { return cuco_program::mpi::OneSidedRefused("MPI_Win_unlock"); }
inline int MPI_Win_lock_all(int, MPI_Win) { return cuco_program::mpi::OneSidedRefused("MPI_Win_lock_all"); }
inline int MPI_Win_unlock_all(MPI_Win) { return cuco_program::mpi::OneSidedRefused("MPI_Win_unlock_all"); }
inline int MPI_Win_flush(int, MPI_Win) { return cuco_program::mpi::OneSidedRefused("MPI_Win_flush"); }
inline int MPI_Win_flush_all(MPI_Win) { return cuco_program::mpi::OneSidedRefused("MPI_Win_flush_all"); }
inline int MPI_Win_sync(MPI_Win) { return cuco_program::mpi::OneSidedRefused("MPI_Win_sync"); }
inline int MPI_Put(const void*, int, MPI_Datatype, int, MPI_Aint, int, MPI_Datatype, MPI_Win) {
  return cuco_program::mpi::OneSidedRefused("MPI_Put");
}
inline int MPI_Get(void*, int, MPI_Datatype, int, MPI_Aint, int, MPI_Datatype, MPI_Win) {
  return cuco_program::mpi::OneSidedRefused("MPI_Get");
}
inline int MPI_Accumulate(const void*, int, MPI_Datatype, int, MPI_Aint, int, MPI_Datatype, MPI_Op, MPI_Win) {
  return cuco_program::mpi::OneSidedRefused("MPI_Accumulate");
}
inline int MPI_Rput(const void*, int, MPI_Datatype, int, MPI_Aint, int, MPI_Datatype, MPI_Win, MPI_Request* req) {
  return cuco_program::mpi::OneSidedRefused("MPI_Rput", req);
}
inline int MPI_Rget(void*, int, MPI_Datatype, int, MPI_Aint, int, MPI_Datatype, MPI_Win, MPI_Request* req) {
  return cuco_program::mpi::OneSidedRefused("MPI_Rget", req);
}
inline int MPI_Raccumulate(const void*, int, MPI_Datatype, int, MPI_Aint, int, MPI_Datatype, MPI_Op, MPI_Win,
                           MPI_Request* req) {
  return cuco_program::mpi::OneSidedRefused("MPI_Raccumulate", req);
}
