#include "search/evolution.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <mutex>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <set>
#include <thread>

#include "propose/builtin_proposer.h"
#include "search/progress.h"
#include "util/files.h"
#include "util/sha256.h"
#include "workload/knob_marks.h"

namespace cuco {
namespace {

namespace fs = std::filesystem;

const char* kSeed = R"(// frozen prologue
// EVOLVE-BLOCK-START
constexpr int kA = 1;  // cuco:knob a
constexpr const char* kB = "x";  // cuco:knob b
constexpr int kC = 0;  // cuco:knob c
int body() { return kA; }
// EVOLVE-BLOCK-END
// frozen epilogue
)";

// A workload folder with the seed above and 4 x 3 x 2 = 24 knob configurations.
struct Fixture {
  fs::path dir;
  WorkloadConfig wl;
  explicit Fixture(const std::string& name) {
    dir = fs::temp_directory_path() / ("cuco_evo_" + name + "_" + std::to_string(getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir / "wl");
    WriteFileAtomic(dir / "wl" / "seed.cc", kSeed);
    wl.name = "toy";
    wl.dir = dir / "wl";
    wl.seed_file = wl.generation0_file = "seed.cc";
    wl.language = "cpu";
    wl.knobs = {{"a", {"1", "2", "3", "4"}, "1", ""}, {"b", {"x", "y", "z"}, "x", ""}, {"c", {"0", "1"}, "0", ""}};
  }
  ~Fixture() { fs::remove_all(dir); }
  fs::path Run(const std::string& n) { return dir / n; }
};

// Deterministic "measurements": faster with larger a, b = z and c = 1; a = 3 with b = y fails.
EvalRecord FakeEval(const std::string& code) {
  EvalRecord r;
  auto marks = FindKnobMarks(code, "x");
  auto k = marks.ok() ? KnobValues(*marks) : std::map<std::string, std::string>{};
  if (k["a"] == "3" && k["b"] == "y") {
    r.status = EvalStatus::kWrongResult;
    r.reason = "verify: rel L2 0.7";
    return r;
  }
  r.status = EvalStatus::kOk;
  r.timing.median_ms = 10.0 - std::stoi(k["a"]) - (k["b"] == "z" ? 2.0 : k["b"] == "y" ? 1.0 : 0.0) - (k["c"] == "1" ? 0.5 : 0.0);
  return r;
}

RunConfig Config(int max_candidates, int islands = 2) {
  auto c = ParseRunConfig("", "test");
  EXPECT_TRUE(c.ok());
  c->max_candidates = max_candidates;
  c->max_generations = 50;
  c->islands = islands;
  c->migration_interval = 2;
  c->seed = 11;
  c->per_generation = 4;  // fixed: its default depends on the parallelism
  return *c;
}

// What identifies a run's candidates, in id order.
std::vector<std::string> Trace(CandidateStore& store) {
  ListQuery q;
  auto rows = store.List(q);
  EXPECT_TRUE(rows.ok());
  std::vector<std::string> out;
  for (const auto& r : *rows)
    out.push_back(std::to_string(r.id) + " " + r.code_hash.substr(0, 12) + " p" + std::to_string(r.parent_id) + " i" +
                  std::to_string(r.island) + " g" + std::to_string(r.generation) + " " + r.mutation_kind + " " + r.status);
  return out;
}

Result<SearchResult> RunSearch(Fixture& f, const fs::path& run, RunConfig cfg, int evaluations,
                               EvaluateFn eval = nullptr, bool timings = true, int carry_over = 0,
                               const std::function<void(SearchOptions*)>& more = nullptr) {
  fs::create_directories(run);
  auto store = CandidateStore::Open((run / "cuco.db").string());
  if (!store.ok()) return store.status();
  BuiltinProposer proposer;
  SearchOptions o;
  o.run_dir = run;
  o.code_extension = ".cc";
  o.evaluations = evaluations;
  o.timings_available = timings;
  o.carry_over = carry_over;
  if (!eval)
    eval = [](const std::string& code, const std::string&, const fs::path&, double) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
      return FakeEval(code);
    };
  if (more) more(&o);
  Evolution evo(f.wl, cfg, store->get(), &proposer, eval, o);
  return evo.Run();
}

// Every evaluation is told the best so far (the upper end of its median's interval, its time where
// the record has none), so that an imprecise bench wholly above it is not timed again; the first
// ones, before anything passed, are told none.
TEST(Evolution, EachEvaluationIsToldTheBestSoFar) {
  Fixture f("best-so-far");
  std::mutex mu;
  std::vector<double> told;
  auto r = RunSearch(f, f.Run("r"), Config(10), 1, [&](const std::string& code, const std::string&, const fs::path&,
                                                      double best_hi_ms) {
    {
      std::lock_guard<std::mutex> lock(mu);
      told.push_back(best_hi_ms);
    }
    EvalRecord e = FakeEval(code);
    if (e.status == EvalStatus::kOk) {
      e.timing.median_lo_ms = e.timing.median_ms - 0.25;
      e.timing.median_hi_ms = e.timing.median_ms + 0.25;
    }
    return e;
  });
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(told.size(), 10u);
  EXPECT_EQ(told.front(), 0);
  // Later ones: some passing candidate's upper bound (FakeEval's times are 10 - ... in steps of 0.5).
  const double last = told.back();
  EXPECT_GT(last, 0);
  EXPECT_NEAR(std::fmod(last - 0.25, 0.5), 0, 1e-9) << last;
  EXPECT_LE(last, 10.25);
  for (size_t i = 1; i < told.size(); ++i) EXPECT_TRUE(told[i] == 0 || told[i] <= 10.25) << told[i];
}

// A proposal with every setting of one of the workload's [[excluded]] tables is stored skipped with
// why, never evaluated, and its slot goes to another proposal (FakeEval's a = 3 with b = y).
TEST(Evolution, ExcludedKnobSettingsAreNeverEvaluated) {
  Fixture f("excluded");
  f.wl.excluded = {{{{"a", "3"}, {"b", "y"}}, "a 3 and b y cannot run together", 7}};
  std::atomic<int> excluded_evaluated{0};
  const fs::path run = f.Run("r");
  auto r = RunSearch(f, run, Config(24), 1, [&](const std::string& code, const std::string&, const fs::path&, double) {
    EvalRecord e = FakeEval(code);
    if (e.status == EvalStatus::kWrongResult) ++excluded_evaluated;
    return e;
  });
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(excluded_evaluated.load(), 0);
  EXPECT_EQ(r->by_status["wrong_result"], 0);
  auto store = CandidateStore::Open((run / "cuco.db").string());
  ASSERT_TRUE(store.ok());
  ListQuery q;
  q.status = "skipped";
  auto skipped = (*store)->List(q);
  ASSERT_TRUE(skipped.ok());
  ASSERT_FALSE(skipped->empty()) << "the builtin proposer reaches a = 3, b = y among 24 settings";
  EXPECT_NE((*skipped)[0].feedback.find("not evaluated: a = \"3\" with b = \"y\" cannot run together (a 3 and b y "
                                       "cannot run together; workload.toml:7)"),
            std::string::npos)
      << (*skipped)[0].feedback;
}

// The seed has no knob marks and beats generation 0's defaults (as moe_dispatch_combine's seed did
// at world size 1): the builtin proposer must still search, from generation 0's marked code.
TEST(Evolution, UnmarkedFasterSeedDoesNotEndTheSearch) {
  Fixture f("unmarked");
  WriteFileAtomic(f.wl.dir / "gen0.cc", kSeed);
  WriteFileAtomic(f.wl.dir / "seed.cc", "// frozen prologue\n// EVOLVE-BLOCK-START\nint body() { return 1; }\n// EVOLVE-BLOCK-END\n// frozen epilogue\n");
  f.wl.generation0_file = "gen0.cc";
  auto r = RunSearch(f, f.Run("r"), Config(8), 1, [](const std::string& code, const std::string&, const fs::path&, double) {
    if (code.find("cuco:knob") == std::string::npos) {
      EvalRecord seed;
      seed.status = EvalStatus::kOk;
      seed.timing.median_ms = 8.5;  // faster than generation 0's defaults (9.0)
      return seed;
    }
    return FakeEval(code);
  });
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->candidates, 8) << r->stop_reason;
  EXPECT_GT(r->best_speedup, 1.0);
}

