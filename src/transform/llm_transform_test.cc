// The LLM-driven fast path against scripted LLM servers on loopback (real HTTP: OpenAI-compatible
// writer, Anthropic judge in one test) and the REAL cascade on the CPU workload
// tests/workloads/cpu_matmul (compile -> run -> verify -> bench), plus unit tests of the checks.
#include "transform/llm_transform.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "evaluate/cascade.h"
#include "llm/test_server.h"
#include "util/files.h"
#include "util/testutil.h"

namespace cuco {
using testutil::Has;
using testutil::Replaced;
namespace {

namespace fs = std::filesystem;
using llm_test::Json;
using llm_test::Reply;
using llm_test::ScriptedServer;
using nlohmann::json;

constexpr char kKeyEnv[] = "CUCO_LLM_TRANSFORM_TEST_KEY";
constexpr char kKey[] = "sk-transform-SECRET-0123456789";

fs::path WorkloadDir() { return fs::path(CUCO_SOURCE_DIR) / "tests" / "workloads" / "cpu_matmul"; }

// ---- scripted answers -----------------------------------------------------------------------

std::string OpenAiAnswer(const std::string& text) {
  return json{{"id", "chatcmpl-1"},
              {"object", "chat.completion"},
              {"model", "gpt-4o-2024-08-06"},
              {"choices",
               {{{"index", 0}, {"message", {{"role", "assistant"}, {"content", text}}}, {"finish_reason", "stop"}}}},
              {"usage", {{"prompt_tokens", 3000}, {"completion_tokens", 700}}}}
      .dump();
}

std::string AnthropicAnswer(const std::string& text) {
  return json{{"id", "msg_1"},
              {"type", "message"},
              {"role", "assistant"},
              {"model", "claude-sonnet-4-20250514"},
              {"content", {{{"type", "text"}, {"text", text}}}},
              {"stop_reason", "end_turn"},
              {"usage", {{"input_tokens", 2000}, {"output_tokens", 150}}}}
      .dump();
}

Reply Writer(const std::string& text) { return Json(OpenAiAnswer(text)); }

std::string FileAnswer(const std::string& summary, const std::string& code) {
  return "SUMMARY: " + summary + "\n\n```cpp\n" + code + "```\n";
}

// What the messages of a recorded request say (system and user text, any protocol).
std::string RequestText(const llm_test::Recorded& r) {
  json body = json::parse(r.body, nullptr, false);
  if (body.is_discarded()) return r.body;
  std::string s;
  if (body.contains("system") && body["system"].is_string()) s += body["system"].get<std::string>() + "\n";
  if (body.contains("messages"))
    for (const auto& m : body["messages"])
      if (m.contains("content") && m["content"].is_string()) s += m["content"].get<std::string>() + "\n";
  return s;
}

void ExpectNoKey(const LlmTransformAttempt& a) {
  for (const std::string* f : {&a.label, &a.reason, &a.code, &a.diff, &a.answer_summary, &a.answer_excerpt,
                               &a.judge_feedback, &a.judge_error})
    EXPECT_FALSE(Has(*f, kKey)) << *f;
  if (a.record) {
    EXPECT_FALSE(Has(a.record->ToJson().dump(), kKey));
  }
}

// ---- the fixture: one cascade for the CPU workload --------------------------------------------

class LlmTransformTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    root_ = fs::temp_directory_path() / ("cuco_llm_transform_" + std::to_string(::getpid()));
    fs::remove_all(root_);
    auto wl = LoadWorkload(WorkloadDir());
    ASSERT_TRUE(wl.ok()) << wl.status().ToString();
    workload_ = new WorkloadConfig(*wl);
    Toolchain tc;
    tc.cxx = "g++";
    CascadeOptions o;
    o.cache_dir = CUCO_BINARY_DIR "/test-cache";  // shared by the test processes: the runtime compiled once
    cascade_ = new Cascade(*workload_, tc, o);
    auto seed = ReadFile(WorkloadDir() / "seed.cc");
    ASSERT_TRUE(seed.ok());
    seed_ = new std::string(*seed);
  }
  static void TearDownTestSuite() {
    delete cascade_;
    delete workload_;
    delete seed_;
    fs::remove_all(root_);
  }
  void SetUp() override { ::setenv(kKeyEnv, kKey, 1); }
  void TearDown() override { ::unsetenv(kKeyEnv); }

