#include "report/run_model.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>

#include "util/quantile.h"

namespace cuco {

using json = nlohmann::json;

namespace {

json ParseOr(const std::string& text, json fallback) {
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  return j.is_discarded() ? fallback : j;
}

bool Evaluated(const std::string& status) { return status != "pending" && status != "skipped"; }

std::string ValueText(const json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

// Numbers first (by value), then words.
bool ValueLess(const std::string& a, const std::string& b) {
  char *ea = nullptr, *eb = nullptr;
  const double x = std::strtod(a.c_str(), &ea), y = std::strtod(b.c_str(), &eb);
  const bool na = !a.empty() && *ea == '\0', nb = !b.empty() && *eb == '\0';
  if (na != nb) return na;
  if (na && x != y) return x < y;
  return a < b;
}

// Every word (a run of letters, digits, '.', '_') holding a digit becomes '#': figures, ranks,
// line numbers and hashed cache paths differ between failures of the same cause.
std::string FoldNumbers(const std::string& s) {
  auto word_char = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_'; };
  std::string out;
  for (size_t i = 0; i < s.size();) {
    if (!word_char(s[i])) {
      out += s[i++];
      continue;
    }
    size_t j = i;
    bool digit = false;
    for (; j < s.size() && word_char(s[j]); ++j) digit = digit || std::isdigit(static_cast<unsigned char>(s[j]));
    out += digit ? std::string("#") : s.substr(i, j - i);
    i = j;
  }
  return out;
}

json Num(double v) { return v < 0 || !std::isfinite(v) ? json(nullptr) : json(v); }

}  // namespace

Lineage BuildLineage(const RunData& run) {
  Lineage l;
  for (const auto& c : run.candidates)
    l.nodes.push_back({c.id, c.parent_id, c.extra_parent_ids, c.island, c.generation, c.status, c.mutation_kind,
                       c.proposer, c.time_ms});
  auto it = run.meta.find("search.state");
  if (it == run.meta.end()) return l;
  const json state = ParseOr(it->second, json::object());
  for (const auto& m : state.value("migrations", json::array()))
    if (m.is_array() && m.size() == 4 && m[3].is_number_integer())
      l.migrations.push_back({m[0].get<int>(), m[1].get<int>(), m[2].get<int>(), m[3].get<int64_t>()});
  return l;
}

std::vector<BestSeries> BestSoFar(const RunData& run) {
  std::vector<BestSeries> out{{-1, {}}};
  // Every island starts from generation 0 (the seed), so its curve does too: a generation-0
  // candidate counts for each island the search worked on.
  std::map<int, BestSeries> islands;
  for (const auto& c : run.candidates) islands.try_emplace(c.island, BestSeries{c.island, {}});
  const int64_t t0 = run.candidates.empty() ? 0 : run.candidates.front().created_ms;
  int64_t n = 0;
  for (const auto& c : run.candidates) {
    ++n;
    if (c.status != "ok" || c.time_ms < 0) continue;
    const double wall = static_cast<double>((c.finished_ms ? c.finished_ms : c.created_ms) - t0) / 1000.0;
    const BestPoint p{n, c.id, wall, c.time_ms};
    std::vector<BestSeries*> series = {&out[0]};
    if (c.generation == 0)
      for (auto& [island, s] : islands) series.push_back(&s);
    else
      series.push_back(&islands.at(c.island));
    for (BestSeries* s : series)
      if (s->points.empty() || c.time_ms < s->points.back().best_ms) s->points.push_back(p);
  }
  for (auto& [island, s] : islands)
    if (!s.points.empty()) out.push_back(std::move(s));
  return out;
}

Distribution Distribute(std::vector<double> v) {
  Distribution d;
  d.count = static_cast<int64_t>(v.size());
  if (v.empty()) return d;
  std::sort(v.begin(), v.end());
  d.min = v.front();
  d.max = v.back();
  d.p10 = Quantile(v, 0.1);
  d.median = Quantile(v, 0.5);
  d.p90 = Quantile(v, 0.9);
  return d;
}

std::map<std::string, std::string> CandidateKnobs(const CandidateRecord& c) {
  std::map<std::string, std::string> out;
  const json f = ParseOr(c.features_json, json::object());
  if (f.is_object())
    for (const auto& [k, v] : f.items()) out[k] = ValueText(v);
  return out;
}

std::vector<KnobStats> AggregateKnobs(const RunData& run) {
  std::map<std::string, std::map<std::string, std::pair<KnobValueStats, std::vector<double>>>> acc;
  for (const auto& c : run.candidates) {
    if (!Evaluated(c.status)) continue;
    for (const auto& [knob, value] : CandidateKnobs(c)) {
      auto& [s, times] = acc[knob][value];
      s.value = value;
      ++s.tried;
      if (c.status == "ok") {
        ++s.ok;
        if (c.time_ms >= 0) times.push_back(c.time_ms);
      } else {
        ++s.failed[c.status];
      }
    }
  }
  std::vector<KnobStats> out;
  for (auto& [knob, values] : acc) {
    KnobStats k{knob, {}};
    for (auto& [value, st] : values) {
      st.first.time_ms = Distribute(std::move(st.second));
      k.values.push_back(std::move(st.first));
    }
    std::sort(k.values.begin(), k.values.end(),
              [](const KnobValueStats& a, const KnobValueStats& b) { return ValueLess(a.value, b.value); });
    out.push_back(std::move(k));
  }
  return out;
}

std::string CandidateReason(const CandidateRecord& c) {
  // Only the top-level "reason" is kept while parsing (records are tens of KB).
  json m = json::parse(
      c.metrics_json,
      [](int depth, json::parse_event_t event, json& parsed) {
        return !(depth == 1 && event == json::parse_event_t::key && parsed != "reason");
      },
      false);
  return ReasonOf(m, c.feedback);
}

std::string ReasonOf(const json& m, const std::string& feedback) {
  std::string r = m.is_object() && m.contains("reason") && m["reason"].is_string() ? m["reason"].get<std::string>() : "";
  if (r.empty()) r = feedback.substr(0, feedback.find('\n'));
  return r;
}

std::vector<FailureGroup> GroupFailures(const RunData& run) {
  std::map<std::pair<std::string, std::string>, FailureGroup> groups;
  for (const auto& c : run.candidates) {
    if (c.status == "ok" || !Evaluated(c.status)) continue;
    const std::string reason = CandidateReason(c);
    auto& g = groups[{c.status, FoldNumbers(reason)}];
    if (g.ids.empty()) g = {c.status, FoldNumbers(reason), reason, {}};
    g.ids.push_back(c.id);
  }
  std::vector<FailureGroup> out;
  for (auto& [key, g] : groups) out.push_back(std::move(g));
  std::stable_sort(out.begin(), out.end(),
                   [](const FailureGroup& a, const FailureGroup& b) { return a.ids.size() > b.ids.size(); });
  return out;
}

json ToJson(const Lineage& l) {
  json nodes = json::array(), moves = json::array();
  for (const auto& n : l.nodes)
    nodes.push_back({{"id", n.id}, {"parent", n.parent}, {"extra_parents", n.extra_parents}, {"island", n.island},
                     {"generation", n.generation}, {"status", n.status}, {"mutation_kind", n.mutation_kind},
                     {"proposer", n.proposer}, {"time_ms", Num(n.time_ms)}});
  for (const auto& m : l.migrations)
    moves.push_back({{"generation", m.generation}, {"from", m.from}, {"to", m.to}, {"id", m.id}});
  return {{"nodes", nodes}, {"migrations", moves}};
}

json ToJson(const std::vector<BestSeries>& series) {
  json out = json::array();
  for (const auto& s : series) {
    json pts = json::array();
    for (const auto& p : s.points) pts.push_back({{"n", p.n}, {"id", p.id}, {"wall_s", p.wall_s}, {"best_ms", p.best_ms}});
    out.push_back({{"island", s.island}, {"points", pts}});
  }
  return out;
}

json ToJson(const std::vector<KnobStats>& knobs) {
  json out = json::array();
  for (const auto& k : knobs) {
    json values = json::array();
    for (const auto& v : k.values) {
      const auto& d = v.time_ms;
      values.push_back({{"value", v.value}, {"tried", v.tried}, {"ok", v.ok}, {"failed", v.failed},
                        {"time_ms", {{"count", d.count}, {"min", Num(d.min)}, {"p10", Num(d.p10)},
                                     {"median", Num(d.median)}, {"p90", Num(d.p90)}, {"max", Num(d.max)}}}});
    }
    out.push_back({{"knob", k.knob}, {"values", values}});
  }
  return out;
}

json ToJson(const std::vector<FailureGroup>& groups) {
  json out = json::array();
  for (const auto& g : groups)
    out.push_back({{"status", g.status}, {"reason", g.reason}, {"example", g.example}, {"count", g.ids.size()},
                   {"ids", g.ids}});
  return out;
}

}  // namespace cuco
