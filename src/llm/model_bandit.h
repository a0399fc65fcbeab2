// ModelBandit: chooses which of several LLM endpoints writes the next mutation, learning from a
// reward the caller reports later (e.g. 1 if the child beat its parent, else 0).
//
// Policies: UCB1 (mean reward + c*sqrt(ln N / n)) and Thompson sampling (a Beta(alpha, beta)
// prior per arm updated with fractional successes). Both count a choice as soon as it is made,
// so choices made while earlier rewards are outstanding still spread over the arms. Given the
// same seed and the same sequence of calls, the choices are the same; ToJson/LoadJson carry the
// counts and the random state, so a resumed search continues where it stopped.
// Thread-safe.
#pragma once

#include <cstdint>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "util/status.h"

namespace cuco {

enum class BanditPolicy { kUcb1, kThompson };
// "ucb1" or "thompson".
Result<BanditPolicy> ParseBanditPolicy(const std::string& name);
std::string BanditPolicyName(BanditPolicy policy);

struct BanditOptions {
  BanditPolicy policy = BanditPolicy::kThompson;
  uint64_t seed = 0;
  double ucb_c = 1.4142135623730951;       // UCB1's exploration weight (sqrt 2)
  double prior_alpha = 1, prior_beta = 1;  // Thompson's Beta prior
};

struct BanditArm {
  std::string name;      // the endpoint's name
  int64_t chosen = 0;    // times Choose picked it
  int64_t rewarded = 0;  // rewards reported for it
  double reward_sum = 0;
  double dollars = 0;  // cost reported with the rewards
  bool operator==(const BanditArm&) const = default;
};

class ModelBandit {
 public:
  // One arm per name (names should be unique: Index finds the first).
  explicit ModelBandit(std::vector<std::string> arm_names, BanditOptions options = {});

  // The arm to use next (an index into the names given). Arms never chosen go first, in order.
  size_t Choose();
  // Reports a reward in [0, 1] for one use of `arm`, and what that use cost.
  Status Report(size_t arm, double reward, double dollars = 0);
  std::optional<size_t> Index(const std::string& name) const;

  std::vector<BanditArm> Arms() const;
  const BanditOptions& options() const { return options_; }

  // {"version":1,"policy":...,"seed":...,"rng":"<engine state>","arms":[{name,chosen,rewarded,reward_sum,dollars}]}
  nlohmann::json ToJson() const;
  // Restores a ToJson state: counts for arms matched by name (arms it lacks start fresh, arms
  // only it has are dropped) and the random state. The policy stays this bandit's. On error
  // nothing changes.
  Status LoadJson(const nlohmann::json& state);

 private:
  double SampleBeta(double a, double b);  // needs mu_

  BanditOptions options_;
  mutable std::mutex mu_;
  std::vector<BanditArm> arms_;
  std::mt19937_64 rng_;
};

}  // namespace cuco