  static std::unique_ptr<LlmClient> Client(const std::string& provider, const std::string& base_url,
                                           const std::string& model) {
    LlmEndpoint e;
    e.provider = provider;
    e.base_url = base_url;
    e.model = model;
    e.api_key_env = kKeyEnv;
    e.timeout_s = 30;
    e.max_retries = 3;
    e.backoff_initial_s = 0.001;
    e.backoff_max_s = 0.005;
    auto c = MakeLlmClient(e);
    EXPECT_TRUE(c.ok()) << c.status().ToString();
    return c.ok() ? std::move(c).value() : nullptr;
  }

  LlmTransformInputs Inputs() const {
    LlmTransformInputs in;
    in.workload = *workload_;
    in.code = *seed_;
    in.code_path = (WorkloadDir() / "seed.cc").string();
    return in;
  }

  // Runs the transform with the real cascade; attempts land in attempts_.
  LlmTransformResult Run(LlmClient& writer, LlmClient& judge, LlmTransformOptions options = {}) {
    const std::string test = ::testing::UnitTest::GetInstance()->current_test_info()->name();
    EvaluateFn evaluate = [&](const std::string& code, const std::string& label) {
      ++evaluations_;
      return cascade_->Evaluate(code, label, root_ / "runs" / test / label);
    };
    RecordAttemptFn record = [&](const LlmTransformAttempt& a) { attempts_.push_back(a); };
    auto r = RunLlmTransform(Inputs(), writer, judge, evaluate, record, options);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    for (const auto& a : attempts_) ExpectNoKey(a);
    return r.ok() ? *r : LlmTransformResult{};
  }

  // Stage A's answer: the row-update loop order (passes). Stage B's: unroll by 4 (passes).
  static std::string Ikj() { return Replaced(*seed_, "kLoopOrder = \"ijk\"", "kLoopOrder = \"ikj\""); }
  static std::string StageAAnswer() { return FileAnswer("row-update loop order", Ikj()); }
  static std::string StageBAnswer() {
    return "SUMMARY: unroll the inner loop by 4\n"
           "<<<<<<< SEARCH\n"
           "constexpr int kUnroll = 1;                 // cuco:knob unroll\n"
           "=======\n"
           "constexpr int kUnroll = 4;                 // cuco:knob unroll\n"
           ">>>>>>> REPLACE\n";
  }
  // A planted compile error, and a planted wrong result.
  static std::string BrokenCode() {
    return Replaced(Ikj(), "const float aik = a[i * s.k + k];", "const float aik = a[i * s.k + k] + undeclared_thing_xyz;");
  }
  static std::string WrongCode() { return Replaced(*seed_, "c[i * s.n + j] = acc;", "c[i * s.n + j] = 2 * acc;"); }

  static fs::path root_;
  static WorkloadConfig* workload_;
  static Cascade* cascade_;
  static std::string* seed_;
  std::vector<LlmTransformAttempt> attempts_;
  int evaluations_ = 0;
};

fs::path LlmTransformTest::root_;
WorkloadConfig* LlmTransformTest::workload_ = nullptr;
Cascade* LlmTransformTest::cascade_ = nullptr;
std::string* LlmTransformTest::seed_ = nullptr;

