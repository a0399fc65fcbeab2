#include "report/export_rows.h"

#include <set>

#include "report/run_model.h"

namespace cuco {

using json = nlohmann::json;

namespace {

json ParsedOrText(const std::string& text) {
  if (text.empty()) return nullptr;
  json j = json::parse(text, nullptr, false);
  return j.is_discarded() ? json(text) : j;
}

json Row(const CandidateRecord& c, const std::vector<std::string>& knob_columns) {
  json r = json::object();
  r["id"] = c.id;
  r["parent_id"] = c.parent_id;
  r["extra_parent_ids"] = c.extra_parent_ids;
  r["island"] = c.island;
  r["generation"] = c.generation;
  r["status"] = c.status;
  r["reason"] = CandidateReason(c);
  r["time_ms"] = c.time_ms >= 0 ? json(c.time_ms) : json(nullptr);
  r["speedup"] = c.speedup > 0 ? json(c.speedup) : json(nullptr);
  r["mutation_kind"] = c.mutation_kind;
  r["proposer"] = c.proposer;
  r["code_hash"] = c.code_hash;
  r["run_id"] = c.run_id;
  r["created_ms"] = c.created_ms;
  r["finished_ms"] = c.finished_ms;
  r["feedback"] = c.feedback;
  r["features_json"] = ParsedOrText(c.features_json);
  r["metrics_json"] = ParsedOrText(c.metrics_json);
  r["diff_from_parent"] = c.diff_from_parent;
  r["code"] = c.code;
  r["logs"] = c.logs;
  const auto knobs = CandidateKnobs(c);
  for (const auto& col : knob_columns) {
    auto it = knobs.find(col.substr(5));
    r[col] = it == knobs.end() ? json(nullptr) : json(it->second);
  }
  return r;
}

std::vector<std::string> KnobColumns(const RunData& run) {
  std::set<std::string> names;
  for (const auto& c : run.candidates)
    for (const auto& [k, v] : CandidateKnobs(c)) names.insert("knob." + k);
  return {names.begin(), names.end()};
}

std::string CellText(const json& v) {
  if (v.is_null()) return "";
  if (v.is_string()) return v.get<std::string>();
  if (v.is_array() && (v.empty() || v[0].is_number())) {
    std::string s;
    for (const auto& x : v) {
      s += s.empty() ? "" : " ";
      s += x.dump();
    }
    return s;
  }
  return v.dump();
}

}  // namespace

std::vector<std::string> ExportColumns(const RunData& run) {
  std::vector<std::string> cols = kExportColumns;
  for (auto& k : KnobColumns(run)) cols.push_back(std::move(k));
  return cols;
}

json ExportJson(const RunData& run) {
  const auto knobs = KnobColumns(run);
  json out = json::array();
  for (const auto& c : run.candidates) out.push_back(Row(c, knobs));
  return out;
}

std::string CsvField(const std::string& s) {
  if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char ch : s) out += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return out + "\"";
}

std::string ExportCsv(const RunData& run) {
  const auto cols = ExportColumns(run);
  const auto knobs = KnobColumns(run);
  std::string out;
  for (size_t i = 0; i < cols.size(); ++i) {
    out += i ? "," : "";
    out += CsvField(cols[i]);
  }
  out += "\r\n";
  for (const auto& c : run.candidates) {
    const json r = Row(c, knobs);
    for (size_t i = 0; i < cols.size(); ++i) {
      out += i ? "," : "";
      out += CsvField(CellText(r[cols[i]]));
    }
    out += "\r\n";
  }
  return out;
}

}  // namespace cuco
