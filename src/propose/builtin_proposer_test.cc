#include "propose/builtin_proposer.h"

#include <gtest/gtest.h>

#include <set>

#include "util/sha256.h"
#include "workload/knob_marks.h"

namespace cuco {
namespace {

const char* kCode = R"(// frozen
// EVOLVE-BLOCK-START
constexpr const char* kBackend = "lsa";  // cuco:knob backend
constexpr int kChunks = 1;  // cuco:knob chunks
constexpr bool kFused = false;  // cuco:knob fused
int body() { return kChunks; }
// EVOLVE-BLOCK-END
)";

WorkloadConfig Workload() {
  WorkloadConfig w;
  w.name = "t";
  w.knobs = {{"backend", {"lsa", "ce", "gin"}, "lsa", ""},
             {"chunks", {"1", "2", "4", "8"}, "1", ""},
             {"fused", {"false", "true"}, "false", ""}};
  return w;
}

CandidateView View(int64_t id, const std::string& code) {
  CandidateView v;
  v.id = id;
  v.code = code;
  v.status = "ok";
  auto marks = FindKnobMarks(code, "x");
  if (marks.ok()) v.knobs = KnobValues(*marks);
  return v;
}

struct Harness {
  WorkloadConfig wl = Workload();
  std::set<std::string> tried{Sha256Hex(kCode)};
  ProposalContext Context(uint64_t seed, const std::string& kind = "knobs", const std::string& phase = "explore") {
    ProposalContext c;
    c.workload = &wl;
    c.parent = View(1, kCode);
    c.mutation_kind = kind;
    c.phase = phase;
    c.rng_seed = seed;
    c.already_tried = [this](const std::string& code) { return tried.count(Sha256Hex(code)) > 0; };
    return c;
  }
};

std::map<std::string, std::string> Knobs(const std::string& code) {
  auto m = FindKnobMarks(code, "x");
  EXPECT_TRUE(m.ok());
  return m.ok() ? KnobValues(*m) : std::map<std::string, std::string>{};
}

int Changed(const std::string& a, const std::string& b) {
  auto ka = Knobs(a), kb = Knobs(b);
  int n = 0;
  for (const auto& [k, v] : ka) n += kb[k] != v;
  return n;
}

TEST(BuiltinProposer, SameContextSameProposal) {
  Harness h;
  BuiltinProposer p;
  auto a = p.Propose(h.Context(42));
  auto b = p.Propose(h.Context(42));
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->code, b->code);
  EXPECT_EQ(a->description, b->description);
  EXPECT_FALSE(a->code.empty());
  EXPECT_EQ(a->mutation_kind, "knobs");
  int changed = Changed(kCode, a->code);
  EXPECT_TRUE(changed == 1 || changed == 2) << a->description;
}

// From generation 0 the explore phase tries every move alone before any pair, whatever the
// temperature: 3 + 2 + 1 one-knob moves of kCode, then two-knob ones.
TEST(BuiltinProposer, FromGenerationZeroEachMoveAloneFirst) {
  Harness h;
  BuiltinProposer p;
  for (int i = 0; i < 8; ++i) {
    ProposalContext c = h.Context(500 + i);
    c.parent.mutation_kind = "seed";
    c.temperature = 2.0;  // two-knob moves first with probability 0.9 from any other parent
    auto r = p.Propose(c);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(Changed(kCode, r->code), i < 6 ? 1 : 2) << i << ": " << r->description;
    h.tried.insert(Sha256Hex(r->code));
  }
}

TEST(BuiltinProposer, SequenceIsDeterministic) {
  auto run = [] {
    Harness h;
    BuiltinProposer p;
    std::vector<std::string> seq;
    for (int i = 0; i < 10; ++i) {
      auto r = p.Propose(h.Context(1000 + i, i % 3 == 0 ? "crossover" : "knobs", i < 5 ? "explore" : "exploit"));
      EXPECT_TRUE(r.ok());
      seq.push_back(r->code);
      h.tried.insert(Sha256Hex(r->code));
    }
    return seq;
  };
  EXPECT_EQ(run(), run());
}

TEST(BuiltinProposer, NeverRepeatsAndSaysWhenExhausted) {
  Harness h;
  BuiltinProposer p;
  const int64_t space = KnobSpaceSize(h.wl.knobs, {});
  ASSERT_EQ(space, 24);
  std::set<std::string> seen{kCode};
  for (int i = 0; i < space - 1; ++i) {
    auto r = p.Propose(h.Context(7 + i));
    ASSERT_TRUE(r.ok());
    ASSERT_FALSE(r->exhausted) << "after " << i << ": " << r->description;
    ASSERT_TRUE(seen.insert(r->code).second) << "repeated: " << r->description;
    h.tried.insert(Sha256Hex(r->code));
  }
  auto last = p.Propose(h.Context(99));
  ASSERT_TRUE(last.ok());
  EXPECT_TRUE(last->exhausted);
  EXPECT_TRUE(last->code.empty());
  EXPECT_NE(last->description.find("all 24 configurations"), std::string::npos) << last->description;
}