// (1) Both stages pass at their first attempt; stage B starts from stage A's output; no judge.
TEST_F(LlmTransformTest, HappyPathPassesEachStageFirstTime) {
  // The key in an answer must come back redacted (the client's contract) and never be recorded.
  ScriptedServer writer_server({Writer("SUMMARY: loop order (echo " + std::string(kKey) + ")\n```cpp\n" + Ikj() + "```\n"),
                                Writer(StageBAnswer())});
  ScriptedServer judge_server({});
  auto writer = Client("openai", writer_server.url() + "/v1", "gpt-4o");
  auto judge = Client("openai", judge_server.url() + "/v1", "gpt-4o-mini");
  std::vector<std::string> lines;
  LlmTransformOptions o;
  o.progress = [&](const std::string& l) { lines.push_back(l); };
  LlmTransformResult r = Run(*writer, *judge, o);

  ASSERT_TRUE(r.accepted) << r.stop_reason;
  EXPECT_TRUE(r.stop_reason.empty());
  EXPECT_TRUE(Has(r.code, "kLoopOrder = \"ikj\""));
  EXPECT_TRUE(Has(r.code, "kUnroll = 4"));
  ASSERT_TRUE(r.record.has_value());
  EXPECT_EQ(r.record->status, EvalStatus::kOk) << r.record->Summary();
  ASSERT_EQ(r.stages.size(), 2u);  // the seed has EVOLVE blocks: no annotation stage
  EXPECT_EQ(r.stages[0].status, "passed");
  EXPECT_EQ(r.stages[0].attempts, 1);
  EXPECT_EQ(r.stages[1].status, "passed");
  EXPECT_EQ(r.stages[1].attempts, 1);
  EXPECT_EQ(r.attempts, 2);
  EXPECT_EQ(r.llm_calls, 2);
  EXPECT_EQ(evaluations_, 2);
  EXPECT_EQ(r.input_tokens, 6000);
  EXPECT_GT(r.dollars, 0);

  ASSERT_EQ(attempts_.size(), 2u);
  EXPECT_EQ(attempts_[0].stage_id, "A");
  EXPECT_EQ(attempts_[0].label, "llm-A-infrastructure-1");
  EXPECT_TRUE(attempts_[0].passed);
  ASSERT_TRUE(attempts_[0].record.has_value());
  EXPECT_EQ(attempts_[0].record->status, EvalStatus::kOk);
  EXPECT_TRUE(Has(attempts_[0].answer_summary, "[redacted]")) << attempts_[0].answer_summary;
  EXPECT_TRUE(Has(attempts_[0].diff, "+constexpr const char* kLoopOrder = \"ikj\";")) << attempts_[0].diff;
  EXPECT_EQ(attempts_[1].stage, "replace");
  EXPECT_EQ(attempts_[1].answer_summary, "unroll the inner loop by 4");
  EXPECT_NEAR(attempts_[0].dollars + attempts_[1].dollars, r.dollars, 1e-12);

  EXPECT_EQ(judge_server.count(), 0u);
  ASSERT_EQ(writer_server.count(), 2u);
  const std::string first = RequestText(writer_server.requests()[0]);
  const std::string second = RequestText(writer_server.requests()[1]);
  EXPECT_TRUE(Has(first, "Stage A (infrastructure)"));
  EXPECT_TRUE(Has(first, "cuco_candidate_setup"));  // the code and the CPU contract
  EXPECT_TRUE(Has(first, "frozen"));
  EXPECT_TRUE(Has(second, "Stage B (replace)"));
  EXPECT_TRUE(Has(second, "kLoopOrder = \"ikj\""));  // B edits A's output
  EXPECT_FALSE(Has(first, kKey));
  EXPECT_FALSE(lines.empty());
  EXPECT_TRUE(Has(lines.back(), "accepted"));
}

