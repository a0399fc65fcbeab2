#include "llm/llm_endpoint.h"

#include <gtest/gtest.h>

namespace cuco {
namespace {

toml::table Parse(const std::string& text) {
  toml::parse_result r = toml::parse(std::string_view(text), std::string_view("run.toml"));
  EXPECT_TRUE(r.succeeded()) << r.error().description();
  return r.succeeded() ? std::move(r).table() : toml::table{};
}

Result<std::vector<LlmEndpoint>> Endpoints(const std::string& text) {
  toml::table t = Parse(text);
  const toml::node* n = t.at_path("llm.endpoints").node();
  if (!n) return Status::NotFound("no llm.endpoints");
  return LlmEndpointsFromToml(*n, "run.toml");
}

TEST(LlmEndpointTest, ReadsEndpointsWithDefaults) {
  Result<std::vector<LlmEndpoint>> r = Endpoints(R"(
[[llm.endpoints]]
provider = "openai"
model = "gpt-4.1"

[[llm.endpoints]]
name = "local-qwen"
provider = "openai"
base_url = "http://127.0.0.1:8000/v1/"
model = "Qwen/Qwen2.5-Coder-32B-Instruct"
timeout_s = 600
max_retries = 2
price_in_per_mtok = 0
price_out_per_mtok = 0.5

[[llm.endpoints]]
provider = "anthropic"
model = "claude-sonnet-4-20250514"
api_key_env = "MY_ANTHROPIC_KEY"
backoff_initial_s = 0.5
backoff_max_s = 10

[[llm.endpoints]]
name = "claude-code"
provider = "command"
command = "claude -p --output-format text"
)");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->size(), 4u);
  const LlmEndpoint& a = (*r)[0];
  EXPECT_EQ(a.name, "gpt-4.1");
  EXPECT_EQ(a.base_url, "https://api.openai.com/v1");
  EXPECT_EQ(a.api_key_env, "OPENAI_API_KEY");
  EXPECT_EQ(a.max_retries, 5);
  const LlmEndpoint& b = (*r)[1];
  EXPECT_EQ(b.base_url, "http://127.0.0.1:8000/v1");
  EXPECT_EQ(b.api_key_env, "");  // a server of one's own: no default key
  EXPECT_EQ(b.timeout_s, 600);
  EXPECT_EQ(b.max_retries, 2);
  EXPECT_EQ(b.price_in_per_mtok, 0.0);
  EXPECT_EQ(b.price_out_per_mtok, 0.5);
  const LlmEndpoint& c = (*r)[2];
  EXPECT_EQ(c.base_url, "https://api.anthropic.com");
  EXPECT_EQ(c.api_key_env, "MY_ANTHROPIC_KEY");
  EXPECT_EQ(c.backoff_initial_s, 0.5);
  EXPECT_FALSE(c.price_in_per_mtok.has_value());
  EXPECT_EQ((*r)[3].command, "claude -p --output-format text");
}

TEST(LlmEndpointTest, ErrorsNameFileAndLine) {
  struct Case {
    std::string toml, want;
  };
  const std::vector<Case> cases = {
      {"[[llm.endpoints]]\nprovider = \"openai\"\nmodel = \"gpt-4o\"\nmodle = \"x\"\n",
       "run.toml:4: unknown key 'modle'"},
      {"[[llm.endpoints]]\nprovider = \"openai\"\nmodel = 4\n", "run.toml:3: 'model' must be a string"},
      {"[[llm.endpoints]]\nmodel = \"gpt-4o\"\n", "run.toml:1: missing required key 'provider'"},
      {"[[llm.endpoints]]\nprovider = \"mistral\"\nmodel = \"m\"\n",
       "run.toml:2: llm endpoint 'm': 'provider' must be one of"},
      {"[[llm.endpoints]]\nprovider = \"openai\"\n", "run.toml:1: llm endpoint 'openai': 'model' is required"},
      {"[[llm.endpoints]]\nprovider = \"command\"\n", "'command' is required"},
      {"[[llm.endpoints]]\nprovider = \"openai\"\nmodel = \"m\"\ntimeout_s = -1\n",
       "run.toml:4: 'timeout_s' must be >= 0"},
      {"[[llm.endpoints]]\nprovider = \"openai\"\nmodel = \"m\"\ntimeout_s = 0\n",
       "run.toml:4: llm endpoint 'm': 'timeout_s' must be > 0"},
      {"[[llm.endpoints]]\nprovider = \"openai\"\nmodel = \"m\"\nmax_retries = 1.5\n",
       "run.toml:4: 'max_retries' must be an integer"},
      {"[[llm.endpoints]]\nprovider = \"openai\"\nmodel = \"m\"\napi_key_env = \"sk-abc123\"\n",
       "run.toml:4: llm endpoint 'm': 'api_key_env' must be the name of an environment variable"},
      {"[[llm.endpoints]]\nprovider = \"openai\"\nmodel = \"m\"\nbase_url = \"api.openai.com\"\n", "run.toml:4:"},
      {"[[llm.endpoints]]\nprovider = \"openai\"\nmodel = \"m\"\n[[llm.endpoints]]\nprovider = \"openai\"\nmodel = "
       "\"m\"\n",
       "run.toml:4: duplicate llm endpoint name 'm'"},
      {"[llm]\nendpoints = 3\n", "run.toml:2: llm endpoints must be an array of tables"},
      {"[llm]\nendpoints = []\n", "the array is empty"},
  };
  for (const Case& c : cases) {
    Result<std::vector<LlmEndpoint>> r = Endpoints(c.toml);
    ASSERT_FALSE(r.ok()) << c.toml;
    EXPECT_NE(r.status().message().find(c.want), std::string::npos) << r.status().message() << "\nwanted: " << c.want;
    EXPECT_EQ(r.status().code(), Status::Code::kInvalidArgument);
  }
}

TEST(LlmEndpointTest, NormalizeKeepsExplicitValues) {
  LlmEndpoint e;
  e.provider = "gemini";
  e.model = "gemini-2.5-pro";
  Result<LlmEndpoint> n = NormalizeLlmEndpoint(e);
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(n->base_url, "https://generativelanguage.googleapis.com");
  EXPECT_EQ(n->api_key_env, "GEMINI_API_KEY");
  e.api_key_env = "GOOGLE_API_KEY";
  EXPECT_EQ(NormalizeLlmEndpoint(e)->api_key_env, "GOOGLE_API_KEY");
}

}  // namespace
}  // namespace cuco
