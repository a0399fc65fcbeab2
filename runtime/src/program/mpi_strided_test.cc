#include <cuco/program/impl/mpi_strided.h>

#include <vector>

#include <gtest/gtest.h>

namespace cuco_program::mpi {
namespace {

// gpritam/CUDA-aware-MPI's halo column (stop 90): MPI_Type_vector(Offset = 1, Ny = 3, Ny + 2,
// MPI_DOUBLE) is one row of a padded grid; (Nx = 4, 1, Ny + 2) is a column. A column of a 4 x 5
// grid packs to its 4 values and unpacks back to the same places, nothing else touched.
TEST(MpiStrided, AColumnOfAGridPacksAndUnpacksInPlace) {
  std::vector<double> grid(4 * 5);
  for (size_t i = 0; i < grid.size(); ++i) grid[i] = static_cast<double>(i);
  const StridedType column{4, sizeof(double), 5 * sizeof(double)};
  EXPECT_EQ(column.packed(), 4 * 8);
  EXPECT_EQ(column.extent(), 3 * 40 + 8);
  std::vector<double> packed(4);
  MoveStridedHost(reinterpret_cast<unsigned char*>(&grid[1]), column, 1, reinterpret_cast<unsigned char*>(packed.data()),
                  true);
  EXPECT_EQ(packed, (std::vector<double>{1, 6, 11, 16}));
  std::vector<double> into(4 * 5, -1);
  MoveStridedHost(reinterpret_cast<unsigned char*>(&into[4]), column, 1, reinterpret_cast<unsigned char*>(packed.data()),
                  false);
  for (size_t i = 0; i < into.size(); ++i) EXPECT_EQ(into[i], i % 5 == 4 ? grid[i - 3] : -1) << i;
}

// Two items of a type of 2 blocks of 2 ints, 3 apart: the second starts one extent (5 ints) after
// the first, and packs right after it.
TEST(MpiStrided, ItemsFollowOneExtentApart) {
  std::vector<int> data(10);
  for (int i = 0; i < 10; ++i) data[static_cast<size_t>(i)] = i;
  const StridedType t{2, 2 * sizeof(int), 3 * sizeof(int)};
  std::vector<int> packed(8);
  MoveStridedHost(reinterpret_cast<unsigned char*>(data.data()), t, 2, reinterpret_cast<unsigned char*>(packed.data()), true);
  EXPECT_EQ(packed, (std::vector<int>{0, 1, 3, 4, 5, 6, 8, 9}));
}

}  // namespace
}  // namespace cuco_program::mpi