// (2) A planted compile error: the judge reads the failure, its feedback reaches the writer, the
// second answer passes. The judge speaks Anthropic's protocol.
TEST_F(LlmTransformTest, JudgeRoundFixesPlantedCompileError) {
  const std::string feedback =
      "FEEDBACK-7: the build fails because undeclared_thing_xyz is not declared; remove `+ undeclared_thing_xyz`.";
  ScriptedServer writer_server({Writer(FileAnswer("loop order, with a typo", BrokenCode())),
                                Writer(FileAnswer("loop order, typo fixed", Ikj())), Writer(StageBAnswer())});
  ScriptedServer judge_server({Json(AnthropicAnswer(feedback))});
  auto writer = Client("openai", writer_server.url() + "/v1", "gpt-4o");
  auto judge = Client("anthropic", judge_server.url(), "claude-sonnet-4-20250514");
  LlmTransformResult r = Run(*writer, *judge);

  ASSERT_TRUE(r.accepted) << r.stop_reason;
  ASSERT_EQ(r.stages.size(), 2u);
  EXPECT_EQ(r.stages[0].status, "passed");
  EXPECT_EQ(r.stages[0].attempts, 2);
  EXPECT_EQ(r.stages[1].attempts, 1);
  EXPECT_EQ(r.llm_calls, 4);

  ASSERT_EQ(attempts_.size(), 3u);
  const LlmTransformAttempt& failed = attempts_[0];
  EXPECT_FALSE(failed.passed);
  EXPECT_EQ(failed.failure_kind, "evaluation");
  ASSERT_TRUE(failed.record.has_value());
  EXPECT_EQ(failed.record->status, EvalStatus::kCompileError) << failed.record->Summary();
  EXPECT_TRUE(Has(failed.reason, "undeclared_thing_xyz")) << failed.reason;
  EXPECT_EQ(failed.judge_feedback, feedback);
  EXPECT_GT(failed.llm_calls, 1);
  EXPECT_TRUE(attempts_[1].passed);
  EXPECT_EQ(attempts_[1].iteration, 2);
  EXPECT_TRUE(Has(attempts_[1].diff, "-      const float aik = a[i * s.k + k] + undeclared_thing_xyz;"))
      << attempts_[1].diff;  // the retry edited the failed attempt

  // What the judge was shown: the status, the compiler's complaint, the diff.
  ASSERT_EQ(judge_server.count(), 1u);
  const llm_test::Recorded jq = judge_server.requests()[0];
  EXPECT_EQ(jq.path, "/v1/messages");
  const std::string judged = RequestText(jq);
  EXPECT_TRUE(Has(judged, "compile_error")) << judged;
  EXPECT_TRUE(Has(judged, "undeclared_thing_xyz")) << judged;
  EXPECT_TRUE(Has(judged, "+ undeclared_thing_xyz;")) << judged;
  EXPECT_TRUE(Has(judged, "Stage A (infrastructure)"));
  // What the writer was told next: the failure and the judge's feedback.
  ASSERT_EQ(writer_server.count(), 3u);
  const std::string retry = RequestText(writer_server.requests()[1]);
  EXPECT_TRUE(Has(retry, "FEEDBACK-7")) << retry;
  EXPECT_TRUE(Has(retry, "compile_error"));
  EXPECT_FALSE(Has(RequestText(writer_server.requests()[0]), "FEEDBACK-7"));
  EXPECT_FALSE(Has(RequestText(writer_server.requests()[2]), "FEEDBACK-7"));  // stage B starts clean
}

// (3) The iteration limit: every attempt fails (compile error, then a wrong result) and is recorded.
TEST_F(LlmTransformTest, IterationLimitGivesUpWithEveryAttemptRecorded) {
  ScriptedServer writer_server({Writer(FileAnswer("typo", BrokenCode())), Writer(FileAnswer("doubled", WrongCode()))});
  ScriptedServer judge_server({Json(OpenAiAnswer("Declare or remove undeclared_thing_xyz."))});
  auto writer = Client("openai", writer_server.url() + "/v1", "gpt-4o");
  auto judge = Client("openai", judge_server.url() + "/v1", "gpt-4o-mini");
  LlmTransformOptions o;
  o.max_iterations = 2;
  LlmTransformResult r = Run(*writer, *judge, o);

  EXPECT_FALSE(r.accepted);
  EXPECT_TRUE(r.code.empty());
  EXPECT_FALSE(r.record.has_value());
  EXPECT_TRUE(Has(r.stop_reason, "stage A (infrastructure) did not pass in 2 attempts")) << r.stop_reason;
  EXPECT_TRUE(Has(r.stop_reason, "wrong_result")) << r.stop_reason;
  ASSERT_EQ(r.stages.size(), 2u);
  EXPECT_EQ(r.stages[0].status, "failed");
  EXPECT_EQ(r.stages[0].attempts, 2);
  EXPECT_EQ(r.stages[1].status, "not_run");
  EXPECT_EQ(r.attempts, 2);
  ASSERT_EQ(attempts_.size(), 2u);
  ASSERT_TRUE(attempts_[0].record && attempts_[1].record);
  EXPECT_EQ(attempts_[0].record->status, EvalStatus::kCompileError);
  EXPECT_EQ(attempts_[1].record->status, EvalStatus::kWrongResult);
  EXPECT_FALSE(attempts_[0].judge_feedback.empty());
  EXPECT_TRUE(attempts_[1].judge_feedback.empty());  // no judge after the last attempt
  EXPECT_EQ(judge_server.count(), 1u);
  EXPECT_EQ(writer_server.count(), 2u);
}

