// The data the report's views are built from, computed from a run's candidates (RunData):
//   - the lineage: one node per candidate (parent, crossover's extra parents, island,
//     generation, verdict, time) and the migrations between islands (search.state);
//   - best-so-far series: the best verified time after each candidate, overall and per island,
//     against candidate number and wall-clock seconds since the run's first candidate;
//   - the design space: per knob (features_json) and value, how many were tried, passed and
//     failed (by verdict) and the distribution of the passing times;
//   - the failure table: failures grouped by verdict and reason (numbers folded so that the
//     same cause with different figures is one group), counted, largest first.
// Every function is pure; the JSON forms are what the page's script reads (docs/report.md).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/run_data.h"

namespace cuco {

struct LineageNode {
  int64_t id = 0, parent = 0;
  std::vector<int64_t> extra_parents;
  int island = 0, generation = 0;
  std::string status, mutation_kind, proposer;
  double time_ms = -1;
};
struct Migration {
  int generation = 0, from = 0, to = 0;
  int64_t id = 0;
};
struct Lineage {
  std::vector<LineageNode> nodes;
  std::vector<Migration> migrations;
};
Lineage BuildLineage(const RunData& run);

struct BestPoint {
  int64_t n = 0;       // 1-based position of the candidate in id order
  int64_t id = 0;      // the candidate that set the best
  double wall_s = 0;   // its finish time, seconds since the run's first candidate was created
  double best_ms = 0;
};
struct BestSeries {
  int island = -1;  // -1: the whole run
  std::vector<BestPoint> points;  // one per improvement
};
// The whole run first, then each island that has a verified candidate, ascending. Generation 0
// (the seed and the generation0 file) is every island's start: it counts for each island, so an
// island's curve starts at the seed's time, not at its own first candidate.
std::vector<BestSeries> BestSoFar(const RunData& run);

struct Distribution {
  int64_t count = 0;
  double min = -1, p10 = -1, median = -1, p90 = -1, max = -1;
};
Distribution Distribute(std::vector<double> values);

struct KnobValueStats {
  std::string value;
  int64_t tried = 0, ok = 0;
  std::map<std::string, int64_t> failed;  // verdict -> count
  Distribution time_ms;                   // of the passing ones
};
struct KnobStats {
  std::string knob;
  std::vector<KnobValueStats> values;  // numbers ascending, then text ascending
};
// Candidates that were not evaluated (pending, skipped) are left out.
std::vector<KnobStats> AggregateKnobs(const RunData& run);

// The knob values of one candidate from its features_json ({} when there is none).
std::map<std::string, std::string> CandidateKnobs(const CandidateRecord& c);

struct FailureGroup {
  std::string status, reason;  // reason with numbers folded to '#'
  std::string example;         // the first such reason, verbatim
  std::vector<int64_t> ids;
};
// Every candidate whose status is neither ok nor pending nor skipped.
std::vector<FailureGroup> GroupFailures(const RunData& run);
// A candidate's one-line reason: metrics_json's "reason", else its feedback's first line.
std::string CandidateReason(const CandidateRecord& c);
// The same from a record already parsed.
std::string ReasonOf(const nlohmann::json& metrics, const std::string& feedback);

nlohmann::json ToJson(const Lineage& l);
nlohmann::json ToJson(const std::vector<BestSeries>& s);
nlohmann::json ToJson(const std::vector<KnobStats>& k);
nlohmann::json ToJson(const std::vector<FailureGroup>& f);

}  // namespace cuco