TEST(Evolution, FindsTheBestAndNeverRepeats) {
  Fixture f("best");
  auto r = RunSearch(f, f.Run("r"), Config(14), 2);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->candidates, 14);
  EXPECT_EQ(r->stop_reason, "budget: max_candidates (14) reached");
  EXPECT_GT(r->best_speedup, 1.0);
  EXPECT_EQ(r->reference_id, 1);
  EXPECT_DOUBLE_EQ(r->reference_ms, 9.0);
  auto store = CandidateStore::Open((f.Run("r") / "cuco.db").string());
  ASSERT_TRUE(store.ok());
  ListQuery q;
  auto rows = (*store)->List(q);
  ASSERT_TRUE(rows.ok());
  std::set<std::string> hashes;
  std::map<int64_t, CandidateRecord> by_id;
  for (const auto& row : *rows) {
    EXPECT_TRUE(hashes.insert(row.code_hash).second) << "evaluated twice: " << row.id;
    by_id[row.id] = row;
    EXPECT_NE(row.status, "pending");
    if (row.id == 1) {
      EXPECT_EQ(row.mutation_kind, "seed");
      EXPECT_EQ(row.generation, 0);
      continue;
    }
    // Parents are passing candidates of earlier generations; the diff is from the parent.
    ASSERT_TRUE(by_id.count(row.parent_id)) << row.id;
    EXPECT_EQ(by_id[row.parent_id].status, "ok");
    EXPECT_LT(by_id[row.parent_id].generation, row.generation);
    EXPECT_NE(row.diff_from_parent.find("cuco:knob"), std::string::npos);
    EXPECT_EQ(row.proposer, "builtin");
    EXPECT_NE(row.features_json.find("\"a\""), std::string::npos);
    if (row.status == "ok") {
      EXPECT_GT(row.speedup, 0);
      EXPECT_NE(row.feedback.find("over seed"), std::string::npos) << row.feedback;
    } else {
      EXPECT_EQ(row.status, "wrong_result");
      EXPECT_NE(row.feedback.find("wrong_result: verify: rel L2 0.7"), std::string::npos) << row.feedback;
    }
    for (int64_t p : row.extra_parent_ids) EXPECT_TRUE(by_id.count(p));
  }
  auto summary = (*store)->GetMeta(kMetaSummary);
  ASSERT_TRUE(summary.ok() && summary->has_value());
  EXPECT_NE((*summary)->find("Per knob value"), std::string::npos);
}