// (4) An edit outside the EVOLVE block and an answer without code: failed attempts with reasons,
// no evaluation, no judge; the parser's message is the feedback and the loop goes on.
TEST_F(LlmTransformTest, MalformedAnswersAndFrozenEditsAreFailedAttempts) {
  const std::string outside =
      "SUMMARY: add an include\n"
      "<<<<<<< SEARCH\n#include <cstddef>\n#include <cstdint>\n=======\n#include <cstddef>\n#include <cstdint>\n"
      "#include <vector>\n>>>>>>> REPLACE\n";
  ScriptedServer writer_server({Writer(outside), Writer("I would change the loop order to ikj."), Writer(StageAAnswer()),
                                Writer(StageBAnswer())});
  ScriptedServer judge_server({});
  auto writer = Client("openai", writer_server.url() + "/v1", "gpt-4o");
  auto judge = Client("openai", judge_server.url() + "/v1", "gpt-4o-mini");
  LlmTransformResult r = Run(*writer, *judge);

  ASSERT_TRUE(r.accepted) << r.stop_reason;
  EXPECT_EQ(r.stages[0].attempts, 3);
  ASSERT_EQ(attempts_.size(), 4u);
  EXPECT_EQ(attempts_[0].failure_kind, "format");
  EXPECT_TRUE(Has(attempts_[0].reason, "edit outside the EVOLVE blocks")) << attempts_[0].reason;
  EXPECT_TRUE(attempts_[0].code.empty());
  EXPECT_FALSE(attempts_[0].record.has_value());
  EXPECT_EQ(attempts_[1].failure_kind, "format");
  EXPECT_TRUE(Has(attempts_[1].reason, "neither")) << attempts_[1].reason;
  EXPECT_TRUE(attempts_[2].passed);
  EXPECT_EQ(evaluations_, 2);
  EXPECT_EQ(judge_server.count(), 0u);
  const std::string second = RequestText(writer_server.requests()[1]);
  EXPECT_TRUE(Has(second, "edit outside the EVOLVE blocks")) << second;
  EXPECT_FALSE(Has(second, "Your previous attempt"));  // nothing parsed: it still edits the seed
}

// (5) A 429 from the writer's server is retried by the client; the loop sees one answer.
TEST_F(LlmTransformTest, RateLimitedWriterIsRetriedByTheClient) {
  Reply limited = Json(R"({"error":{"message":"Rate limit reached","type":"requests"}})", 429);
  limited.headers["Retry-After"] = "0";
  ScriptedServer writer_server({limited, Writer(StageAAnswer()), Writer(StageBAnswer())});
  ScriptedServer judge_server({});
  auto writer = Client("openai", writer_server.url() + "/v1", "gpt-4o");
  auto judge = Client("openai", judge_server.url() + "/v1", "gpt-4o-mini");
  LlmTransformResult r = Run(*writer, *judge);
  ASSERT_TRUE(r.accepted) << r.stop_reason;
  EXPECT_EQ(r.stages[0].attempts, 1);
  EXPECT_EQ(r.llm_calls, 2);
  EXPECT_EQ(writer_server.count(), 3u);
}

