#include <cuco/program/impl/program_gpu.h>

#include <gtest/gtest.h>

namespace cuco_program::proj {
namespace {

// A program written for one GPU a node selects GPU 0 on every rank (likejazz's test_nccl; a
// `--local-gpu` flag at its default, NCCL-Sandbox's RDMA benchmark): at two ranks rank 1 was refused.
// The first number is the rank's GPU, whatever it is; the same again is too; another is refused.
TEST(ProgramGpu, TheFirstNumberSelectedIsTheRanksGpu) {
  std::atomic<int> chosen{-1};
  EXPECT_TRUE(SelectsOwnGpu(chosen, 0));
  EXPECT_TRUE(SelectsOwnGpu(chosen, 0));
  EXPECT_FALSE(SelectsOwnGpu(chosen, 1));
  EXPECT_EQ(chosen.load(), 0);
  std::atomic<int> rank_one{-1};
  EXPECT_TRUE(SelectsOwnGpu(rank_one, 1));  // cudaSetDevice(rank) on rank 1
  EXPECT_FALSE(SelectsOwnGpu(rank_one, 0));
  std::atomic<int> none{-1};
  EXPECT_FALSE(SelectsOwnGpu(none, -1));
  EXPECT_EQ(none.load(), -1);
}

}  // namespace
}  // namespace cuco_program::proj
