// cuco/program/impl/mpi_cart.h: Cartesian grids in cuco's MPI stand-in (included at the end of
// cuco/program/mpi.h): a 2-D process grid of a SUMMA (MPI_Dims_create, MPI_Cart_create,
// MPI_Cart_coords, its row and column communicators by MPI_Cart_sub or MPI_Comm_split). A grid spans
// every rank, in row-major order (reorder is never done); MPI_Cart_sub is a split by the kept
// coordinates (impl/mpi_groups.h), so every rank makes it at once.
#pragma once

namespace cuco_program::mpi {
// The grid of `c`, or nullopt-like empty dims with MPI_ERR_COMM said for `call`.
inline Grid GridFor(MPI_Comm c, const char* call) {
  Grid g = GridOf(c);
  if (g.dims.empty()) std::fprintf(stderr, "cuco: %s of a communicator that is no Cartesian grid\n", call);
  return g;
}
}  // namespace cuco_program::mpi

// dims[i] == 0 is chosen, the others kept: the product is nnodes, as balanced as its factors allow
// (largest first, as MPI does).
inline int MPI_Dims_create(int nnodes, int ndims, int dims[]) {
  int fixed = 1, open = 0;
  for (int i = 0; i < ndims; ++i) dims[i] > 0 ? (void)(fixed *= dims[i]) : (void)++open;
  if (fixed <= 0 || nnodes % fixed != 0) return MPI_ERR_ARG;
  std::vector<int> chosen(static_cast<size_t>(open), 1);
  int left = nnodes / fixed;
  std::vector<int> factors;  // prime factors, largest first
  for (int p = 2; p * p <= left; ++p)
    while (left % p == 0) factors.push_back(p), left /= p;
  if (left > 1) factors.push_back(left);
  std::sort(factors.rbegin(), factors.rend());
  for (const int f : factors) {  // each to the smallest so far
    if (chosen.empty()) break;
    *std::min_element(chosen.begin(), chosen.end()) *= f;
  }
  std::sort(chosen.rbegin(), chosen.rend());
  for (int i = 0, k = 0; i < ndims; ++i)
    if (dims[i] <= 0) dims[i] = chosen[static_cast<size_t>(k++)];
  return open == 0 && fixed != nnodes ? MPI_ERR_ARG : MPI_SUCCESS;
}
inline int MPI_Cart_create(MPI_Comm, int ndims, const int dims[], const int periods[], int, MPI_Comm* cart) {
  namespace m = cuco_program::mpi;
  m::Grid g;
  int size = 1;
  for (int i = 0; i < ndims; ++i) g.dims.push_back(dims[i]), g.periods.push_back(periods ? periods[i] : 0), size *= dims[i];
  if (size != cuco_program::world()) {
    std::fprintf(stderr, "cuco: MPI_Cart_create of a grid of %d ranks, not every rank (%d): not in cuco's MPI stand-in\n",
                 size, cuco_program::world());
    return MPI_ERR_ARG;
  }
  *cart = m::kCartComm + m::NewGrid(std::move(g));
  return MPI_SUCCESS;
}
inline int MPI_Cartdim_get(MPI_Comm c, int* ndims) {
  const cuco_program::mpi::Grid g = cuco_program::mpi::GridFor(c, "MPI_Cartdim_get");
  return g.dims.empty() ? MPI_ERR_COMM : ((*ndims = static_cast<int>(g.dims.size())), MPI_SUCCESS);
}
inline int MPI_Cart_coords(MPI_Comm c, int rank, int maxdims, int coords[]) {
  const cuco_program::mpi::Grid g = cuco_program::mpi::GridFor(c, "MPI_Cart_coords");
  if (g.dims.empty()) return MPI_ERR_COMM;
  for (int i = static_cast<int>(g.dims.size()) - 1; i >= 0; --i) {
    if (i < maxdims) coords[i] = rank % g.dims[static_cast<size_t>(i)];
    rank /= g.dims[static_cast<size_t>(i)];
  }
  return MPI_SUCCESS;
}
inline int MPI_Cart_get(MPI_Comm c, int maxdims, int dims[], int periods[], int coords[]) {
  const cuco_program::mpi::Grid g = cuco_program::mpi::GridFor(c, "MPI_Cart_get");
  if (g.dims.empty()) return MPI_ERR_COMM;
  for (int i = 0; i < maxdims && i < static_cast<int>(g.dims.size()); ++i)
    dims[i] = g.dims[static_cast<size_t>(i)], periods[i] = g.periods[static_cast<size_t>(i)];
  return MPI_Cart_coords(c, cuco_program::rank(), maxdims, coords);
}
// A coordinate outside a dimension that is not periodic: MPI_PROC_NULL.
inline int MPI_Cart_rank(MPI_Comm c, const int coords[], int* rank) {
  const cuco_program::mpi::Grid g = cuco_program::mpi::GridFor(c, "MPI_Cart_rank");
  if (g.dims.empty()) return MPI_ERR_COMM;
  int r = 0;
  for (size_t i = 0; i < g.dims.size(); ++i) {
    int x = coords[i];
    if (g.periods[i]) x = ((x % g.dims[i]) + g.dims[i]) % g.dims[i];
    if (x < 0 || x >= g.dims[i]) return (*rank = MPI_PROC_NULL), MPI_SUCCESS;
    r = r * g.dims[i] + x;
  }
  return (*rank = r), MPI_SUCCESS;
}
inline int MPI_Cart_shift(MPI_Comm c, int direction, int disp, int* source, int* dest) {
  const cuco_program::mpi::Grid g = cuco_program::mpi::GridFor(c, "MPI_Cart_shift");
  if (g.dims.empty() || direction < 0 || direction >= static_cast<int>(g.dims.size())) return MPI_ERR_ARG;
  std::vector<int> at(g.dims.size());
  MPI_Cart_coords(c, cuco_program::rank(), static_cast<int>(at.size()), at.data());
  std::vector<int> to = at, from = at;
  to[static_cast<size_t>(direction)] += disp, from[static_cast<size_t>(direction)] -= disp;
  MPI_Cart_rank(c, to.data(), dest);
  return MPI_Cart_rank(c, from.data(), source);
}
// The ranks sharing this rank's coordinates in the dimensions not kept, ordered by the kept ones.
inline int MPI_Cart_sub(MPI_Comm c, const int remain_dims[], MPI_Comm* sub) {
  const cuco_program::mpi::Grid g = cuco_program::mpi::GridFor(c, "MPI_Cart_sub");
  if (g.dims.empty()) return MPI_ERR_COMM;
  std::vector<int> at(g.dims.size());
  MPI_Cart_coords(c, cuco_program::rank(), static_cast<int>(at.size()), at.data());
  int color = 0, key = 0;
  for (size_t i = 0; i < g.dims.size(); ++i)
    remain_dims[i] ? (void)(key = key * g.dims[i] + at[i]) : (void)(color = color * g.dims[i] + at[i]);
  return MPI_Comm_split(c, color, key, sub);
}