// The call budget stops the loop with a clear reason; a writer that cannot be reached is a
// failed attempt, not a crash.
TEST_F(LlmTransformTest, CallBudgetAndUnreachableWriterStopCleanly) {
  {
    ScriptedServer writer_server({Writer(FileAnswer("typo", BrokenCode()))});
    ScriptedServer judge_server({});
    auto writer = Client("openai", writer_server.url() + "/v1", "gpt-4o");
    auto judge = Client("openai", judge_server.url() + "/v1", "gpt-4o-mini");
    LlmTransformOptions o;
    o.max_llm_calls = 1;
    LlmTransformResult r = Run(*writer, *judge, o);
    EXPECT_FALSE(r.accepted);
    EXPECT_TRUE(Has(r.stop_reason, "LLM call budget spent: 1 of 1 calls")) << r.stop_reason;
    EXPECT_EQ(r.llm_calls, 1);
    ASSERT_EQ(attempts_.size(), 1u);
    EXPECT_TRUE(Has(attempts_[0].judge_error, "not asked")) << attempts_[0].judge_error;
    EXPECT_EQ(judge_server.count(), 0u);
  }
  attempts_.clear();
  {
    ScriptedServer writer_server({Json(R"({"error":{"message":"bad model name"}})", 400)});
    ScriptedServer judge_server({});
    auto writer = Client("openai", writer_server.url() + "/v1", "gpt-4o");
    auto judge = Client("openai", judge_server.url() + "/v1", "gpt-4o-mini");
    LlmTransformOptions o;
    o.max_iterations = 2;
    LlmTransformResult r = Run(*writer, *judge, o);
    EXPECT_FALSE(r.accepted);
    ASSERT_EQ(attempts_.size(), 2u);
    EXPECT_EQ(attempts_[0].failure_kind, "call");
    EXPECT_TRUE(Has(attempts_[0].reason, "bad model name")) << attempts_[0].reason;
    EXPECT_EQ(judge_server.count(), 0u);
  }
}

// ---- a program-mode CUDA file through A, B and C with a stub evaluation ------------------------

const char* kProgram = R"(// a host-driven program
#include <nccl.h>
#include <cuda_runtime.h>

__global__ void scale(float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= 2.0f;
}

int run(ncclComm_t comm, cudaStream_t stream, float* buf, int n) {
  scale<<<(n + 255) / 256, 256, 0, stream>>>(buf, n);
  ncclAllReduce(buf, buf, n, ncclFloat, ncclSum, comm, stream);  // the host collective
  return cudaStreamSynchronize(stream);
}

int main() {
  // verification and timing
  return 0;
}
)";