TEST(BuiltinProposer, KeepsToTheIslandRestriction) {
  Harness h;
  BuiltinProposer p;
  const std::map<std::string, std::vector<std::string>> allowed{{"backend", {"ce"}}, {"chunks", {"2", "4"}}};
  EXPECT_EQ(KnobSpaceSize(h.wl.knobs, allowed), 4);
  for (int i = 0; i < 4; ++i) {
    auto c = h.Context(3 + i);
    c.allowed_knobs = allowed;
    auto r = p.Propose(c);
    ASSERT_TRUE(r.ok());
    ASSERT_FALSE(r->exhausted) << i;
    auto k = Knobs(r->code);
    EXPECT_EQ(k["backend"], "ce");
    EXPECT_TRUE(k["chunks"] == "2" || k["chunks"] == "4");
    h.tried.insert(Sha256Hex(r->code));
  }
  auto c = h.Context(11);
  c.allowed_knobs = allowed;
  auto r = p.Propose(c);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->exhausted);
  EXPECT_NE(r->description.find("allowed on this island"), std::string::npos);
}

TEST(BuiltinProposer, ExploitMovesToAdjacentValues) {
  Harness h;
  BuiltinProposer p;
  for (uint64_t s = 0; s < 20; ++s) {
    auto r = p.Propose(h.Context(s, "knobs", "exploit"));
    ASSERT_TRUE(r.ok());
    auto k = Knobs(r->code);
    // From lsa/1/false the adjacent moves are: backend ce, chunks 2, fused true.
    const int changed = Changed(kCode, r->code);
    EXPECT_EQ(changed, 1);
    EXPECT_TRUE(k["backend"] == "ce" || k["chunks"] == "2" || k["fused"] == "true") << r->description;
  }
}

TEST(BuiltinProposer, ExploitWorksAroundTheBest) {
  Harness h;
  BuiltinProposer p;
  auto best_code = ApplyKnobs(kCode, "x", {{"backend", "gin"}, {"chunks", "8"}}, h.wl.knobs);
  ASSERT_TRUE(best_code.ok());
  h.tried.insert(Sha256Hex(*best_code));
  for (uint64_t s = 0; s < 10; ++s) {
    auto c = h.Context(s, "knobs", "exploit");
    c.parent.time_ms = 5;
    CandidateView best = View(8, *best_code);
    best.time_ms = 2;
    c.inspirations.push_back(best);
    auto r = p.Propose(c);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(Changed(*best_code, r->code), 1) << r->description;
    EXPECT_EQ(r->extra_parent_ids, std::vector<int64_t>{8});
    EXPECT_NE(r->description.find("around the best, #8"), std::string::npos) << r->description;
  }
}

TEST(BuiltinProposer, CrossoverTakesKnobsFromPartners) {
  Harness h;
  BuiltinProposer p;
  auto partner_code = ApplyKnobs(kCode, "x", {{"backend", "gin"}, {"chunks", "8"}, {"fused", "true"}}, h.wl.knobs);
  ASSERT_TRUE(partner_code.ok());
  h.tried.insert(Sha256Hex(*partner_code));
  bool saw_crossover = false;
  for (uint64_t s = 0; s < 10; ++s) {
    auto c = h.Context(s, "crossover");
    c.inspirations.push_back(View(5, *partner_code));
    auto r = p.Propose(c);
    ASSERT_TRUE(r.ok());
    if (r->mutation_kind != "crossover") continue;
    saw_crossover = true;
    EXPECT_EQ(r->extra_parent_ids, std::vector<int64_t>{5});
    for (const auto& [k, v] : Knobs(r->code)) {
      EXPECT_TRUE(v == Knobs(kCode)[k] || v == Knobs(*partner_code)[k]) << k << "=" << v;
    }
  }
  EXPECT_TRUE(saw_crossover);
}

KnobMove Move(std::map<std::string, std::string> set, double gain, int64_t child) {
  KnobMove m;
  m.set = std::move(set);
  m.gain = gain;
  m.observations = 1;
  m.children = {child};
  return m;
}

