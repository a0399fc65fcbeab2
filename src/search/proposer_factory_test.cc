#include "search/proposer_factory.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "util/files.h"

#include "search/run_config.h"

namespace cuco {
namespace {

// docs/llm.md's example run config parses and makes the LLM proposer it describes.
TEST(ProposerFactory, TheLlmDocExampleMakesItsProposer) {
  const std::filesystem::path doc = std::filesystem::path(CUCO_SOURCE_DIR) / "docs" / "llm.md";
  auto text = ReadFile(doc);
  ASSERT_TRUE(text.ok()) << text.status().message();
  const size_t example = text->find("## Example");
  ASSERT_NE(example, std::string::npos);
  const size_t open = text->find("```toml\n", example);
  ASSERT_NE(open, std::string::npos) << "docs/llm.md's example is no ```toml block";
  const size_t close = text->find("```", open + 8);
  ASSERT_NE(close, std::string::npos);
  auto c = ParseRunConfig(text->substr(open + 8, close - open - 8), doc.string());
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->proposer, "llm");
  ASSERT_EQ(c->proposer_options.at("llm").at("endpoints").size(), 4u);
  setenv("ANTHROPIC_API_KEY", "test-key-not-used", 0);  // made, never called
  setenv("OPENAI_API_KEY", "test-key-not-used", 0);
  WorkloadConfig w;
  auto p = MakeProposer(SpecFromConfig(*c, &w, testing::TempDir()));
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_NE((*p)->Name().find("llm"), std::string::npos) << (*p)->Name();
}

TEST(ProposerFactory, BuiltinIsTheDefault) {
  auto c = ParseRunConfig("", "/r/run.toml");
  ASSERT_TRUE(c.ok());
  WorkloadConfig w;
  auto p = MakeProposer(SpecFromConfig(*c, &w, "/tmp"));
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ((*p)->Name(), "builtin");
}

TEST(ProposerFactory, LlmWithoutEndpointsNamesTheConfigLine) {
  auto c = ParseRunConfig("[proposer]\nname = \"llm\"\n", "/r/run.toml");
  ASSERT_TRUE(c.ok());
  WorkloadConfig w;
  const auto names = ProposerNames();
  EXPECT_NE(std::find(names.begin(), names.end(), "llm"), names.end());
  auto p = MakeProposer(SpecFromConfig(*c, &w, "/tmp"));
  ASSERT_FALSE(p.ok());  // no [proposer.llm] endpoint configured
  EXPECT_NE(p.status().message().find("/r/run.toml:2"), std::string::npos) << p.status().message();
  auto with = ParseRunConfig("[proposer]\nname = \"llm\"\n[proposer.llm]\nprovider = \"command\"\ncommand = \"cat\"\n",
                             "/r/run.toml");
  ASSERT_TRUE(with.ok()) << with.status().message();
  auto q = MakeProposer(SpecFromConfig(*with, &w, "/tmp"));
  ASSERT_TRUE(q.ok()) << q.status().message();
  EXPECT_EQ((*q)->Name().substr(0, 4), "llm:");
}

TEST(ProposerFactory, UnknownNamesAndOptions) {
  WorkloadConfig w;
  auto c = ParseRunConfig("[proposer]\nname = \"oracle\"\n", "/r/run.toml");
  ASSERT_TRUE(c.ok());
  auto p = MakeProposer(SpecFromConfig(*c, &w, "/tmp"));
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().message().substr(0, 40), "/r/run.toml:2: unknown proposer 'oracle'");
  auto o = ParseRunConfig("[proposer]\nname = \"builtin\"\n[proposer.builtin]\nrandom_draws = 5\nfoo = 1\n", "/r/run.toml");
  ASSERT_TRUE(o.ok());
  auto q = MakeProposer(SpecFromConfig(*o, &w, "/tmp"));
  ASSERT_FALSE(q.ok());
  EXPECT_EQ(q.status().message().substr(0, 50), "/r/run.toml:5: unknown key 'proposer.builtin.foo' ");
}

TEST(ProposerFactory, RegisterReplaces) {
  struct Fixed : Proposer {
    Result<Proposal> Propose(const ProposalContext&) override { return Proposal{}; }
    std::string Name() const override { return "fixed"; }
  };
  RegisterProposer("fixed", [](const ProposerSpec&) -> Result<std::unique_ptr<Proposer>> {
    return std::unique_ptr<Proposer>(std::make_unique<Fixed>());
  });
  ProposerSpec s;
  s.name = "fixed";
  auto p = MakeProposer(s);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ((*p)->Name(), "fixed");
}

}  // namespace
}  // namespace cuco
