// GainCheck: before a search's summary claims that its best is faster than the seed, the two are
// evaluated again, alternately (seed, best, best, seed, ...: a drift of the machine in one
// direction falls on both), `rounds` times each, through the search's own evaluator. The gain the
// summary then states is the ratio of their medians over those rounds, and it is called confirmed
// only when the best was faster in every round: one evaluation of a program whose iterations spread
// widely ranks noise (one seed's median moved 1.6x between evaluations on an idle GPU).
#pragma once

#include <atomic>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "search/evolution.h"

namespace cuco {

// The store's meta key of the last session's check: GainCheck::ToJson with "best_id",
// "reference_id" and "line" (`cuco report` shows it).
inline constexpr const char* kMetaGainCheck = "search.gain_check";

struct GainCheckRound {
  double reference_ms = 0;  // the seed's median in this round
  double best_ms = 0;
};

struct GainCheck {
  int rounds_asked = 0;
  std::vector<GainCheckRound> rounds;  // the rounds in which both passed
  std::string stopped;                 // why it ended before `rounds_asked` ("" when it did not)

  // Ratio of the medians over the rounds (reference / best; 0 without a round), and the range of
  // the per-round ratios.
  double Ratio() const;
  double MinRatio() const;
  double MaxRatio() const;
  // Every asked round done, the best faster in each, and no round of it at the timer's floor.
  bool Confirmed() const;
  int RoundsBestFaster() const;
  // Rounds whose best median is the supervisor's floor (AtTimerFloor): a time shorter than the
  // supervisor can tell from its own overhead says nothing about speed, so no gain is claimed.
  int RoundsBestAtFloor() const;
  nlohmann::json ToJson() const;
  // One line for the summary: "re-timed against the seed in 3 alternating rounds: 1.25x (per round
  // 1.22x-1.27x), faster in every round: the gain holds".
  std::string Line(const std::string& reference_name) const;
};

// Evaluates `reference_code` and `best_code` alternately, `rounds` times each, under `dir`
// (round<i>-seed, round<i>-best; the label passed is "seed" or "best"). A round in which either does not pass (a verdict other than ok)
// ends the check, naming it; so does `stop` (Ctrl-C).
GainCheck CheckGain(const EvaluateFn& evaluate, const std::string& reference_code, const std::string& best_code,
                    const std::filesystem::path& dir, int rounds, const std::atomic<bool>* stop);

}  // namespace cuco