// A "diff" request with measured moves: MoE at W=2 found strategy interleaved and backend ce
// each faster alone, never together; the composition proposes both at once, on the fastest
// candidate in view, then each alone; the moves' children are recorded as extra parents.
TEST(BuiltinProposer, ComposesTheMovesThatHelped) {
  Harness h;
  BuiltinProposer p;
  auto best_code = ApplyKnobs(kCode, "x", {{"fused", "true"}}, h.wl.knobs);
  ASSERT_TRUE(best_code.ok());
  h.tried.insert(Sha256Hex(*best_code));
  auto context = [&](uint64_t seed) {
    auto c = h.Context(seed, "diff");
    c.parent.time_ms = 5;
    CandidateView best = View(8, *best_code);
    best.time_ms = 4;
    c.inspirations.push_back(best);
    c.improving_moves = {Move({{"backend", "ce"}}, 1.09, 3), Move({{"chunks", "4"}}, 1.05, 2),
                         Move({{"backend", "gin"}, {"chunks", "8"}}, 1.01, 6)};
    return c;
  };
  auto all = p.Propose(context(1));
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all->mutation_kind, "compose") << all->description;
  // backend ce (the largest gain) and chunks 4 together on #8; gin/8 clashes with ce: left out.
  EXPECT_EQ(Knobs(all->code), (std::map<std::string, std::string>{{"backend", "ce"}, {"chunks", "4"}, {"fused", "true"}}));
  EXPECT_EQ(all->extra_parent_ids, (std::vector<int64_t>{2, 3, 8}));
  EXPECT_NE(all->description.find("compose on #8: #3's move (1.09x) + #2's move (1.05x)"), std::string::npos)
      << all->description;
  h.tried.insert(Sha256Hex(all->code));
  // Then each move alone on #8, largest gain first.
  auto one = p.Propose(context(2));
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(one->mutation_kind, "compose");
  EXPECT_EQ(Knobs(one->code), (std::map<std::string, std::string>{{"backend", "ce"}, {"chunks", "1"}, {"fused", "true"}}));
  h.tried.insert(Sha256Hex(one->code));
  for (int i = 0; i < 2; ++i) {
    auto next = p.Propose(context(3 + i));
    ASSERT_TRUE(next.ok());
    EXPECT_EQ(next->mutation_kind, "compose") << i;
    h.tried.insert(Sha256Hex(next->code));
  }
  // Every composition tried: a "diff" request becomes a mutation; "knobs" requests never compose.
  auto rest = p.Propose(context(9));
  ASSERT_TRUE(rest.ok());
  EXPECT_EQ(rest->mutation_kind, "knobs") << rest->description;
  auto c = context(10);
  c.mutation_kind = "knobs";
  auto knobs = p.Propose(c);
  ASSERT_TRUE(knobs.ok());
  EXPECT_EQ(knobs->mutation_kind, "knobs");
}

// A move the island's restriction does not allow, or one the base already has, is not composed.
TEST(BuiltinProposer, ComposesOnlyAllowedMovesTheBaseLacks) {
  Harness h;
  BuiltinProposer p;
  auto c = h.Context(1, "diff");
  c.allowed_knobs = {{"backend", {"lsa", "gin"}}};
  c.improving_moves = {Move({{"backend", "ce"}}, 1.2, 3), Move({{"chunks", "1"}}, 1.1, 4)};
  auto r = p.Propose(c);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->mutation_kind, "knobs") << r->description;
  EXPECT_NE(Knobs(r->code)["backend"], "ce");
}

// The seed often has no knob marks and may be the fastest candidate of generation 0 (so the
// likeliest parent): the proposer then varies the fastest marked candidate it was shown.
TEST(BuiltinProposer, UnmarkedParentVariesTheFastestMarkedInspiration) {
  Harness h;
  BuiltinProposer p;
  auto slow = ApplyKnobs(kCode, "x", {{"backend", "gin"}}, h.wl.knobs);
  ASSERT_TRUE(slow.ok());
  for (uint64_t s = 0; s < 6; ++s) {
    auto c = h.Context(s, s % 2 ? "crossover" : "knobs", s < 3 ? "explore" : "exploit");
    c.parent = View(2, "// the seed: no knob marks\nint body() { return 1; }\n");
    c.parent.time_ms = 4;
    CandidateView marked = View(1, kCode), other = View(3, *slow);
    marked.time_ms = 5;
    other.time_ms = 6;
    c.inspirations = {other, marked};
    auto r = p.Propose(c);
    ASSERT_TRUE(r.ok());
    ASSERT_FALSE(r->exhausted) << r->description;
    EXPECT_EQ(r->parent_id, 1);
    EXPECT_GE(Changed(kCode, r->code), 1) << r->description;
    EXPECT_NE(r->description.find("parent #2 has no knob marks; from #1"), std::string::npos) << r->description;
  }
}

TEST(BuiltinProposer, NoKnobsMeansExhausted) {
  Harness h;
  h.wl.knobs.clear();
  BuiltinProposer p;
  auto r = p.Propose(h.Context(1));
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->exhausted);
}

}  // namespace
}  // namespace cuco