TEST(Evolution, SameSeedSameCandidatesWhateverTheParallelism) {
  Fixture f("det");
  ASSERT_TRUE(RunSearch(f, f.Run("one"), Config(16), 1).ok());
  ASSERT_TRUE(RunSearch(f, f.Run("three"), Config(16), 3).ok());
  auto a = CandidateStore::Open((f.Run("one") / "cuco.db").string());
  auto b = CandidateStore::Open((f.Run("three") / "cuco.db").string());
  ASSERT_TRUE(a.ok() && b.ok());
  auto ta = Trace(**a);
  EXPECT_EQ(ta.size(), 16u);
  EXPECT_EQ(ta, Trace(**b));
  // Another seed gives another run.
  RunConfig other = Config(16);
  other.seed = 12;
  ASSERT_TRUE(RunSearch(f, f.Run("other"), other, 1).ok());
  auto c = CandidateStore::Open((f.Run("other") / "cuco.db").string());
  EXPECT_NE(ta, Trace(**c));
}

// overlap_generations: the next generation is proposed while the last evaluation of this one still
// runs, and nothing is lost, repeated or left pending.
TEST(Evolution, OverlappedGenerationsStartBeforeTheLastEvaluationEnds) {
  Fixture f("overlap");
  auto r = RunSearch(f, f.Run("r"), Config(14), 3, [](const std::string& code, const std::string&, const fs::path&, double) {
    // Every fourth proposal is slow, so a generation's last evaluation outlasts the others.
    static std::atomic<int> calls{0};
    std::this_thread::sleep_for(std::chrono::milliseconds(++calls % 4 == 0 ? 400 : 20));
    return FakeEval(code);
  }, true, /*carry_over=*/1);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->candidates, 14);
  auto store = CandidateStore::Open((f.Run("r") / "cuco.db").string());
  ASSERT_TRUE(store.ok());
  ListQuery q;
  auto rows = (*store)->List(q);
  ASSERT_TRUE(rows.ok());
  std::map<int, int64_t> last_finish;  // per generation
  std::set<std::string> hashes;
  for (const auto& row : *rows) {
    EXPECT_NE(row.status, "pending") << row.id;
    EXPECT_TRUE(hashes.insert(row.code_hash).second) << "evaluated twice: " << row.id;
    last_finish[row.generation] = std::max(last_finish[row.generation], row.finished_ms);
  }
  bool overlapped = false;
  for (const auto& row : *rows)
    if (row.generation >= 2 && row.created_ms < last_finish[row.generation - 1]) overlapped = true;
  EXPECT_TRUE(overlapped) << "no generation was proposed before the previous one finished";
}

TEST(Evolution, StopsWhenTheKnobSpaceIsExhausted) {
  Fixture f("exhaust");
  auto r = RunSearch(f, f.Run("r"), Config(100), 2);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->candidates, 24);  // every configuration once
  EXPECT_NE(r->stop_reason.find("knob space exhausted"), std::string::npos) << r->stop_reason;
  EXPECT_DOUBLE_EQ(r->best_ms, 10.0 - 4 - 2 - 0.5);
}

TEST(Evolution, IslandRestrictionsHold) {
  Fixture f("islands");
  RunConfig cfg = Config(12, 3);
  cfg.island_specs[1].knobs["b"] = {"z"};
  cfg.migration_interval = 0;
  ASSERT_TRUE(RunSearch(f, f.Run("r"), cfg, 1).ok());
  auto store = CandidateStore::Open((f.Run("r") / "cuco.db").string());
  ListQuery q;
  q.island = 1;
  q.min_generation = 1;
  auto rows = (*store)->List(q);
  ASSERT_TRUE(rows.ok());
  EXPECT_FALSE(rows->empty());
  for (const auto& r : *rows) EXPECT_NE(r.features_json.find("\"b\":\"z\""), std::string::npos) << r.features_json;
}

