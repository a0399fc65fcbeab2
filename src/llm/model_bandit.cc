#include "llm/model_bandit.h"

#include <cmath>
#include <sstream>

namespace cuco {

Result<BanditPolicy> ParseBanditPolicy(const std::string& name) {
  if (name == "ucb1") return BanditPolicy::kUcb1;
  if (name == "thompson") return BanditPolicy::kThompson;
  return Status::InvalidArgument("bandit policy must be 'ucb1' or 'thompson' (got '" + name + "')");
}

std::string BanditPolicyName(BanditPolicy policy) { return policy == BanditPolicy::kUcb1 ? "ucb1" : "thompson"; }

ModelBandit::ModelBandit(std::vector<std::string> arm_names, BanditOptions options)
    : options_(options), rng_(options.seed) {
  for (std::string& n : arm_names) arms_.push_back(BanditArm{std::move(n)});
}

double ModelBandit::SampleBeta(double a, double b) {
  double x = std::gamma_distribution<double>(a, 1.0)(rng_);
  double y = std::gamma_distribution<double>(b, 1.0)(rng_);
  return x + y > 0 ? x / (x + y) : 0.5;
}

size_t ModelBandit::Choose() {
  std::lock_guard<std::mutex> lock(mu_);
  if (arms_.empty()) return 0;
  for (size_t i = 0; i < arms_.size(); ++i)
    if (arms_[i].chosen == 0) {
      ++arms_[i].chosen;
      return i;
    }
  size_t best = 0;
  double best_score = -1;
  int64_t total = 0;
  for (const BanditArm& a : arms_) total += a.chosen;
  for (size_t i = 0; i < arms_.size(); ++i) {
    const BanditArm& a = arms_[i];
    double score;
    if (options_.policy == BanditPolicy::kUcb1) {
      double mean = a.rewarded > 0 ? a.reward_sum / static_cast<double>(a.rewarded) : 1.0;  // optimistic until told
      score = mean + options_.ucb_c * std::sqrt(std::log(static_cast<double>(total)) / static_cast<double>(a.chosen));
    } else {
      score = SampleBeta(options_.prior_alpha + a.reward_sum,
                         options_.prior_beta + static_cast<double>(a.rewarded) - a.reward_sum);
    }
    if (score > best_score) {
      best_score = score;
      best = i;
    }
  }
  ++arms_[best].chosen;
  return best;
}

Status ModelBandit::Report(size_t arm, double reward, double dollars) {
  std::lock_guard<std::mutex> lock(mu_);
  if (arm >= arms_.size()) return Status::InvalidArgument("bandit: no arm " + std::to_string(arm));
  if (!(reward >= 0 && reward <= 1)) return Status::InvalidArgument("bandit: a reward must be in [0, 1]");
  if (!(dollars >= 0) || !std::isfinite(dollars)) return Status::InvalidArgument("bandit: dollars must be >= 0");
  BanditArm& a = arms_[arm];
  ++a.rewarded;
  a.chosen = std::max(a.chosen, a.rewarded);  // a report for a choice made before a resume
  a.reward_sum += reward;
  a.dollars += dollars;
  return Status::Ok();
}

std::optional<size_t> ModelBandit::Index(const std::string& name) const {
  std::lock_guard<std::mutex> lock(mu_);
  for (size_t i = 0; i < arms_.size(); ++i)
    if (arms_[i].name == name) return i;
  return std::nullopt;
}

std::vector<BanditArm> ModelBandit::Arms() const {
  std::lock_guard<std::mutex> lock(mu_);
  return arms_;
}

nlohmann::json ModelBandit::ToJson() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::ostringstream rng;
  rng << rng_;
  nlohmann::json arms = nlohmann::json::array();
  for (const BanditArm& a : arms_)
    arms.push_back({{"name", a.name},
                    {"chosen", a.chosen},
                    {"rewarded", a.rewarded},
                    {"reward_sum", a.reward_sum},
                    {"dollars", a.dollars}});
  return {{"version", 1},
          {"policy", BanditPolicyName(options_.policy)},
          {"seed", options_.seed},
          {"rng", rng.str()},
          {"arms", arms}};
}

Status ModelBandit::LoadJson(const nlohmann::json& state) {
  auto bad = [](const std::string& msg) { return Status::InvalidArgument("bandit state: " + msg); };
  if (!state.is_object()) return bad("not a JSON object");
  auto v = state.find("version");
  if (v == state.end() || !v->is_number_integer() || v->get<int64_t>() != 1) return bad("'version' must be 1");
  auto arms_it = state.find("arms");
  if (arms_it == state.end() || !arms_it->is_array()) return bad("'arms' must be an array");

  std::lock_guard<std::mutex> lock(mu_);
  std::vector<BanditArm> next = arms_;
  for (BanditArm& a : next) a = BanditArm{a.name};
  for (const nlohmann::json& j : *arms_it) {
    if (!j.is_object() || !j.contains("name") || !j["name"].is_string()) return bad("each arm needs a string 'name'");
    BanditArm a{j["name"].get<std::string>()};
    for (const char* k : {"chosen", "rewarded"}) {
      if (!j.contains(k) || !j[k].is_number_integer() || j[k].get<int64_t>() < 0)
        return bad("arm '" + a.name + "': '" + k + "' must be an integer >= 0");
    }
    for (const char* k : {"reward_sum", "dollars"}) {
      if (!j.contains(k) || !j[k].is_number() || !(j[k].get<double>() >= 0))
        return bad("arm '" + a.name + "': '" + k + "' must be a number >= 0");
    }
    a.chosen = j["chosen"].get<int64_t>();
    a.rewarded = j["rewarded"].get<int64_t>();
    a.reward_sum = j["reward_sum"].get<double>();
    a.dollars = j["dollars"].get<double>();
    if (a.reward_sum > static_cast<double>(a.rewarded) + 1e-9)
      return bad("arm '" + a.name + "': reward_sum > rewarded");
    for (BanditArm& n : next)
      if (n.name == a.name) n = a;
  }
  std::mt19937_64 rng = rng_;
  if (state.contains("rng")) {
    if (!state["rng"].is_string()) return bad("'rng' must be a string");
    std::istringstream in(state["rng"].get<std::string>());
    in >> rng;
    if (in.fail()) return bad("'rng' is not an engine state");
  }
  arms_ = std::move(next);
  rng_ = rng;
  return Status::Ok();
}

}  // namespace cuco
