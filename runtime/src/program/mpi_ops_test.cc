#include <cuco/program/impl/mpi_ops.h>

#include <cstdint>

#include <gtest/gtest.h>

namespace cuco_program::mpi {
namespace {

// MPI's logical reductions (summa_gemm.cu's `MPI_Allreduce(&local_pass, &all_pass, 1, MPI_INT,
// MPI_LAND, ...)`, the check after its loop) and bitwise ones, beside the arithmetic ones.
TEST(MpiOps, LogicalAndBitwiseReductions) {
  int32_t acc[3] = {1, 0, 6};
  const int32_t x[3] = {5, 1, 3};
  int32_t land[3] = {1, 0, 6}, lor[3] = {0, 0, 6}, lxor[3] = {1, 0, 6}, band[3] = {1, 0, 6}, bxor[3] = {1, 0, 6};
  ReduceInto(land, x, 3, MPI_LAND);
  EXPECT_EQ(land[0], 1);
  EXPECT_EQ(land[1], 0);
  ReduceInto(lor, x, 3, MPI_LOR);
  EXPECT_EQ(lor[1], 1);
  ReduceInto(lxor, x, 3, MPI_LXOR);
  EXPECT_EQ(lxor[0], 0);
  EXPECT_EQ(lxor[1], 1);
  ReduceInto(band, x, 3, MPI_BAND);
  EXPECT_EQ(band[2], 2);
  ReduceInto(bxor, x, 3, MPI_BXOR);
  EXPECT_EQ(bxor[2], 5);
  ReduceInto(acc, x, 3, MPI_MAX);
  EXPECT_EQ(acc[2], 6);
  double d[1] = {2.0};
  const double e[1] = {0.0};
  ReduceInto(d, e, 1, MPI_LAND);
  EXPECT_EQ(d[0], 0.0);
  EXPECT_TRUE(OpAllowed<int32_t>(MPI_BAND));
  EXPECT_FALSE(OpAllowed<double>(MPI_BAND));  // MPI allows bitwise ops on integers only
  EXPECT_TRUE(OpAllowed<double>(MPI_LOR));
  EXPECT_FALSE(OpAllowed<double>(42));
}

// MPI_MAXLOC and MPI_MINLOC on value-index pairs (a solver's largest residual and the rank holding
// it): the lower index among equal values; any other op refused. A bool takes the logical ops only.
TEST(MpiOps, LocationReductionsAndBools) {
  ValueIndex<double> acc[2] = {{1.0, 3}, {5.0, 2}};
  const ValueIndex<double> x[2] = {{4.0, 1}, {5.0, 0}};
  EXPECT_TRUE(ReduceLocInto(acc, x, 2, MPI_MAXLOC));
  EXPECT_EQ(acc[0].value, 4.0);
  EXPECT_EQ(acc[0].index, 1);
  EXPECT_EQ(acc[1].index, 0);  // a tie: the lower index
  ValueIndex<int> m[1] = {{2, 5}};
  const ValueIndex<int> y[1] = {{7, 1}};
  EXPECT_TRUE(ReduceLocInto(m, y, 1, MPI_MINLOC));
  EXPECT_EQ(m[0].value, 2);
  EXPECT_FALSE(ReduceLocInto(m, y, 1, MPI_SUM));
  EXPECT_EQ(sizeof(ValueIndex<double>), 16u);  // MPI_DOUBLE_INT's bytes
  EXPECT_TRUE(OpAllowed<bool>(MPI_LOR));
  EXPECT_FALSE(OpAllowed<bool>(MPI_SUM));
  EXPECT_FALSE(OpAllowed<double>(MPI_MAXLOC));  // a plain value has no index
  bool b[2] = {true, false};
  const bool c[2] = {false, false};
  ReduceInto(b, c, 2, MPI_LOR);
  EXPECT_TRUE(b[0]);
  EXPECT_FALSE(b[1]);
}

}  // namespace
}  // namespace cuco_program::mpi