TEST(Evolution, BudgetThenResumeEqualsOneLongRun) {
  Fixture f("budget");
  // The phase must not depend on the budget for the two to match: exploit from generation 3.
  auto config = [](int max_candidates) {
    RunConfig c = Config(max_candidates);
    c.exploit_from = 3;
    c.exploit_from_is_generation = true;
    return c;
  };
  ASSERT_TRUE(RunSearch(f, f.Run("long"), config(18), 2).ok());
  auto first = RunSearch(f, f.Run("split"), config(7), 2);
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(first->candidates, 7);
  auto second = RunSearch(f, f.Run("split"), config(18), 1);
  ASSERT_TRUE(second.ok()) << second.status().message();
  EXPECT_TRUE(second->resumed);
  auto a = CandidateStore::Open((f.Run("long") / "cuco.db").string());
  auto b = CandidateStore::Open((f.Run("split") / "cuco.db").string());
  EXPECT_EQ(Trace(**a), Trace(**b));
}

TEST(Evolution, KilledMidEvaluationResumesWithNothingLostOrRepeated) {
  Fixture f("kill");
  ASSERT_TRUE(RunSearch(f, f.Run("whole"), Config(15), 2).ok());
  // A child process runs the search and dies (SIGKILL) inside its 9th evaluation.
  const fs::path run = f.Run("killed");
  fs::create_directories(run);
  const fs::path count_file = run / "evaluations";
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    std::atomic<int> n{0};
    auto eval = [&](const std::string& code, const std::string&, const fs::path&, double) {
      if (++n == 9) {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        kill(getpid(), SIGKILL);
      }
      return FakeEval(code);
    };
    auto r = RunSearch(f, run, Config(15), 2, eval);
    _exit(r.ok() ? 0 : 1);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
  {
    auto store = CandidateStore::Open((run / "cuco.db").string());
    ASSERT_TRUE(store.ok());
    auto pending = (*store)->Count("pending");
    ASSERT_TRUE(pending.ok());
    EXPECT_GE(*pending, 1);  // the one being evaluated when it died
  }
  std::atomic<int> evaluated{0};
  auto counting = [&](const std::string& code, const std::string&, const fs::path&, double) {
    ++evaluated;
    return FakeEval(code);
  };
  auto r = RunSearch(f, run, Config(15), 2, counting);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_TRUE(r->resumed);
  EXPECT_GE(r->reevaluated, 1);
  EXPECT_EQ(r->candidates, 15);
  auto a = CandidateStore::Open((f.Run("whole") / "cuco.db").string());
  auto b = CandidateStore::Open((run / "cuco.db").string());
  EXPECT_EQ(Trace(**a), Trace(**b));
  // Only what was unfinished was evaluated again: 15 in all, at most 8 finished before the kill.
  EXPECT_LE(evaluated.load(), 15 - 8 + 1);
}

// Interrupts never judge (issue 28): an evaluation an interrupt cut short comes back not judged
// (EvalRecord::interrupted); it is stored pending with why, and a resumed search evaluates it again.
TEST(Evolution, InterruptedEvaluationsStayPendingAndAreEvaluatedAgain) {
  Fixture f("interrupted");
  ASSERT_TRUE(RunSearch(f, f.Run("whole"), Config(10), 1).ok());
  const fs::path run = f.Run("split");
  std::atomic<bool> stop{false};
  std::atomic<int> n{0};
  auto interrupted_fifth = [&](const std::string& code, const std::string&, const fs::path&, double) {
    if (++n == 5) {
      stop = true;  // what StopSignals does on Ctrl-C
      EvalRecord r;
      r.status = EvalStatus::kPending;
      r.interrupted = true;
      r.reason = "the object check could not run (readelf: signal 2 (SIGINT)): not judged (evaluated again on resume)";
      return r;
    }
    return FakeEval(code);
  };
  auto first = RunSearch(f, run, Config(10), 1, interrupted_fifth, true, 0, [&](SearchOptions* o) { o->interrupt = &stop; });
  ASSERT_TRUE(first.ok()) << first.status().message();
  EXPECT_EQ(first->interrupted, 1);
  {
    auto store = CandidateStore::Open((run / "cuco.db").string());
    ASSERT_TRUE(store.ok());
    ListQuery q;
    q.status = "pending";
    auto pending = (*store)->List(q);
    ASSERT_TRUE(pending.ok());
    ASSERT_EQ(pending->size(), 1u);
    EXPECT_NE((*pending)[0].metrics_json.find("readelf: signal 2"), std::string::npos);
    EXPECT_EQ(*(*store)->Count("rejected"), 0);
  }
  auto second = RunSearch(f, run, Config(10), 1);
  ASSERT_TRUE(second.ok()) << second.status().message();
  EXPECT_GE(second->reevaluated, 1);
  auto a = CandidateStore::Open((f.Run("whole") / "cuco.db").string());
  auto b = CandidateStore::Open((run / "cuco.db").string());
  EXPECT_EQ(Trace(**a), Trace(**b));
}