TEST(LlmTransformProgramTest, ProgramModeRunsStagesAToCWithNcclChecks) {
  WorkloadConfig w;
  w.name = "toy_program";
  w.mode = "program";
  w.language = "cuda";
  w.world_size = 2;
  const std::string program = kProgram;
  // A: diffs (whole-file mode) add device set-up and keep the collective.
  const std::string a_answer =
      "SUMMARY: symmetric buffer\n<<<<<<< SEARCH\nint run(ncclComm_t comm, cudaStream_t stream, float* buf, int n) {\n"
      "=======\nint run(ncclComm_t comm, cudaStream_t stream, float* buf, int n) {\n"
      "  static void* sym = nullptr;\n  if (!sym) ncclMemAlloc(&sym, n * sizeof(float));\n>>>>>>> REPLACE\n";
  // B, first try: a comment mentions the collective, which is still called: the check fails.
  const std::string b_bad =
      "<<<<<<< SEARCH\n  return cudaStreamSynchronize(stream);\n=======\n  /* ncclAllReduce( */\n"
      "  return cudaStreamSynchronize(stream);\n>>>>>>> REPLACE\n";
  // B, second try: edits the first try's code (its comment goes again).
  const std::string b_good =
      "<<<<<<< SEARCH\n  ncclAllReduce(buf, buf, n, ncclFloat, ncclSum, comm, stream);  // the host collective\n"
      "=======\n  device_allreduce<<<1, 256, 0, stream>>>(buf, n);  // was ncclAllReduce(...)\n>>>>>>> REPLACE\n"
      "<<<<<<< SEARCH\n  /* ncclAllReduce( */\n  return cudaStreamSynchronize(stream);\n=======\n"
      "  return cudaStreamSynchronize(stream);\n>>>>>>> REPLACE\n";
  // C: markers only; the first try also changes a line.
  auto b_output = [&] {
    std::string s = program;
    s = Replaced(s, "int run(ncclComm_t comm, cudaStream_t stream, float* buf, int n) {\n",
                 "int run(ncclComm_t comm, cudaStream_t stream, float* buf, int n) {\n  static void* sym = nullptr;\n"
                 "  if (!sym) ncclMemAlloc(&sym, n * sizeof(float));\n");
    s = Replaced(s, "  ncclAllReduce(buf, buf, n, ncclFloat, ncclSum, comm, stream);  // the host collective\n",
                 "  device_allreduce<<<1, 256, 0, stream>>>(buf, n);  // was ncclAllReduce(...)\n");
    return s;
  }();
  std::string annotated = Replaced(b_output, "__global__ void scale", "// EVOLVE-BLOCK-START\n__global__ void scale");
  annotated = Replaced(annotated, "\nint main()", "// EVOLVE-BLOCK-END\n\nint main()");
  const std::string c_bad = "```cuda\n" + Replaced(annotated, "// a host-driven program", "// changed") + "```\n";
  const std::string c_good = "SUMMARY: the kernels and run()\n```cuda\n" + annotated + "```\n";

  ::setenv(kKeyEnv, kKey, 1);
  ScriptedServer writer_server({Writer(a_answer), Writer(b_bad), Writer(b_good), Writer(c_bad), Writer(c_good)});
  ScriptedServer judge_server({Json(OpenAiAnswer("Replace the ncclAllReduce call itself.")),
                               Json(OpenAiAnswer("Add marker lines only."))});
  LlmEndpoint e;
  e.provider = "openai";
  e.model = "gpt-4o";
  e.api_key_env = kKeyEnv;
  e.base_url = writer_server.url() + "/v1";
  auto writer = MakeLlmClient(e);
  e.base_url = judge_server.url() + "/v1";
  auto judge = MakeLlmClient(e);
  ASSERT_TRUE(writer.ok() && judge.ok());

  LlmTransformInputs in;
  in.workload = w;
  in.code = program;
  in.analysis_text = "ncclAllReduce at line 12 (sum, in place)";  // keeps the test off libclang
  in.design_space_text = "design space";
  in.api_text = "codesign api";
  std::vector<std::string> evaluated;
  std::vector<LlmTransformAttempt> attempts;
  auto r = RunLlmTransform(
      in, **writer, **judge,
      [&](const std::string& code, const std::string& label) {
        evaluated.push_back(label);
        EvalRecord rec;
        rec.status = EvalStatus::kOk;
        rec.reason = "stub";
        (void)code;
        return rec;
      },
      [&](const LlmTransformAttempt& a) { attempts.push_back(a); });
  ::unsetenv(kKeyEnv);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_TRUE(r->accepted) << r->stop_reason;
  ASSERT_EQ(r->stages.size(), 3u);
  EXPECT_EQ(r->stages[2].name, "annotate");
  EXPECT_EQ(r->stages[0].attempts, 1);
  EXPECT_EQ(r->stages[1].attempts, 2);
  EXPECT_EQ(r->stages[2].attempts, 2);
  EXPECT_EQ(r->code, annotated);
  EXPECT_EQ(evaluated, (std::vector<std::string>{"llm-A-infrastructure-1", "llm-B-replace-2"}));  // C: not evaluated
  ASSERT_EQ(attempts.size(), 5u);
  EXPECT_EQ(attempts[1].failure_kind, "check");
  EXPECT_TRUE(Has(attempts[1].reason, "ncclAllReduce at line 14")) << attempts[1].reason;
  EXPECT_EQ(attempts[3].failure_kind, "check");
  EXPECT_TRUE(Has(attempts[3].reason, "only marker lines may be added")) << attempts[3].reason;
  EXPECT_FALSE(attempts[4].record.has_value());
  const std::string first = RequestText(writer_server.requests()[0]);
  EXPECT_TRUE(Has(first, "ncclAllReduce at line 12"));  // the analysis and the call list
  EXPECT_TRUE(Has(first, "Add no EVOLVE-BLOCK marker lines"));
  EXPECT_TRUE(Has(RequestText(judge_server.requests()[0]), "host communication calls remain"));
}

