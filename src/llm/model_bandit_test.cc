#include "llm/model_bandit.h"

#include <gtest/gtest.h>

#include <random>

namespace cuco {
namespace {

// Plays `rounds` rounds against Bernoulli arms with success probabilities `p`; returns pulls per arm.
std::vector<int> Play(ModelBandit& b, const std::vector<double>& p, int rounds, uint64_t env_seed = 99) {
  std::mt19937_64 env(env_seed);
  std::vector<int> pulls(p.size());
  for (int i = 0; i < rounds; ++i) {
    size_t arm = b.Choose();
    ++pulls[arm];
    double reward = std::bernoulli_distribution(p[arm])(env) ? 1.0 : 0.0;
    EXPECT_TRUE(b.Report(arm, reward, 0.01).ok());
  }
  return pulls;
}

std::vector<size_t> Choices(ModelBandit& b, int n, uint64_t env_seed) {
  std::mt19937_64 env(env_seed);
  std::vector<size_t> out;
  for (int i = 0; i < n; ++i) {
    size_t arm = b.Choose();
    out.push_back(arm);
    EXPECT_TRUE(b.Report(arm, std::uniform_real_distribution<double>(0, arm == 1 ? 1.0 : 0.6)(env)).ok());
  }
  return out;
}

TEST(ModelBanditTest, TriesEveryArmFirstInOrder) {
  for (BanditPolicy policy : {BanditPolicy::kUcb1, BanditPolicy::kThompson}) {
    ModelBandit b({"a", "b", "c"}, {policy, 5});
    EXPECT_EQ(b.Choose(), 0u);
    EXPECT_EQ(b.Choose(), 1u);  // chosen before any reward came back
    EXPECT_EQ(b.Choose(), 2u);
    EXPECT_EQ(b.Arms()[2].chosen, 1);
  }
}

TEST(ModelBanditTest, LearnsTheBestArm) {
  for (BanditPolicy policy : {BanditPolicy::kUcb1, BanditPolicy::kThompson}) {
    ModelBandit b({"weak", "strong", "middling"}, {policy, 7});
    std::vector<int> pulls = Play(b, {0.2, 0.8, 0.5}, 2000);
    EXPECT_GT(pulls[1], 1200) << BanditPolicyName(policy);
    EXPECT_GT(pulls[1], pulls[2]);
    EXPECT_GT(pulls[2], pulls[0] / 2);
    std::vector<BanditArm> arms = b.Arms();
    EXPECT_EQ(arms[1].rewarded, pulls[1]);
    EXPECT_NEAR(arms[1].reward_sum / arms[1].rewarded, 0.8, 0.05);
    EXPECT_NEAR(arms[0].dollars + arms[1].dollars + arms[2].dollars, 20.0, 1e-6);
  }
}

TEST(ModelBanditTest, DeterministicGivenSeed) {
  for (BanditPolicy policy : {BanditPolicy::kUcb1, BanditPolicy::kThompson}) {
    ModelBandit a({"x", "y", "z"}, {policy, 42}), b({"x", "y", "z"}, {policy, 42});
    EXPECT_EQ(Choices(a, 300, 1), Choices(b, 300, 1));
  }
  ModelBandit a({"x", "y", "z"}, {BanditPolicy::kThompson, 1}), b({"x", "y", "z"}, {BanditPolicy::kThompson, 2});
  EXPECT_NE(Choices(a, 300, 1), Choices(b, 300, 1));
}

TEST(ModelBanditTest, ResumeFromJsonContinuesExactly) {
  for (BanditPolicy policy : {BanditPolicy::kUcb1, BanditPolicy::kThompson}) {
    ModelBandit a({"x", "y", "z"}, {policy, 3});
    Choices(a, 100, 1);
    nlohmann::json state = nlohmann::json::parse(a.ToJson().dump());  // through text, as a file would
    ModelBandit b({"x", "y", "z"}, {policy, 12345});                  // the seed given on resume does not matter
    ASSERT_TRUE(b.LoadJson(state).ok());
    EXPECT_EQ(a.Arms(), b.Arms());
    EXPECT_EQ(Choices(a, 100, 2), Choices(b, 100, 2));
  }
}

TEST(ModelBanditTest, LoadMatchesArmsByName) {
  ModelBandit a({"x", "y"}, {BanditPolicy::kUcb1, 3});
  Choices(a, 20, 1);
  ModelBandit b({"y", "new"}, {BanditPolicy::kUcb1, 3});
  ASSERT_TRUE(b.LoadJson(a.ToJson()).ok());
  EXPECT_EQ(b.Arms()[0], a.Arms()[1]);
  EXPECT_EQ(b.Arms()[1], BanditArm{"new"});
  EXPECT_EQ(b.Choose(), 1u);  // the new arm is tried first
  EXPECT_EQ(b.Index("new"), 1u);
  EXPECT_FALSE(b.Index("x").has_value());
}

TEST(ModelBanditTest, BadStateIsRejectedAndChangesNothing) {
  ModelBandit b({"x", "y"}, {BanditPolicy::kThompson, 3});
  Choices(b, 10, 1);
  nlohmann::json good = b.ToJson();
  std::vector<nlohmann::json> bad(7, good);
  bad[0] = 3;
  bad[1]["version"] = 2;
  bad[2]["arms"] = "x";
  bad[3]["arms"][0].erase("name");
  bad[4]["arms"][0]["chosen"] = -1;
  bad[5]["arms"][0]["reward_sum"] = 1e9;
  bad[6]["rng"] = "not an engine";
  for (const nlohmann::json& j : bad) {
    Status s = b.LoadJson(j);
    EXPECT_FALSE(s.ok()) << j.dump();
    EXPECT_EQ(b.ToJson(), good);
  }
}

TEST(ModelBanditTest, ReportChecksItsArguments) {
  ModelBandit b({"x"});
  EXPECT_FALSE(b.Report(1, 0.5).ok());
  EXPECT_FALSE(b.Report(0, 1.5).ok());
  EXPECT_FALSE(b.Report(0, -0.1).ok());
  EXPECT_FALSE(b.Report(0, std::nan("")).ok());
  EXPECT_FALSE(b.Report(0, 0.5, -1).ok());
  EXPECT_TRUE(b.Report(0, 0.5).ok());
  EXPECT_EQ(b.Arms()[0].chosen, 1);
}

TEST(ModelBanditTest, PolicyNames) {
  EXPECT_EQ(*ParseBanditPolicy("ucb1"), BanditPolicy::kUcb1);
  EXPECT_EQ(*ParseBanditPolicy("thompson"), BanditPolicy::kThompson);
  EXPECT_FALSE(ParseBanditPolicy("epsilon").ok());
}

}  // namespace
}  // namespace cuco