// A run is bound to what it measures (issue 28): a resumed session whose workload.toml (a loosened
// tolerance) or config changed, or whose config.toml was emptied, is refused; with accept_changes
// it goes on as lineage 2, recorded in the store and on every candidate judged from then on.
TEST(Evolution, ResumeIsBoundToTheWorkloadAndTheConfig) {
  Fixture f("bound");
  const std::string head = "name = \"toy\"\nlanguage = \"cpu\"\nseed = \"seed.cc\"\n[tolerance]\n";
  WriteFileAtomic(f.wl.dir / "workload.toml", head + "rel_l2 = 1e-4\n");
  f.wl.toml_path = f.wl.dir / "workload.toml";
  const fs::path run = f.Run("r");
  ASSERT_TRUE(RunSearch(f, run, Config(4), 1).ok());

  WriteFileAtomic(f.wl.dir / "workload.toml", head + "rel_l2 = 0.5\n");
  auto refused = RunSearch(f, run, Config(8), 1);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), Status::Code::kInvalidArgument);
  EXPECT_NE(refused.status().message().find("workload.toml tolerance.rel_l2: 0.0001 -> 0.5"), std::string::npos)
      << refused.status().message();

  const std::string empty_text(1, '\n'), config_path = "r/config.toml";
  auto emptied = RunSearch(f, run, Config(8), 1, nullptr, true, 0, [&](SearchOptions* o) {
    o->config_text = empty_text;
    o->config_path = config_path;
  });
  ASSERT_FALSE(emptied.ok());
  EXPECT_NE(emptied.status().message().find("r/config.toml: empty"), std::string::npos) << emptied.status().message();

  auto accepted = RunSearch(f, run, Config(8), 1, nullptr, true, 0, [](SearchOptions* o) { o->accept_changes = true; });
  ASSERT_TRUE(accepted.ok()) << accepted.status().message();
  EXPECT_EQ(accepted->lineage, 2);
  ASSERT_EQ(accepted->lineage_changes.size(), 1u);
  EXPECT_EQ(accepted->lineage_changes[0], "workload.toml tolerance.rel_l2: 0.0001 -> 0.5");
  auto store = CandidateStore::Open((run / "cuco.db").string());
  ASSERT_TRUE(store.ok());
  auto rows = (*store)->List(ListQuery{});
  ASSERT_TRUE(rows.ok());
  ASSERT_EQ(rows->size(), 8u);
  EXPECT_EQ((*rows)[3].metrics_json.find("\"lineage\""), std::string::npos);
  EXPECT_NE((*rows)[4].metrics_json.find("\"lineage\":2"), std::string::npos) << (*rows)[4].metrics_json;
  auto lineages = (*store)->GetMeta("search.lineages");
  ASSERT_TRUE(lineages.ok() && lineages->has_value());
  EXPECT_NE((*lineages)->find("\"from_id\":5"), std::string::npos) << **lineages;
  // Resumed again, unchanged since: no new lineage.
  auto again = RunSearch(f, run, Config(9), 1);
  ASSERT_TRUE(again.ok()) << again.status().message();
  EXPECT_EQ(again->lineage, 2);
  EXPECT_TRUE(again->lineage_changes.empty());
}

TEST(Evolution, NoTimingsStopsAfterGenerationZero) {
  Fixture f("nogpu");
  auto skipped = [](const std::string&, const std::string&, const fs::path&, double) {
    EvalRecord r;
    r.status = EvalStatus::kSkipped;
    r.reason = "no GPU found on this machine; compiled only (L1)";
    return r;
  };
  auto r = RunSearch(f, f.Run("r"), Config(10), 1, skipped, /*timings=*/false);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->compiled_only);
  EXPECT_EQ(r->candidates, 1);
  EXPECT_NE(r->stop_reason.find("no GPU found"), std::string::npos);
}

