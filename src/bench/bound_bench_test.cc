#include "bench/bound_bench.h"

#include <gtest/gtest.h>

namespace cuco {
namespace {

TEST(BoundBench, TheSeedThePartsAndTheBestWithoutPeers) {
  WorkloadConfig wl;
  wl.dir = "/w/tp_mlp";
  Variant full, compute, comm;
  full.name = "fast";
  compute.name = "compute_alone";
  compute.part = "compute";
  comm.name = "comm_alone";
  comm.part = "comm";
  wl.variants = {full, compute, comm};
  BenchOptions base;
  base.world_size = 2;
  auto o = BoundBenchOptions(wl, "/runs/s1/best.cu", base);
  ASSERT_TRUE(o.has_value());
  EXPECT_EQ(o->only, (std::vector<std::string>{"seed", "compute_alone", "comm_alone", "best.cu"}));
  EXPECT_EQ(o->candidates, std::vector<std::string>{"/runs/s1/best.cu"});
  EXPECT_EQ(o->workload, "/w/tp_mlp");
  ASSERT_TRUE(o->workload_config.has_value()) << "the workload as the search read it, not read again";
  EXPECT_EQ(o->workload_config->dir, "/w/tp_mlp");
  EXPECT_EQ(o->run_dir, "/runs/s1/bound");
  EXPECT_TRUE(o->no_peers);
  EXPECT_EQ(o->world_size, 2) << "the search's own options carry over";
}

TEST(BoundBench, NothingWithoutAPartOrABest) {
  WorkloadConfig wl;
  Variant full;
  full.name = "fast";
  wl.variants = {full};
  EXPECT_FALSE(BoundBenchOptions(wl, "/runs/s1/best.cu", {}).has_value()) << "no bound part";
  Variant compute;
  compute.name = "compute_alone";
  compute.part = "compute";
  wl.variants.push_back(compute);
  EXPECT_FALSE(BoundBenchOptions(wl, "", {}).has_value()) << "no best";
  EXPECT_TRUE(BoundBenchOptions(wl, "/runs/s1/best.cu", {}).has_value());
}

}  // namespace
}  // namespace cuco
