// The reduction operations of cuco/program/mpi.h (MPI_Op values) and how each combines two values:
// arithmetic (MPI_SUM, MPI_PROD, MPI_MAX, MPI_MIN), logical (MPI_LAND, MPI_LOR, MPI_LXOR: 1 or 0,
// of any type; the only ones on a bool) and bitwise (MPI_BAND, MPI_BOR, MPI_BXOR: integer types only,
// as MPI allows); and MPI_MAXLOC, MPI_MINLOC on value-index pairs (MPI_DOUBLE_INT: ReduceLocInto).
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
#define MPI_MAXLOC 11
#define MPI_MINLOC 12

namespace cuco_program::mpi {

// Whether `op` is one MPI allows on T (a bitwise one on an integer type only).
template <class T>
bool OpAllowed(int op) {
  if constexpr (std::is_same_v<T, bool>) return op >= MPI_LAND && op <= MPI_LXOR;
  if (op >= MPI_BAND && op <= MPI_BXOR) return std::is_integral_v<T>;
  return op >= MPI_SUM && op <= MPI_LXOR;
}

// A value and its index, as MPI_2INT, MPI_FLOAT_INT, MPI_DOUBLE_INT and MPI_LONG_INT lay them out.
template <class V>
struct ValueIndex {
  V value;
  int index;
};

// acc[i] = the larger (MPI_MAXLOC) or smaller (MPI_MINLOC) of acc[i] and x[i] by value, the lower
// index among equal values, as MPI defines them; false for any other op (acc left alone).
template <class V>
bool ReduceLocInto(ValueIndex<V>* acc, const ValueIndex<V>* x, int count, int op) {
  if (op != MPI_MAXLOC && op != MPI_MINLOC) return false;
  for (int i = 0; i < count; ++i) {
    const bool better = op == MPI_MAXLOC ? acc[i].value < x[i].value : x[i].value < acc[i].value;
    if (better || (acc[i].value == x[i].value && x[i].index < acc[i].index)) acc[i] = x[i];
  }
  return true;
}

// acc[i] = acc[i] op x[i] for i < count (OpAllowed first: an op not allowed leaves acc alone).
template <class T>
void ReduceInto(T* acc, const T* x, int count, int op) {
  for (int i = 0; i < count; ++i) {
    switch (op) {
      case MPI_SUM: acc[i] = static_cast<T>(acc[i] + x[i]); break;
      case MPI_PROD: acc[i] = static_cast<T>(acc[i] * x[i]); break;
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
