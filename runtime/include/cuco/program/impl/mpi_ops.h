// The reduction operations of cuco/program/mpi.h (MPI_Op values) and how each combines two values:
// arithmetic (MPI_SUM, MPI_PROD, MPI_MAX, MPI_MIN), logical (MPI_LAND, MPI_LOR, MPI_LXOR: 1 or 0,
// of any type) and bitwise (MPI_BAND, MPI_BOR, MPI_BXOR: integer types only, as MPI allows).
#pragma once

#include <type_traits>

#define MPI_SUM 1
#define MPI_MAX 2
#define MPI_MIN 3
#define MPI_PROD 4
#define MPI_LAND 5
#define MPI_LOR 6
#define MPI_LXOR 7
#define MPI_BAND 8
#define MPI_BOR 9
#define MPI_BXOR 10

namespace cuco_program::mpi {

// Whether `op` is one MPI allows on T (a bitwise one on an integer type only).
template <class T>
bool OpAllowed(int op) {
  if (op >= MPI_BAND && op <= MPI_BXOR) return std::is_integral_v<T>;
  return op >= MPI_SUM && op <= MPI_LXOR;
}

// acc[i] = acc[i] op x[i] for i < count (OpAllowed first: an op not allowed leaves acc alone).
template <class T>
void ReduceInto(T* acc, const T* x, int count, int op) {
  for (int i = 0; i < count; ++i) {
    switch (op) {
      case MPI_SUM: acc[i] = acc[i] + x[i]; break;
      case MPI_PROD: acc[i] = acc[i] * x[i]; break;
      case MPI_MAX: acc[i] = acc[i] < x[i] ? x[i] : acc[i]; break;
      case MPI_MIN: acc[i] = x[i] < acc[i] ? x[i] : acc[i]; break;
      case MPI_LAND: acc[i] = static_cast<T>(acc[i] != T(0) && x[i] != T(0)); break;
      case MPI_LOR: acc[i] = static_cast<T>(acc[i] != T(0) || x[i] != T(0)); break;
      case MPI_LXOR: acc[i] = static_cast<T>((acc[i] != T(0)) != (x[i] != T(0))); break;
      default:
        if constexpr (std::is_integral_v<T>) {
          if (op == MPI_BAND) acc[i] = acc[i] & x[i];
          if (op == MPI_BOR) acc[i] = acc[i] | x[i];
          if (op == MPI_BXOR) acc[i] = acc[i] ^ x[i];
        }
        break;
    }
  }
}

}  // namespace cuco_program::mpi
