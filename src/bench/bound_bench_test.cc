#include "bench/bound_bench.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "util/files.h"

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

// Where the best's knob marks differ from the defaults, the plain parts run again at its settings.
TEST(BoundBench, TheBestsOwnPartsAtItsKnobSettings) {
  const auto dir = std::filesystem::temp_directory_path() / ("cuco_bound_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  WorkloadConfig wl;
  wl.dir = "/w/tp_row";
  Knob chunks{"chunks", {"1", "2", "4"}, "1", "", true}, backend{"backend", {"nccl", "ce"}, "nccl", "", true},
      part{"part", {"none", "compute", "comm"}, "none", "", false};
  wl.knobs = {chunks, backend, part};
  Variant compute, compute_graph, comm;
  compute.name = "compute_alone";
  compute.part = "compute";
  compute.knobs = {{"part", "compute"}};
  compute_graph = compute;
  compute_graph.name = "compute_alone_graph";
  compute_graph.knobs["graph"] = "on";
  comm.name = "comm_alone";
  comm.part = "comm";
  comm.knobs = {{"part", "comm"}};
  wl.variants = {compute, compute_graph, comm};
  const std::string marks = "// EVOLVE-BLOCK-START\n"
                            "constexpr const char* kChunks = \"4\";  // cuco:knob chunks\n"
                            "constexpr const char* kBackend = \"ce\";  // cuco:knob backend\n"
                            "constexpr const char* kPart = \"none\";  // cuco:knob part\n"
                            "// EVOLVE-BLOCK-END\n";
  ASSERT_TRUE(WriteFileAtomic(dir / "best.cu", marks).ok());
  auto o = BoundBenchOptions(wl, (dir / "best.cu").string(), {});
  ASSERT_TRUE(o.has_value());
  EXPECT_EQ(o->only, (std::vector<std::string>{"seed", "compute_alone", "compute_alone_graph", "comm_alone",
                                               "best_compute_alone", "best_comm_alone", "best.cu"}));
  ASSERT_EQ(o->workload_config->variants.size(), 5u);
  const Variant& own = o->workload_config->variants[3];
  EXPECT_EQ(own.part, "compute");
  EXPECT_EQ(own.knobs, (std::map<std::string, std::string>{{"part", "compute"}, {"chunks", "4"}, {"backend", "ce"}}));
  EXPECT_NE(own.description.find("backend ce, chunks 4"), std::string::npos) << own.description;
  EXPECT_EQ(o->workload_config->variants[4].knobs.at("part"), "comm");

  // A best at the defaults adds nothing: the plain parts are its own.
  ASSERT_TRUE(WriteFileAtomic(dir / "plain.cu", std::string(marks).replace(marks.find("\"4\""), 3, "\"1\"")
                                                    .replace(marks.find("\"ce\""), 4, "\"nccl\"")).ok());
  o = BoundBenchOptions(wl, (dir / "plain.cu").string(), {});
  ASSERT_TRUE(o.has_value());
  EXPECT_EQ(o->workload_config->variants.size(), 3u);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace cuco
