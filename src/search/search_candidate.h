// SearchCandidate: one stored candidate as the search holds it in memory (the store's row, logs
// left out), with the knob values marked in its code and the "search" object of its metrics_json
// (slot, attempt, role, description, reason, ...). Rows read back from the store rebuild exactly
// what was inserted (FromRecord), so a resumed search sees what the killed one saw.
#pragma once

#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "propose/proposer.h"
#include "store/candidate_store.h"

namespace cuco {

struct SearchCandidate {
  CandidateRecord rec;
  std::map<std::string, std::string> knobs;
  nlohmann::json search = nlohmann::json::object();
  bool not_evaluated = false;  // skipped by the novelty filter: never counted, never evaluated

  bool Ok() const { return rec.status == "ok" && rec.time_ms > 0; }
  bool Final() const { return rec.status != "pending"; }
  bool Failed() const { return Final() && !not_evaluated && rec.status != "ok" && rec.status != "skipped"; }
  // The first line of search["reason"], else of `fallback`'s first line.
  std::string ReasonLine(const std::string& fallback = "") const;
  // What a proposer sees of it.
  CandidateView View() const;
  // metrics_json and features_json as stored for a new candidate (from search and knobs).
  void FillStoredJson();

  // A store row (its logs dropped) with knobs and search object read back from its JSON.
  static SearchCandidate FromRecord(CandidateRecord r);
};

// knob -> value as marked in `code`; empty when its marks don't parse.
std::map<std::string, std::string> KnobsOf(const std::string& code);
// `text` parsed as JSON; `fallback` when it is empty or not JSON.
nlohmann::json ParseJsonOr(const std::string& text, nlohmann::json fallback);

}  // namespace cuco
