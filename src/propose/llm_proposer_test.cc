#include "propose/llm_proposer.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <random>

#include "util/files.h"
#include "workload/evolve_blocks.h"
#include "util/testutil.h"

namespace cuco {
using testutil::Has;
namespace {
namespace fs = std::filesystem;

// A client that returns canned answers (the last one repeats) and records the requests.
class FakeClient : public LlmClient {
 public:
  explicit FakeClient(std::vector<Result<ChatResponse>> script) : script_(std::move(script)) {}
  Result<ChatResponse> Complete(const ChatRequest& request) override {
    std::lock_guard<std::mutex> lock(mu_);
    requests.push_back(request);
    return script_[std::min(next_++, script_.size() - 1)];
  }
  std::string Describe() const override { return "fake"; }
  std::vector<ChatRequest> requests;

 private:
  std::mutex mu_;
  std::vector<Result<ChatResponse>> script_;
  size_t next_ = 0;
};

ChatResponse Answer(const std::string& text, const std::string& finish = "stop") {
  ChatResponse r;
  r.text = text;
  r.model = "fake-model-2025";
  r.finish_reason = finish;
  r.usage.input_tokens = 5000;
  r.usage.output_tokens = 700;
  r.usage.dollars = 0.0125;
  r.usage.priced = true;
  return r;
}

const std::string kSeed =
    "#include <cuco/harness.h>\n"
    "// EVOLVE-BLOCK-START\n"
    "constexpr int kChunks = 4;  // cuco:knob chunks\n"
    "__global__ void Scale(float* x) { x[threadIdx.x] *= 2; }\n"
    "cuco::Status cuco_candidate_run(cuco::RankContext& ctx, void*, const cuco::IO& io) {\n"
    "  Scale<<<1, 256, 0, ctx.stream>>>(static_cast<float*>(io.out(\"X\").ptr));\n"
    "  return cuco::Status::Ok();\n"
    "}\n"
    "// EVOLVE-BLOCK-END\n"
    "int frozen_tail;\n";

const std::string kGoodDiff =
    "SUMMARY: use 4 warps per block and 16 chunks to overlap the gather\n\n"
    "Reasoning: more chunks start the transfer earlier.\n"
    "```cuda\n"
    "<<<<<<< SEARCH\n"
    "constexpr int kChunks = 4;  // cuco:knob chunks\n"
    "=======\n"
    "constexpr int kChunks = 16;  // cuco:knob chunks\n"
    ">>>>>>> REPLACE\n"
    "<<<<<<< SEARCH\n"
    "  Scale<<<1, 256, 0, ctx.stream>>>(static_cast<float*>(io.out(\"X\").ptr));\n"
    "=======\n"
    "  Scale<<<1, 128, 0, ctx.stream>>>(static_cast<float*>(io.out(\"X\").ptr));\n"
    ">>>>>>> REPLACE\n"
    "```\n";

struct Fixture {
  WorkloadConfig wl;
  ProposalContext ctx;
  Fixture() {
    wl.name = "scale";
    wl.language = "cuda";
    wl.seed_file = "seed.cu";
    wl.knobs = {{"chunks", {"4", "16"}, "4", ""}};
    ctx.workload = &wl;
    ctx.seed_code = kSeed;
    ctx.mutation_kind = "diff";
    ctx.temperature = 0.55;
    ctx.parent.id = 3;
    ctx.parent.code = kSeed;
    ctx.parent.status = "ok";
    ctx.parent.time_ms = 2.0;
    CandidateView a, b;
    a.id = 8;
    a.code = kSeed;
    a.status = "ok";
    a.time_ms = 1.5;
    b = a;
    b.id = 9;
    ctx.inspirations = {a, b};
  }
};

LlmProposerOptions TestOptions() {
  LlmProposerOptions o;
  o.prompt.contract = "CONTRACT";  // no file system needed
  o.max_tokens = 9000;
  return o;
}

std::pair<std::unique_ptr<LlmProposer>, std::shared_ptr<FakeClient>> OneArm(std::vector<Result<ChatResponse>> script,
                                                                            LlmProposerOptions o = TestOptions()) {
  auto client = std::make_shared<FakeClient>(std::move(script));
  std::vector<LlmArm> arms = {{"gpt-test", "gpt-test-model", client}};
  return {std::make_unique<LlmProposer>(std::move(arms), 7, std::move(o)), client};
}

TEST(LlmProposer, GoodDiff) {
  Fixture f;
  auto [proposer, client] = OneArm({Answer(kGoodDiff)});
  EXPECT_EQ(proposer->Name(), "llm:gpt-test");
  auto p = proposer->Propose(f.ctx);
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_EQ(p->failure, "");
  EXPECT_EQ(p->mutation_kind, "diff");
  EXPECT_EQ(p->description, "use 4 warps per block and 16 chunks to overlap the gather");
  EXPECT_TRUE(Has(p->code, "constexpr int kChunks = 16;  // cuco:knob chunks\n"));
  EXPECT_TRUE(Has(p->code, "Scale<<<1, 128, 0, ctx.stream>>>"));
  EXPECT_TRUE(CheckFrozenCode(kSeed, "seed.cu", p->code, "child.cu").ok());
  EXPECT_DOUBLE_EQ(p->dollars, 0.0125);
  EXPECT_EQ(p->input_tokens, 5000);
  EXPECT_EQ(p->output_tokens, 700);
  EXPECT_EQ(p->model, "gpt-test");
  EXPECT_TRUE(p->extra_parent_ids.empty());

  ASSERT_EQ(client->requests.size(), 1u);
  const ChatRequest& r = client->requests[0];
  EXPECT_EQ(r.model, "gpt-test-model");
  EXPECT_DOUBLE_EQ(r.temperature, 0.55);
  EXPECT_EQ(r.max_tokens, 9000);
  ASSERT_EQ(r.messages.size(), 2u);
  EXPECT_EQ(r.messages[0].role, "system");
  EXPECT_EQ(r.messages[1].role, "user");
  EXPECT_TRUE(Has(r.messages[0].content, "CONTRACT"));
  EXPECT_TRUE(Has(r.messages[1].content, "<<<<<<< SEARCH"));
  EXPECT_TRUE(Has(r.messages[1].content, kSeed));
}

TEST(LlmProposer, MalformedAnswersBecomeFailures) {
  const std::vector<std::pair<ChatResponse, std::string>> cases = {
      {Answer("SUMMARY: x\n<<<<<<< SEARCH\nconstexpr int kChunks = 5;\n=======\nconstexpr int kChunks = 6;\n>>>>>>> "
              "REPLACE\n"),
       "the SEARCH text is not in the parent"},
      {Answer("SUMMARY: add nvshmem\n<<<<<<< SEARCH\n#include <cuco/harness.h>\n=======\n#include "
              "<cuco/harness.h>\n#include <nvshmem.h>\n>>>>>>> REPLACE\n"),
       "edit outside the EVOLVE blocks"},
      {Answer(""), "the answer is empty"},
      {Answer("I cannot help with that."), "neither SEARCH/REPLACE diffs nor EVOLVE-BLOCK"},
      {Answer("```cuda\n// EVOLVE-BLOCK-START\nint x;\n", "length"), "cut off at the 9000-token limit"},
      {Answer("<<<<<<< SEARCH\nconstexpr int kChunks = 4;  // cuco:knob chunks\n=======\n", "max_tokens"),
       "was the answer cut off?"},
  };
  for (const auto& [answer, expect] : cases) {
    Fixture f;
    auto [proposer, client] = OneArm({answer});
    auto p = proposer->Propose(f.ctx);
    ASSERT_TRUE(p.ok()) << p.status().ToString();
    EXPECT_TRUE(Has(p->failure, expect)) << "answer: " << answer.text << "\nfailure: " << p->failure;
    EXPECT_EQ(p->code, "");
    EXPECT_FALSE(p->description.empty());
    EXPECT_DOUBLE_EQ(p->dollars, 0.0125);  // a failure still cost money
    EXPECT_EQ(p->model, "gpt-test");
  }
}

TEST(LlmProposer, RewriteAndCrossover) {
  const std::string rewrite =
      "SUMMARY: single kernel\n```cuda\n// EVOLVE-BLOCK-START\n"
      "cuco::Status cuco_candidate_run(cuco::RankContext& ctx, void*, const cuco::IO& io) {\n"
      "  return cuco::Status::Ok();\n}\n// EVOLVE-BLOCK-END\n```\n";
  {
    Fixture f;
    f.ctx.mutation_kind = "rewrite";
    auto [proposer, client] = OneArm({Answer(rewrite)});
    auto p = proposer->Propose(f.ctx);
    ASSERT_TRUE(p.ok());
    EXPECT_EQ(p->failure, "");
    EXPECT_EQ(p->mutation_kind, "rewrite");
    EXPECT_TRUE(Has(p->code, "int frozen_tail;\n"));
    EXPECT_TRUE(Has(client->requests[0].messages[1].content, "Rewrite the parent's EVOLVE blocks"));
  }
  {
    Fixture f;
    f.ctx.mutation_kind = "crossover";
    auto [proposer, client] = OneArm({Answer(rewrite)});
    auto p = proposer->Propose(f.ctx);
    ASSERT_TRUE(p.ok());
    EXPECT_EQ(p->failure, "");
    EXPECT_EQ(p->mutation_kind, "crossover");
    EXPECT_EQ(p->extra_parent_ids, (std::vector<int64_t>{8, 9}));
    EXPECT_TRUE(Has(client->requests[0].messages[1].content, "### Parent 2 = candidate #8"));
  }
  {
    // A model that answers a rewrite request with a diff: accepted, recorded as what it is.
    Fixture f;
    f.ctx.mutation_kind = "rewrite";
    auto [proposer, client] = OneArm({Answer(kGoodDiff)});
    auto p = proposer->Propose(f.ctx);
    ASSERT_TRUE(p.ok());
    EXPECT_EQ(p->mutation_kind, "diff");
  }
}

TEST(LlmProposer, CallErrorsAndFallback) {
  Fixture f;
  {
    auto [proposer, client] = OneArm({Status::Unavailable("connection refused (after 5 retries)")});
    auto p = proposer->Propose(f.ctx);
    ASSERT_FALSE(p.ok());
    EXPECT_TRUE(Has(p.status().message(), "gpt-test: connection refused")) << p.status().message();
  }
  // Two endpoints: whichever the bandit picks first fails, the other answers.
  auto bad = std::make_shared<FakeClient>(std::vector<Result<ChatResponse>>{Status::IOError("HTTP 500")});
  auto good = std::make_shared<FakeClient>(std::vector<Result<ChatResponse>>{Answer(kGoodDiff)});
  LlmProposer two({{"bad", "m1", bad}, {"good", "m2", good}}, 1, TestOptions());
  EXPECT_EQ(two.Name(), "llm:bad+good");
  for (int i = 0; i < 4; ++i) {
    auto p = two.Propose(f.ctx);
    ASSERT_TRUE(p.ok()) << p.status().ToString();
    EXPECT_EQ(p->model, "good");
    EXPECT_EQ(p->failure, "");
  }
  auto arms = two.BanditArms();
  ASSERT_EQ(arms.size(), 2u);
  EXPECT_EQ(arms[0].name, "bad");
  EXPECT_GE(arms[0].rewarded, 1);
  EXPECT_DOUBLE_EQ(arms[0].reward_sum, 0.0);
  EXPECT_EQ(good->requests.size(), 4u);
}

TEST(LlmProposer, FeedbackRewardsTheArmThatWrote) {
  Fixture f;
  auto a = std::make_shared<FakeClient>(std::vector<Result<ChatResponse>>{Answer(kGoodDiff)});
  auto b = std::make_shared<FakeClient>(std::vector<Result<ChatResponse>>{Answer("no code at all")});
  LlmProposer two({{"a", "", a}, {"b", "", b}}, 3, TestOptions());
  int failures = 0;
  for (int i = 0; i < 6; ++i) {
    auto p = two.Propose(f.ctx);
    ASSERT_TRUE(p.ok());
    if (!p->failure.empty()) {
      EXPECT_EQ(p->model, "b");
      ++failures;
    }
    two.Feedback(*p, /*improved_parent=*/p->failure.empty(), /*valid=*/p->failure.empty());
  }
  auto arms = two.BanditArms();
  ASSERT_EQ(arms.size(), 2u);
  EXPECT_EQ(arms[0].chosen + arms[1].chosen, 6);
  EXPECT_DOUBLE_EQ(arms[0].reward_sum, static_cast<double>(arms[0].rewarded));  // a: every child improved
  EXPECT_DOUBLE_EQ(arms[1].reward_sum, 0.0);                                    // b: failures, rewarded 0 once
  EXPECT_EQ(arms[1].rewarded, failures);
  EXPECT_GT(arms[0].dollars, 0.0);

  // Valid but not faster: the small reward.
  Proposal p;
  p.model = "a";
  const double before = two.BanditArms()[0].reward_sum;
  two.Feedback(p, false, true);
  EXPECT_NEAR(two.BanditArms()[0].reward_sum - before, 0.1, 1e-12);
  p.model = "unknown";
  two.Feedback(p, true, true);  // ignored
}

TEST(SummarizeRun, AsksAndTrims) {
  FakeClient c({Answer("\n  TRIED: chunks.\nWORKED: 16.\nNEXT: LSA.\n\n")});
  auto s = SummarizeRun(c, "chunks=16: 2 ok, best 0.9 ms");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(*s, "TRIED: chunks.\nWORKED: 16.\nNEXT: LSA.");
  ASSERT_EQ(c.requests.size(), 1u);
  EXPECT_TRUE(Has(c.requests[0].messages[1].content, "chunks=16: 2 ok, best 0.9 ms"));
  EXPECT_TRUE(Has(c.requests[0].messages[1].content, "NEXT:"));

  FakeClient empty({Answer("   ")});
  EXPECT_FALSE(SummarizeRun(empty, "x").ok());
  FakeClient down({Status::Unavailable("HTTP 503")});
  auto d = SummarizeRun(down, "x");
  ASSERT_FALSE(d.ok());
  EXPECT_TRUE(Has(d.status().message(), "HTTP 503"));
}

// A private temporary folder.
class TempDir {
 public:
  TempDir() {
    std::random_device rd;
    path_ = fs::temp_directory_path() / ("cuco-llmp-" + std::to_string(rd()) + std::to_string(rd()));
    fs::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

std::string ReadAll(const fs::path& dir) {
  std::string all;
  for (const auto& e : fs::directory_iterator(dir)) all += ReadFile(e.path()).value();
  return all;
}

TEST(MakeLlmProposer, CommandEndpointEndToEnd) {
  TempDir d;
  ASSERT_TRUE(WriteFileAtomic(d.path() / "answer.txt", kGoodDiff).ok());
  LlmEndpoint e;
  e.name = "agent";
  e.provider = "command";
  e.command = "cat > /dev/null; cat '" + (d.path() / "answer.txt").string() + "'";
  e.timeout_s = 30;
  LlmProposerOptions o = TestOptions();
  o.log_dir = (d.path() / "log").string();
  auto made = MakeLlmProposer({e}, 1, o);
  ASSERT_TRUE(made.ok()) << made.status().ToString();
  EXPECT_EQ((*made)->Name(), "llm:agent");
  Fixture f;
  auto p = (*made)->Propose(f.ctx);
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_EQ(p->failure, "");
  EXPECT_TRUE(Has(p->code, "kChunks = 16;"));
  const std::string log = ReadAll(d.path() / "log");
  EXPECT_TRUE(Has(log, "## Answer\nSUMMARY: use 4 warps")) << log;
  EXPECT_TRUE(Has(log, "## User\n")) << log;
}

TEST(MakeLlmProposer, BadEndpointsAndKeysNeverLogged) {
  LlmEndpoint bad;
  bad.provider = "carrier-pigeon";
  bad.model = "x";
  EXPECT_FALSE(MakeLlmProposer({bad}, 1).ok());
  EXPECT_FALSE(MakeLlmProposer({}, 1).ok());
  LlmEndpoint c;
  c.name = "same";
  c.provider = "command";
  c.command = "true";
  auto dup = MakeLlmProposer({c, c}, 1);
  ASSERT_FALSE(dup.ok());
  EXPECT_TRUE(Has(dup.status().message(), "used twice"));

  // An HTTP endpoint whose server is not there: the error and the log never carry the key.
  const char* kEnv = "CUCO_LLM_PROPOSER_TEST_KEY";
  const std::string key = "sk-proposer-test-SECRET-42";
  ::setenv(kEnv, key.c_str(), 1);
  TempDir d;
  LlmEndpoint http;
  http.name = "local";
  http.provider = "openai";
  http.model = "m";
  http.base_url = "http://127.0.0.1:9/v1";
  http.api_key_env = kEnv;
  http.timeout_s = 5;
  http.max_retries = 0;
  LlmProposerOptions o = TestOptions();
  o.log_dir = d.path().string();
  auto made = MakeLlmProposer({http}, 1, o);
  ASSERT_TRUE(made.ok()) << made.status().ToString();
  Fixture f;
  auto p = (*made)->Propose(f.ctx);
  ASSERT_FALSE(p.ok());
  EXPECT_FALSE(Has(p.status().message(), key));
  EXPECT_FALSE(Has(ReadAll(d.path()), key));
  EXPECT_FALSE(Has((*made)->Name(), key));
  ::unsetenv(kEnv);
}

TEST(MakeLlmProposerFromJson, Forms) {
  auto one = MakeLlmProposerFromJson({{"provider", "command"}, {"command", "true"}, {"name", "solo"}}, 1, "run.toml:4");
  ASSERT_TRUE(one.ok()) << one.status().ToString();
  EXPECT_EQ((*one)->Name(), "llm:solo");

  nlohmann::json many = {{"endpoints",
                          {{{"provider", "command"}, {"command", "true"}, {"name", "a"}},
                           {{"provider", "command"}, {"command", "true"}, {"name", "b"}, {"timeout_s", 10}}}},
                         {"bandit", "ucb1"},
                         {"max_tokens", 8000}};
  auto two = MakeLlmProposerFromJson(many, 1, "run.toml:4");
  ASSERT_TRUE(two.ok()) << two.status().ToString();
  EXPECT_EQ((*two)->Name(), "llm:a+b");

  auto typo = MakeLlmProposerFromJson({{"provider", "command"}, {"command", "true"}, {"modle", "x"}}, 1, "run.toml:4");
  ASSERT_FALSE(typo.ok());
  EXPECT_EQ(typo.status().message(), "run.toml:4: unknown key 'proposer.llm.modle'");

  nlohmann::json stray = many;
  stray["model"] = "x";
  auto s = MakeLlmProposerFromJson(stray, 1, "run.toml:4");
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(Has(s.status().message(), "unknown key 'proposer.llm.model'"));

  nlohmann::json bad_bandit = many;
  bad_bandit["bandit"] = "greedy";
  EXPECT_FALSE(MakeLlmProposerFromJson(bad_bandit, 1, "run.toml:4").ok());
  EXPECT_FALSE(MakeLlmProposerFromJson({{"endpoints", nlohmann::json::array()}}, 1, "x").ok());
  EXPECT_FALSE(MakeLlmProposerFromJson({{"provider", "command"}, {"command", "true"}, {"max_tokens", "many"}}, 1, "x").ok());
  EXPECT_FALSE(MakeLlmProposerFromJson(nlohmann::json::array(), 1, "x").ok());
}

TEST(LlmProposer, ContractLoadedFromTheRuntime) {
  Fixture f;
  LlmProposerOptions o;  // contract left empty: read from runtime/include/cuco/harness.h
  auto [proposer, client] = OneArm({Answer(kGoodDiff)}, o);
  Prompt p = proposer->PromptFor(f.ctx);
  EXPECT_TRUE(Has(p.system, "cudaStream_t side_stream(int i, int priority = 0);")) << p.system;
  EXPECT_FALSE(Has(p.system, "## Building blocks"));  // the seed does not include cuco/codesign
}

}  // namespace
}  // namespace cuco
