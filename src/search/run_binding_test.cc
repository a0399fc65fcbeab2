#include "search/run_binding.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "util/files.h"

namespace cuco {
namespace {

namespace fs = std::filesystem;

const char* kTomlHead = R"(name = "toy"
language = "cpu"
seed = "seed.cc"
reference = "reference.cc"
world_size = 2
world_sizes = [1, 2]
[sizes.verify]
M = 8
[sizes.bench]
M = 64
[tolerance]
)";
const std::string kToml = std::string(kTomlHead) + "rel_l2 = 1e-4   # the workload's own\nmax_abs = 1e-3\n";

struct Folder {
  fs::path dir;
  explicit Folder(const std::string& name) {
    dir = fs::temp_directory_path() / ("cuco_binding_" + name + "_" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    Write("workload.toml", kToml);
    Write("seed.cc", "// EVOLVE-BLOCK-START\nint f() { return 1; }\n// EVOLVE-BLOCK-END\n");
    Write("reference.cc", "int reference() { return 1; }\n");
  }
  ~Folder() { fs::remove_all(dir); }
  void Write(const std::string& name, const std::string& text) { ASSERT_TRUE(WriteFileAtomic(dir / name, text).ok()); }
  WorkloadConfig Workload() {
    WorkloadConfig w;
    w.dir = dir;
    w.toml_path = dir / "workload.toml";
    w.seed_file = w.generation0_file = "seed.cc";
    w.reference_file = "reference.cc";
    return w;
  }
  RunBinding Bind(const RunConfig& c) {
    auto b = BindRun(Workload(), c);
    EXPECT_TRUE(b.ok()) << b.status().message();
    return b.ok() ? *b : RunBinding{};
  }
};

RunConfig Defaults() {
  auto c = ParseRunConfig("", "config.toml");
  EXPECT_TRUE(c.ok());
  return *c;
}

TEST(RunBinding, NamesEveryChangeFieldByField) {
  Folder f("fields");
  const RunConfig cfg = Defaults();
  const RunBinding before = f.Bind(cfg);
  EXPECT_TRUE(BindingChanges(before, f.Bind(cfg)).empty());
  EXPECT_EQ(before.workload.at("tolerance.rel_l2"), "0.0001");

  // Comments and layout are not what is measured.
  f.Write("workload.toml", std::string("# a note\n") + kToml);
  EXPECT_TRUE(BindingChanges(before, f.Bind(cfg)).empty());

  f.Write("workload.toml", std::string(kTomlHead) + "rel_l2 = 0.5\nmax_abs = 1e-3\n");
  f.Write("reference.cc", "int reference() { return 2; }\n");
  RunConfig changed = cfg;
  changed.world_size = 1;
  changed.max_candidates = 500;  // a budget: not bound
  changed.launcher = "slurm";    // where it runs: not bound
  const auto changes = BindingChanges(before, f.Bind(changed));
  ASSERT_EQ(changes.size(), 3u) << testing::PrintToString(changes);
  EXPECT_NE(changes[0].find("reference.cc changed (sha256 "), std::string::npos) << changes[0];
  EXPECT_EQ(changes[1], "workload.toml tolerance.rel_l2: 0.0001 -> 0.5");
  EXPECT_EQ(changes[2], "config.toml workload.world_size: 0 -> 1");
}

TEST(RunBinding, AnEmptiedConfigIsRefused) {
  EXPECT_TRUE(CheckResumedConfigText("seed = 1\n", "D/config.toml").ok());
  Status s = CheckResumedConfigText("\n  # nothing\n\t\n", "D/config.toml");
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument);
  EXPECT_NE(s.message().find("D/config.toml: empty"), std::string::npos) << s.message();
  EXPECT_FALSE(CheckResumedConfigText("", "D/config.toml").ok());
}

TEST(RunBinding, StoreRefusesAChangedRunUnlessAccepted) {
  Folder f("store");
  auto store = CandidateStore::Open((f.dir / "cuco.db").string());
  ASSERT_TRUE(store.ok()) << store.status().message();
  RunConfig cfg = Defaults();
  auto first = BindStore(**store, f.Bind(cfg), /*resuming=*/false, false);
  ASSERT_TRUE(first.ok()) << first.status().message();
  EXPECT_EQ(first->lineage, 1);
  CandidateRecord r;
  r.code = "x";
  r.status = "ok";
  ASSERT_TRUE((*store)->Insert(r).ok());

  auto same = BindStore(**store, f.Bind(cfg), /*resuming=*/true, false);
  ASSERT_TRUE(same.ok()) << same.status().message();
  EXPECT_EQ(same->lineage, 1);
  EXPECT_FALSE(same->new_lineage);

  cfg.world_size = 1;
  auto refused = BindStore(**store, f.Bind(cfg), true, false);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), Status::Code::kInvalidArgument);
  EXPECT_NE(refused.status().message().find("config.toml workload.world_size: 0 -> 1"), std::string::npos)
      << refused.status().message();
  EXPECT_NE(refused.status().message().find("--accept-changes"), std::string::npos);

  auto accepted = BindStore(**store, f.Bind(cfg), true, true);
  ASSERT_TRUE(accepted.ok()) << accepted.status().message();
  EXPECT_EQ(accepted->lineage, 2);
  EXPECT_TRUE(accepted->new_lineage);
  auto lineages = (*store)->GetMeta(kMetaLineages);
  ASSERT_TRUE(lineages.ok() && lineages->has_value());
  const auto l = nlohmann::json::parse(**lineages);
  ASSERT_EQ(l.size(), 2u);
  EXPECT_EQ(l[1]["lineage"], 2);
  EXPECT_EQ(l[1]["from_id"], 2);
  EXPECT_EQ(l[1]["changes"][0], "config.toml workload.world_size: 0 -> 1");
  // The new binding is the one checked from now on.
  auto again = BindStore(**store, f.Bind(cfg), true, false);
  ASSERT_TRUE(again.ok()) << again.status().message();
  EXPECT_EQ(again->lineage, 2);
}

}  // namespace
}  // namespace cuco