// Without timings the search stops after generation 0 and says so: no progress line may promise
// an ETA for a budget it will never spend (a wall limit gives one from the clock alone).
TEST(Evolution, NoTimingsShowNoEta) {
  Fixture f("nogpu_eta");
  fs::create_directories(f.Run("r"));
  auto store = CandidateStore::Open((f.Run("r") / "cuco.db").string());
  ASSERT_TRUE(store.ok());
  BuiltinProposer proposer;
  SearchOptions o;
  o.run_dir = f.Run("r");
  o.code_extension = ".cc";
  o.timings_available = false;
  std::vector<double> etas;
  o.on_progress = [&](const SearchProgress& p) { etas.push_back(p.eta_s); };
  RunConfig cfg = Config(10);
  cfg.max_wall_s = 3600;
  Evolution evo(f.wl, cfg, store->get(), &proposer,
                [](const std::string&, const std::string&, const fs::path&, double) {
                  EvalRecord r;
                  r.status = EvalStatus::kSkipped;
                  r.reason = "no GPU found on this machine; compiled only (L1)";
                  return r;
                },
                o);
  auto r = evo.Run();
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_FALSE(etas.empty());
  for (double eta : etas) EXPECT_LT(eta, 0);
}

TEST(Evolution, FailedGenerationZeroStops) {
  Fixture f("g0fail");
  auto broken = [](const std::string&, const std::string&, const fs::path&, double) {
    EvalRecord r;
    r.status = EvalStatus::kCompileError;
    r.reason = "seed.cc:3: error: nope";
    return r;
  };
  auto r = RunSearch(f, f.Run("r"), Config(10), 1, broken);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->generation0_failed);
  EXPECT_EQ(r->candidates, 1);
}

// A proposer that edits code (kind "diff"): near-copies first, then a real change.
class EchoProposer : public Proposer {
 public:
  Result<Proposal> Propose(const ProposalContext& ctx) override {
    Proposal p;
    p.mutation_kind = "diff";
    ++calls_;
    std::string code = ctx.parent.code;
    const size_t at = code.find("int body()");
    if (calls_ % 3 == 1) {
      code.insert(at, "// a comment only\n");  // identical tokens: too similar
    } else if (calls_ % 3 == 2) {
      p.failure = "the diff did not apply";
    } else {
      code.insert(at, "static int helper" + std::to_string(calls_) + "(int v) { return v * " + std::to_string(calls_) +
                          " + 3; }\nstatic float other" + std::to_string(calls_) + " = 1.5f;\n");
    }
    p.code = code;
    p.dollars = 0.25;
    return p;
  }
  std::string Name() const override { return "echo"; }

 private:
  int calls_ = 0;
};

TEST(Evolution, NoveltyAndProposalFailuresAreStoredNotEvaluated) {
  Fixture f("novelty");
  const fs::path run = f.Run("r");
  fs::create_directories(run);
  auto store = CandidateStore::Open((run / "cuco.db").string());
  ASSERT_TRUE(store.ok());
  EchoProposer proposer;
  std::atomic<int> evaluated{0};
  SearchOptions o;
  o.run_dir = run;
  RunConfig cfg = Config(5, 1);
  cfg.novelty_threshold = 0.9;
  cfg.max_dollars = 100;
  Evolution evo(f.wl, cfg, store->get(), &proposer,
                [&](const std::string& code, const std::string& label, const fs::path& dir, double) {
                  ++evaluated;
                  EXPECT_TRUE(fs::exists(label)) << label;
                  EXPECT_EQ(fs::path(label).parent_path(), dir);
                  return FakeEval(code);
                },
                o);
  auto r = evo.Run();
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_GT(r->not_evaluated, 0);
  EXPECT_GT(r->by_status["rejected"], 0);
  EXPECT_EQ(evaluated.load(), r->candidates - r->by_status["rejected"]);
  EXPECT_GT(r->dollars, 0);
  ListQuery q;
  q.status = "skipped";
  auto skipped = (*store)->List(q);
  ASSERT_TRUE(skipped.ok());
  ASSERT_FALSE(skipped->empty());
  EXPECT_NE((*skipped)[0].feedback.find("not evaluated: 1.000 similar to #"), std::string::npos) << (*skipped)[0].feedback;
  q.status = "rejected";
  auto rejected = (*store)->List(q);
  ASSERT_FALSE(rejected->empty());
  EXPECT_NE((*rejected)[0].feedback.find("proposal failed: the diff did not apply"), std::string::npos);
}

// ---- determinism guard: same seed, same candidates; a fingerprint that catches any change ------
//
// What makes a search repeatable (docs/search.md, evolution.h): every random choice comes from
// DeriveSeed(seed, island, generation, slot, attempt) and every proposal sees only the state at
// the start of its generation, so the same config, seed and *evaluation outcomes* give the same
// candidates whatever the number of workers. What breaks it, and is therefore kept out here:
// measured times (the real evaluator's timings steer parent selection, so `cuco evolve` on
// tests/workloads/cpu_matmul is repeatable only in its final answer, not its sequence: FakeEval's
// times are a function of the knobs instead), carry_over > 0 (the next generation may be proposed
// before this one's outcomes are in), wall-clock or dollar budgets, and embedding novelty (a
// network model). The runs use one worker, the builtin proposer (and EchoProposer for the diff,
// novelty and rejected paths), no GPU.
//
// The fingerprint is a sha256 of everything the search decided: per stored candidate its id, code
// hash, parents, island, generation, mutation kind and status; per proposer call the context it
// was given (parent, inspirations, failures, requested kind, rng seed, meta-summary); and the
// migrations. A change to it means the search behaves differently: intended changes update the
// expected value below, refactors must leave it as it is.