// ---- checks ---------------------------------------------------------------------------------

TEST(LlmTransformChecksTest, HarnessStagesCheckTheBlocksOnly) {
  WorkloadConfig w;
  w.mode = "harness";
  w.language = "cuda";
  const std::string before =
      "#include <cuco/harness.h>\n// EVOLVE-BLOCK-START\nvoid run() {\n  ncclReduceScatter(a, b, n);\n}\n"
      "// EVOLVE-BLOCK-END\n";
  auto stages = DefaultLlmStages(w, before);
  ASSERT_EQ(stages.size(), 2u);  // blocks: no annotation stage
  const LlmStage& a = stages[0];
  const LlmStage& b = stages[1];
  EXPECT_EQ(a.skip(before), "");
  const std::string with_setup = Replaced(before, "void run() {\n",
                                          "void run() {\n  ctx.create_dev_comm(reqs, &dc);\n  alloc_peers(ctx, dc, 64, &p);\n");
  EXPECT_TRUE(a.check(before, with_setup).ok()) << a.check(before, with_setup).ToString();
  Status no_setup = a.check(before, Replaced(before, "n);", "n * 1);"));
  EXPECT_TRUE(Has(no_setup.message(), "no device-side set-up")) << no_setup.ToString();
  Status dropped = a.check(before, Replaced(with_setup, "ncclReduceScatter(a, b, n);", "launch_transfers(s, l);"));
  EXPECT_TRUE(Has(dropped.message(), "must keep the host communication")) << dropped.ToString();
  EXPECT_TRUE(Has(a.skip(with_setup), "device communicator already")) << a.skip(with_setup);
  EXPECT_EQ(a.skip(Replaced(before, "void run() {\n", "void run() {\n  alloc_symmetric(64, &b);\n")), "");

  Status left = b.check(with_setup, with_setup);
  EXPECT_TRUE(Has(left.message(), "ncclReduceScatter at line 6")) << left.ToString();
  EXPECT_TRUE(b.check(with_setup, Replaced(with_setup, "ncclReduceScatter(a, b, n);", "launch_transfers(s, l);")).ok());
  EXPECT_EQ(b.skip(Replaced(with_setup, "ncclReduceScatter(a, b, n);", "x();")), "no host communication call left");

  w.language = "cpu";
  auto cpu = DefaultLlmStages(w, before);
  ASSERT_EQ(cpu.size(), 2u);
  EXPECT_FALSE(cpu[0].check);
  EXPECT_FALSE(cpu[1].skip);
  w.language = "cuda";
  w.mode = "program";
  auto program = DefaultLlmStages(w, kProgram);
  ASSERT_EQ(program.size(), 3u);
  EXPECT_TRUE(program[2].annotate);
  EXPECT_FALSE(program[2].evaluate);
}

TEST(LlmTransformChecksTest, LineDiffShowsSeparateHunks) {
  std::string from, to;
  for (int i = 1; i <= 30; ++i) {
    from += "line " + std::to_string(i) + "\n";
    to += (i == 3 ? std::string("LINE 3\n") : i == 25 ? std::string("") : "line " + std::to_string(i) + "\n");
  }
  const std::string d = LineDiff(from, to, "a", "b", 2);
  EXPECT_TRUE(Has(d, "--- a\n+++ b\n")) << d;
  EXPECT_TRUE(Has(d, "@@ -1,5 +1,5 @@\n line 1\n line 2\n-line 3\n+LINE 3\n")) << d;
  EXPECT_TRUE(Has(d, "@@ -23,5 +23,4 @@\n line 23\n line 24\n-line 25\n line 26\n")) << d;
  EXPECT_FALSE(Has(d, "line 12"));
  EXPECT_EQ(LineDiff(from, from, "a", "b"), "");
}

}  // namespace
}  // namespace cuco
