// cuco/program/impl/mpi_datatypes.h: derived datatypes of cuco's MPI stand-in (cuco/program/mpi.h
// includes this at its end). A contiguous type or a struct (a program broadcasting its parameters
// as one `MPI_Type_create_struct`) moves as the bytes of its extent: its blocks' end, rounded up to
// its widest member as MPI rounds a struct's extent, so an array of them moves as the C array does.
// The value keeps the datatype encoding (the element size below 10000, the kind above: kDerived).
// Reductions of derived types are refused (no MPI_Op_create), as are types over 9999 bytes and
// types with holes cuco cannot move as bytes (indexed, subarrays). A vector (MPI_Type_vector, and
// MPI_Type_create_hvector with its stride in bytes: a halo column of a row-major grid) is a strided
// type (mpi.h's kStrided + its number in StridedTypes()): the point-to-point calls pack it into
// contiguous bytes and unpack it where it is received (impl/mpi_p2p.h), on host or device memory.
#pragma once

#include <algorithm>
#include <cstdio>
#include <deque>
#include <mutex>

#include <cuco/program/impl/mpi_strided.h>

namespace cuco_program::mpi {
constexpr MPI_Datatype kDerived = 1000000;
inline int TypeRefused(const char* call, const char* why) {
  std::fprintf(stderr, "cuco: %s: %s, which cuco's MPI stand-in (cuco/program/mpi.h) does not take\n", call, why);
  return MPI_ERR_OTHER;
}
inline int DerivedOfBytes(const char* call, long long bytes, MPI_Datatype* out) {
  if (bytes <= 0 || bytes > 9999) return TypeRefused(call, "a datatype of no bytes or of more than 9999");
  *out = kDerived + static_cast<MPI_Datatype>(bytes);
  return MPI_SUCCESS;
}
// Every strided type of the process (its ranks' threads in the reference share them): made once
// each, never freed (a deque: an entry stays where it is).
inline std::deque<StridedType>& StridedTypes() {
  static std::deque<StridedType> types;
  return types;
}
inline std::mutex& StridedTypesMutex() {
  static std::mutex mu;
  return mu;
}
inline StridedType Strided(MPI_Datatype t) {
  std::lock_guard<std::mutex> lock(StridedTypesMutex());
  const size_t i = static_cast<size_t>(t - kStrided);
  return i < StridedTypes().size() ? StridedTypes()[i] : StridedType{};
}
inline int MakeStrided(const char* call, int count, int blocklength, long long stride_bytes, MPI_Datatype old,
                       MPI_Datatype* out) {
  *out = MPI_DATATYPE_NULL;
  if (IsStrided(old)) return TypeRefused(call, "a vector of a strided datatype");
  const long long block = static_cast<long long>(blocklength) * static_cast<long long>(TypeBytes(old));
  if (count < 0 || blocklength < 0 || stride_bytes < block)
    return TypeRefused(call, "a vector whose blocks overlap or run backwards (a stride below its block length)");
  std::lock_guard<std::mutex> lock(StridedTypesMutex());
  StridedTypes().push_back({count, block, stride_bytes});
  *out = kStrided + static_cast<MPI_Datatype>(StridedTypes().size() - 1);
  return MPI_SUCCESS;
}
}  // namespace cuco_program::mpi

inline int MPI_Type_contiguous(int count, MPI_Datatype old, MPI_Datatype* out) {
  return cuco_program::mpi::DerivedOfBytes("MPI_Type_contiguous",
                                           static_cast<long long>(count) * static_cast<long long>(cuco_program::mpi::TypeBytes(old)),
                                           out);
}
inline int MPI_Type_create_struct(int count, const int* lengths, const MPI_Aint* displacements, const MPI_Datatype* types,
                                  MPI_Datatype* out) {
  long long end = 0, widest = 1;
  for (int i = 0; i < count; ++i) {
    const long long bytes = static_cast<long long>(cuco_program::mpi::TypeBytes(types[i]));
    end = std::max(end, static_cast<long long>(displacements[i]) + lengths[i] * bytes);
    if (lengths[i] > 0) widest = std::max(widest, std::min(bytes, 8LL));  // a member's alignment: its size, 8 at most
  }
  return cuco_program::mpi::DerivedOfBytes("MPI_Type_create_struct", (end + widest - 1) / widest * widest, out);
}
inline int MPI_Type_struct(int count, int* lengths, MPI_Aint* displacements, MPI_Datatype* types, MPI_Datatype* out) {
  return MPI_Type_create_struct(count, lengths, displacements, types, out);
}
inline int MPI_Type_commit(MPI_Datatype*) { return MPI_SUCCESS; }
inline int MPI_Type_free(MPI_Datatype* t) { return (*t = MPI_DATATYPE_NULL), MPI_SUCCESS; }
// The bytes a datatype's data holds (a strided type's blocks, packed), and what one spans.
namespace cuco_program::mpi {
inline long long DataBytes(MPI_Datatype t) {
  return IsStrided(t) ? Strided(t).packed() : static_cast<long long>(TypeBytes(t));
}
}  // namespace cuco_program::mpi
inline int MPI_Type_size(MPI_Datatype t, int* bytes) {
  return (*bytes = static_cast<int>(cuco_program::mpi::DataBytes(t))), MPI_SUCCESS;
}
inline int MPI_Type_get_extent(MPI_Datatype t, MPI_Aint* lb, MPI_Aint* extent) {
  *lb = 0;
  *extent = static_cast<MPI_Aint>(cuco_program::mpi::IsStrided(t) ? cuco_program::mpi::Strided(t).extent()
                                                                   : static_cast<long long>(cuco_program::mpi::TypeBytes(t)));
  return MPI_SUCCESS;
}
inline int MPI_Get_address(const void* p, MPI_Aint* address) {
  *address = reinterpret_cast<MPI_Aint>(p);
  return MPI_SUCCESS;
}

inline int MPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype old, MPI_Datatype* out) {
  const long long elem = cuco_program::mpi::IsStrided(old) ? 0 : static_cast<long long>(cuco_program::mpi::TypeBytes(old));
  return cuco_program::mpi::MakeStrided("MPI_Type_vector", count, blocklength, static_cast<long long>(stride) * elem, old,
                                        out);
}
inline int MPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype old, MPI_Datatype* out) {
  return cuco_program::mpi::MakeStrided("MPI_Type_create_hvector", count, blocklength, static_cast<long long>(stride), old,
                                        out);
}
// A subarray of a grid (a solver writing its part of a file through a view, eth-cscs's miniapp after
// its loop): compiles, and fails when run.
#define MPI_ORDER_C 56
#define MPI_ORDER_FORTRAN 57
inline int MPI_Type_create_subarray(int, const int*, const int*, const int*, int, MPI_Datatype, MPI_Datatype* out) {
  *out = MPI_DATATYPE_NULL;
  return cuco_program::mpi::TypeRefused("MPI_Type_create_subarray", "a subarray datatype");
}
inline int MPI_Type_indexed(int, const int*, const int*, MPI_Datatype, MPI_Datatype* out) {
  *out = MPI_DATATYPE_NULL;
  return cuco_program::mpi::TypeRefused("MPI_Type_indexed", "an indexed datatype");
}