// Wraps a proposer and records what each call was given.
class RecordingProposer : public Proposer {
 public:
  explicit RecordingProposer(Proposer* inner) : inner_(inner) {}
  Result<Proposal> Propose(const ProposalContext& ctx) override {
    std::string line = "propose g" + std::to_string(ctx.generation) + " i" + std::to_string(ctx.island) + " " + ctx.phase +
                       " " + ctx.mutation_kind + " p" + std::to_string(ctx.parent.id) + " insp";
    for (const auto& v : ctx.inspirations) line.append(" ").append(std::to_string(v.id));
    line += " fail";
    for (const auto& v : ctx.failures) line.append(" ").append(std::to_string(v.id));
    line += " rng" + std::to_string(ctx.rng_seed) + " t" + std::to_string(ctx.temperature) + " summary " +
            Sha256Hex(ctx.meta_summary).substr(0, 16);
    calls.push_back(line);
    return inner_->Propose(ctx);
  }
  void Feedback(const Proposal& p, bool improved, bool ok) override { inner_->Feedback(p, improved, ok); }
  std::string Name() const override { return inner_->Name(); }
  std::vector<std::string> calls;

 private:
  Proposer* inner_;
};

// One search, single worker; returns every decision it made, in order (no times).
std::vector<std::string> Decisions(Fixture& f, const fs::path& run, const RunConfig& cfg, Proposer* inner) {
  fs::create_directories(run);
  auto store = CandidateStore::Open((run / "cuco.db").string());
  EXPECT_TRUE(store.ok());
  RecordingProposer proposer(inner);
  SearchOptions o;
  o.run_dir = run;
  o.code_extension = ".cc";
  o.evaluations = 1;
  Evolution evo(f.wl, cfg, store->get(), &proposer,
                [](const std::string& code, const std::string&, const fs::path&, double) { return FakeEval(code); }, o);
  auto r = evo.Run();
  EXPECT_TRUE(r.ok()) << r.status().message();
  std::vector<std::string> out = proposer.calls;
  ListQuery q;
  auto rows = (*store)->List(q);
  EXPECT_TRUE(rows.ok());
  for (const auto& c : *rows) {
    std::string line = "cand " + std::to_string(c.id) + " " + c.code_hash + " p" + std::to_string(c.parent_id) + " x";
    for (int64_t p : c.extra_parent_ids) line.append(" ").append(std::to_string(p));
    line += " i" + std::to_string(c.island) + " g" + std::to_string(c.generation) + " " + c.mutation_kind + " " + c.status;
    out.push_back(line);
  }
  auto state = (*store)->GetMeta(kMetaState);
  EXPECT_TRUE(state.ok() && state->has_value());
  auto s = nlohmann::json::parse(**state);
  out.push_back("migrations " + s["migrations"].dump() + " immigrants " + s["immigrants"].dump() + " stop " +
                s["stop_reason"].dump() + " cursor " + s["generation"].dump() + "/" + s["next_slot"].dump());
  if (r.ok()) out.push_back("result " + r->stop_reason + " best " + std::to_string(r->best_id));
  return out;
}

std::string Fingerprint(const std::vector<std::string>& decisions) {
  std::string all;
  for (const auto& d : decisions) all += d + "\n";
  return Sha256Hex(all);
}

// Fixed configurations: 3 islands migrating every 2 generations over the 24-configuration toy
// space (knobs, crossover, a failing corner), and a diff proposer that meets the novelty filter
// and proposal failures.
TEST(EvolutionDeterminism, SameSeedSameDecisionsAndTheFingerprintHolds) {
  Fixture f("fingerprint");
  RunConfig islands = Config(20, 3);
  RunConfig diffs = Config(6, 1);
  diffs.novelty_threshold = 0.9;
  std::vector<std::string> runs[2];
  for (int i = 0; i < 2; ++i) {
    BuiltinProposer builtin;
    EchoProposer echo;
    runs[i] = Decisions(f, f.Run("builtin" + std::to_string(i)), islands, &builtin);
    auto more = Decisions(f, f.Run("echo" + std::to_string(i)), diffs, &echo);
    runs[i].insert(runs[i].end(), more.begin(), more.end());
  }
  ASSERT_EQ(runs[0], runs[1]);
  const std::string fp = Fingerprint(runs[0]);
  std::printf("evolution fingerprint: %s (%zu decisions)\n", fp.c_str(), runs[0].size());
  if (std::getenv("CUCO_PRINT_DECISIONS"))
    for (const auto& d : runs[0]) std::printf("  %s\n", d.c_str());
  // Update only for an intended change of the search's behaviour (say so in the commit).
  EXPECT_EQ(fp, "3e36b9826085d7c7c1191e87ccdba59ff947337dabd2d597698391bdff43d30a");
}

