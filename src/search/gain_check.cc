#include "search/gain_check.h"

#include <algorithm>

#include <fmt/format.h>

#include "evaluate/outcome.h"
#include "util/quantile.h"

namespace cuco {

namespace {

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return Quantile(v, 0.5);
}

std::vector<double> RoundRatios(const std::vector<GainCheckRound>& rounds) {
  std::vector<double> r;
  for (const auto& x : rounds) r.push_back(x.best_ms > 0 ? x.reference_ms / x.best_ms : 0);
  return r;
}

}  // namespace

double GainCheck::Ratio() const {
  std::vector<double> ref, best;
  for (const auto& x : rounds) {
    ref.push_back(x.reference_ms);
    best.push_back(x.best_ms);
  }
  const double b = Median(best);
  return b > 0 ? Median(ref) / b : 0;
}

double GainCheck::MinRatio() const {
  const auto r = RoundRatios(rounds);
  return r.empty() ? 0 : *std::min_element(r.begin(), r.end());
}

double GainCheck::MaxRatio() const {
  const auto r = RoundRatios(rounds);
  return r.empty() ? 0 : *std::max_element(r.begin(), r.end());
}

int GainCheck::RoundsBestFaster() const {
  int n = 0;
  for (const auto& x : rounds) n += x.best_ms < x.reference_ms ? 1 : 0;
  return n;
}

int GainCheck::RoundsBestAtFloor() const {
  return static_cast<int>(std::count_if(rounds.begin(), rounds.end(), [](const GainCheckRound& x) { return AtTimerFloor(x.best_ms); }));
}

bool GainCheck::Confirmed() const {
  return rounds_asked > 0 && static_cast<int>(rounds.size()) == rounds_asked && RoundsBestFaster() == rounds_asked &&
         RoundsBestAtFloor() == 0;
}

nlohmann::json GainCheck::ToJson() const {
  nlohmann::json j = {{"rounds_asked", rounds_asked}, {"ratio", Ratio()},
                      {"min_ratio", MinRatio()},      {"max_ratio", MaxRatio()},
                      {"best_faster_rounds", RoundsBestFaster()}, {"best_at_timer_floor_rounds", RoundsBestAtFloor()},
                      {"confirmed", Confirmed()}};
  j["rounds"] = nlohmann::json::array();
  for (const auto& x : rounds) j["rounds"].push_back({{"reference_ms", x.reference_ms}, {"best_ms", x.best_ms}});
  if (!stopped.empty()) j["stopped"] = stopped;
  return j;
}

std::string GainCheck::Line(const std::string& reference_name) const {
  if (rounds.empty())
    return fmt::format("not re-timed against the {}: {}", reference_name, stopped.empty() ? "no round done" : stopped);
  std::string s = fmt::format("re-timed against the {} in {} alternating round(s): {:.2f}x (per round {:.2f}x-{:.2f}x)",
                              reference_name, rounds.size(), Ratio(), MinRatio(), MaxRatio());
  if (Confirmed()) return s + ", faster in every round: the gain holds";
  if (const int floor = RoundsBestAtFloor(); floor > 0)
    return s + fmt::format(", the best at the timer's floor ({} ms) in {} of {}: NOT a confirmed gain (its iteration is "
                           "shorter than cuco can time; bench a larger size)",
                           kTimerResolutionMs, floor, rounds.size());
  const int faster = RoundsBestFaster();
  s += fmt::format(", faster in {} of {}", faster, rounds.size());
  if (!stopped.empty()) s += " (" + stopped + ")";
  return s + ": NOT a confirmed gain (the difference is within the timing's noise)";
}

GainCheck CheckGain(const EvaluateFn& evaluate, const std::string& reference_code, const std::string& best_code,
                    const std::filesystem::path& dir, int rounds, const std::atomic<bool>* stop) {
  GainCheck g;
  g.rounds_asked = rounds;
  for (int i = 0; i < rounds; ++i) {
    GainCheckRound round;
    // seed first in even rounds, the best first in odd ones
    const bool reference_first = i % 2 == 0;
    for (int k = 0; k < 2; ++k) {
      if (stop != nullptr && stop->load()) {
        g.stopped = "stopped by the interrupt";
        return g;
      }
      const bool is_reference = (k == 0) == reference_first;
      const std::string who = is_reference ? "seed" : "best";
      EvalRecord r = evaluate(is_reference ? reference_code : best_code, who, dir / fmt::format("round{}-{}", i + 1, who),
                              /*best_hi_ms=*/0);  // each round timed to full precision
      if (r.interrupted) {
        g.stopped = "stopped by the interrupt";
        return g;
      }
      if (r.status != EvalStatus::kOk || !(r.timing.median_ms > 0)) {
        g.stopped = fmt::format("round {}: the {} was {}{}", i + 1, who, EvalStatusName(r.status),
                                r.reason.empty() ? "" : " (" + r.reason + ")");
        return g;
      }
      (is_reference ? round.reference_ms : round.best_ms) = r.timing.median_ms;
    }
    g.rounds.push_back(round);
  }
  return g;
}

}  // namespace cuco
