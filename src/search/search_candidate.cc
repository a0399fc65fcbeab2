#include "search/search_candidate.h"

#include "workload/knob_marks.h"

namespace cuco {

using json = nlohmann::json;

namespace {

std::string FirstLine(const std::string& s) {
  size_t nl = s.find('\n');
  return nl == std::string::npos ? s : s.substr(0, nl);
}

}  // namespace

std::string SearchCandidate::ReasonLine(const std::string& fallback) const {
  return FirstLine(search.value("reason", fallback));
}

CandidateView SearchCandidate::View() const {
  CandidateView v;
  v.id = rec.id;
  v.code = rec.code;
  v.status = rec.status;
  v.time_ms = rec.time_ms;
  v.speedup = rec.speedup;
  v.feedback = rec.feedback;
  v.knobs = knobs;
  v.mutation_kind = rec.mutation_kind;
  return v;
}

void SearchCandidate::FillStoredJson() {
  json m = json::object();
  m["search"] = search;
  rec.metrics_json = m.dump();
  json f = json::object();
  for (const auto& [k, v] : knobs) f[k] = v;
  rec.features_json = f.dump();
}

SearchCandidate SearchCandidate::FromRecord(CandidateRecord r) {
  SearchCandidate c;
  r.logs.clear();
  c.rec = std::move(r);
  json m = ParseJsonOr(c.rec.metrics_json, json::object());
  if (m.is_object() && m.contains("search")) c.search = m["search"];
  c.not_evaluated = c.search.is_object() && c.search.contains("not_evaluated");
  json f = ParseJsonOr(c.rec.features_json, json::object());
  if (f.is_object())
    for (const auto& [k, v] : f.items())
      if (v.is_string()) c.knobs[k] = v.get<std::string>();
  return c;
}

std::map<std::string, std::string> KnobsOf(const std::string& code) {
  auto marks = FindKnobMarks(code, "candidate");
  return marks.ok() ? KnobValues(*marks) : std::map<std::string, std::string>{};
}

json ParseJsonOr(const std::string& text, json fallback) {
  if (text.empty()) return fallback;
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  return j.is_discarded() ? fallback : j;
}

}  // namespace cuco