TEST(Progress, OneLineWithTheEssentials) {
  SearchProgress p;
  p.generation = 4;
  p.phase = "exploit";
  p.candidates = 17;
  p.in_flight = 2;
  p.best_id = 12;
  p.best_ms = 0.974;
  p.best_speedup = 1.68;
  p.session_done = 13;
  p.session_minutes = 2.5;
  p.failures = {{"compile_error", 1}, {"wrong_result", 2}};
  p.dollars = 1.5;
  EXPECT_EQ(FormatProgress(p),
            "gen 4 exploit | 17 candidates (2 in flight) | best #12 0.974 ms, 1.68x over seed | 5.2/min | "
            "failures: compile_error 1, wrong_result 2 | $1.50");
  // Elapsed time and the ETA of the first budget limit to bind.
  p.wall_s = 252;
  p.eta_s = 185;
  p.eta_limit = "max_candidates";
  EXPECT_NE(FormatProgress(p).find("| 5.2/min | elapsed 4m12s, ETA 3m05s (max_candidates) |"), std::string::npos)
      << FormatProgress(p);
  // A plain (non-terminal) stream's key leaves out what changes every second.
  SearchProgress later = p;
  later.wall_s = 300;
  later.eta_s = 120;
  later.session_minutes = 3;
  EXPECT_EQ(ProgressKey(p), ProgressKey(later));
  EXPECT_EQ(ProgressKey(p).find("elapsed"), std::string::npos);
}

TEST(Progress, FitsTheWidthDroppingWholeFieldsFromTheEnd) {
  const std::string line = "gen 4 exploit | 17 candidates (2 in flight) | best #12 0.974 ms, 1.68x over seed | $1.50";
  EXPECT_EQ(FitToWidth(line, 200), line);
  EXPECT_EQ(FitToWidth(line, 81), "gen 4 exploit | 17 candidates (2 in flight) | best #12 0.974 ms, 1.68x over seed");
  EXPECT_EQ(FitToWidth(line, 80), "gen 4 exploit | 17 candidates (2 in flight)");  // 80 columns hold 79
  EXPECT_EQ(FitToWidth(line, 60), "gen 4 exploit | 17 candidates (2 in flight)");
  EXPECT_EQ(FitToWidth(line, 10), "gen 4 ...");
  for (int w : {5, 20, 47, 80, 120}) EXPECT_LT(FitToWidth(line, w).size(), static_cast<size_t>(std::max(w, 5)));
}

// The printer on a real terminal (a pseudo-terminal of 80 columns): the redrawn line never wraps.
TEST(Progress, ATerminalLineNeverWraps) {
  const int master = ::posix_openpt(O_RDWR | O_NOCTTY);
  ASSERT_GE(master, 0);
  ASSERT_EQ(::grantpt(master), 0);
  ASSERT_EQ(::unlockpt(master), 0);
  const int slave = ::open(::ptsname(master), O_RDWR | O_NOCTTY);
  ASSERT_GE(slave, 0);
  struct winsize ws {};
  ws.ws_col = 80;
  ws.ws_row = 24;
  ASSERT_EQ(::ioctl(slave, TIOCSWINSZ, &ws), 0);
  std::FILE* out = ::fdopen(slave, "w");
  ASSERT_NE(out, nullptr);
  SearchProgress p;
  p.generation = 12;
  p.phase = "exploit";
  p.candidates = 170;
  p.in_flight = 4;
  p.best_id = 121;
  p.best_ms = 0.974;
  p.best_speedup = 1.68;
  p.session_done = 130;
  p.session_minutes = 25;
  p.wall_s = 1500;
  p.eta_s = 900;
  p.eta_limit = "max_candidates";
  p.failures = {{"compile_error", 11}, {"wrong_result", 23}, {"timeout", 2}};
  ASSERT_GT(FormatProgress(p).size(), 120u);
  {
    ProgressPrinter printer(out);
    printer.Update(p);
  }
  std::fclose(out);
  std::string shown;
  char buf[4096];
  for (ssize_t n; (n = ::read(master, buf, sizeof buf)) > 0;) shown.append(buf, static_cast<size_t>(n));  // EIO: all read
  ::close(master);
  const size_t start = shown.rfind("\x1b[K");
  ASSERT_NE(start, std::string::npos) << shown;
  const std::string line = shown.substr(start + 3);
  EXPECT_LT(line.size(), 80u) << line;
  EXPECT_EQ(line.rfind("gen 12 exploit | 170 candidates (4 in flight)", 0), 0u) << line;
}

}  // namespace
}  // namespace cuco
