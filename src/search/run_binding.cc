#include "search/run_binding.h"

#include <sstream>

#include <fmt/format.h>

#include "util/clock.h"
#include "util/files.h"
#include "util/sha256.h"
#include "util/toml_reader.h"

namespace cuco {
namespace {

using json = nlohmann::json;

// Every leaf of a TOML table as "a.b.c" (arrays of tables as "a[i].b") -> its value written as TOML.
void FlattenToml(const toml::table& t, const std::string& prefix, std::map<std::string, std::string>* out) {
  for (const auto& [key, node] : t) {
    const std::string path = prefix.empty() ? std::string(key.str()) : prefix + "." + std::string(key.str());
    if (const toml::table* sub = node.as_table()) {
      FlattenToml(*sub, path, out);
    } else if (const toml::array* arr = node.as_array(); arr != nullptr && !arr->empty() && arr->is_array_of_tables()) {
      for (size_t i = 0; i < arr->size(); ++i)
        FlattenToml(*arr->get(i)->as_table(), path + "[" + std::to_string(i) + "]", out);
    } else {
      std::ostringstream value;
      node.visit([&](const auto& n) { value << n; });
      (*out)[path] = value.str();
    }
  }
}

Result<std::map<std::string, std::string>> FlattenTomlText(const std::string& text, const std::string& where) {
  auto table = ParseToml(text, where);
  if (!table.ok()) return table.status();
  std::map<std::string, std::string> out;
  FlattenToml(*table, "", &out);
  return out;
}

// Run config keys that say how much to spend or where to run, not what is measured or searched.
bool UnboundConfigKey(const std::string& k) {
  return k.rfind("budget.", 0) == 0 || k == "launcher" || k.rfind("slurm.", 0) == 0 || k == "parallelism.evaluations" ||
         k == "parallelism.compiles";
}

std::map<std::string, std::string> StringMap(const json& j) {
  std::map<std::string, std::string> m;
  if (j.is_object())
    for (const auto& [k, v] : j.items())
      if (v.is_string()) m[k] = v.get<std::string>();
  return m;
}

// "label key: a -> b", "label key: added (b)", "label key: removed (was a)".
void DiffMaps(const std::string& label, const std::map<std::string, std::string>& was,
              const std::map<std::string, std::string>& now, std::vector<std::string>* out) {
  for (const auto& [k, v] : was) {
    auto it = now.find(k);
    if (it == now.end()) out->push_back(fmt::format("{} {}: removed (was {})", label, k, v));
    else if (it->second != v) out->push_back(fmt::format("{} {}: {} -> {}", label, k, v, it->second));
  }
  for (const auto& [k, v] : now)
    if (!was.count(k)) out->push_back(fmt::format("{} {}: added ({})", label, k, v));
}

}  // namespace

json RunBinding::ToJson() const { return {{"version", 1}, {"files", files}, {"workload", workload}, {"config", config}}; }

Result<RunBinding> RunBinding::FromJson(const std::string& text, const std::string& where) {
  json j = json::parse(text, nullptr, false);
  if (!j.is_object() || j.value("version", 0) != 1) return Status::InvalidArgument(where + ": unreadable run binding");
  RunBinding b;
  b.files = StringMap(j.value("files", json::object()));
  b.workload = StringMap(j.value("workload", json::object()));
  b.config = StringMap(j.value("config", json::object()));
  return b;
}

Result<RunBinding> BindRun(const WorkloadConfig& w, const RunConfig& config) {
  RunBinding b;
  std::vector<std::string> names = {w.seed_file};  // workload.toml is bound by its fields (below)
  if (!w.reference_file.empty()) names.push_back(w.reference_file);
  if (!w.generation0_file.empty()) names.push_back(w.generation0_file);
  names.insert(names.end(), w.build_sources.begin(), w.build_sources.end());
  for (const std::string& name : names) {
    auto text = ReadFile(w.dir / name);
    if (!text.ok()) return text.status();
    b.files[name] = Sha256Hex(*text);
  }
  if (!w.toml_path.empty()) {  // (a workload made in memory, as tests do, has none)
    auto toml_text = ReadFile(w.toml_path);
    if (!toml_text.ok()) return toml_text.status();
    auto fields = FlattenTomlText(*toml_text, w.toml_path.string());
    if (!fields.ok()) return fields.status();
    b.workload = std::move(*fields);
  }
  auto cfg = FlattenTomlText(RunConfigToToml(config), "(the run config)");
  if (!cfg.ok()) return cfg.status();
  for (auto& [k, v] : *cfg)
    if (!UnboundConfigKey(k)) b.config[k] = std::move(v);
  return b;
}

std::vector<std::string> BindingChanges(const RunBinding& was, const RunBinding& now) {
  std::vector<std::string> out;
  for (const auto& [name, hash] : was.files) {
    auto it = now.files.find(name);
    if (it == now.files.end()) out.push_back(fmt::format("{}: no longer one of the workload's files", name));
    else if (it->second != hash)
      out.push_back(fmt::format("{} changed (sha256 {} -> {})", name, hash.substr(0, 12), it->second.substr(0, 12)));
  }
  for (const auto& [name, hash] : now.files)
    if (!was.files.count(name)) out.push_back(fmt::format("{}: a new file of the workload", name));
  DiffMaps("workload.toml", was.workload, now.workload, &out);
  DiffMaps("config.toml", was.config, now.config, &out);
  return out;
}

Status CheckResumedConfigText(const std::string& text, const std::string& path) {
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    const size_t first = line.find_first_not_of(" \t\r");
    if (first != std::string::npos && line[first] != '#') return Status::Ok();
  }
  return Status::InvalidArgument(
      path + ": empty: cuco wrote every key of the run's config here; resuming with nothing would run every default. "
             "Restore it (the store keeps the text it started with: meta search.config), or start a new run");
}

Result<BindingOutcome> BindStore(CandidateStore& store, const RunBinding& now, bool resuming, bool accept_changes) {
  BindingOutcome out;
  auto recorded = store.GetMeta(kMetaBinding);
  if (!recorded.ok()) return recorded.status();
  auto lineages_text = store.GetMeta(kMetaLineages);
  if (!lineages_text.ok()) return lineages_text.status();
  json lineages = lineages_text->has_value() ? json::parse(**lineages_text, nullptr, false) : json::array();
  if (!lineages.is_array()) return Status::InvalidArgument(store.path() + ": unreadable meta " + kMetaLineages);
  auto max_id = store.MaxId();
  if (!max_id.ok()) return max_id.status();
  if (!lineages.empty() && lineages.back().is_object()) out.lineage = lineages.back().value("lineage", 1);

  if (!recorded->has_value()) {  // a new run, or one from before bindings: bound from now on
    out.bound_now = resuming;
    if (lineages.empty())
      lineages.push_back({{"lineage", 1}, {"from_id", *max_id + 1}, {"time_ms", NowMs()},
                          {"changes", json::array()},
                          {"note", resuming ? "bound when resumed (the run began before cuco recorded bindings)" : ""}});
    CUCO_RETURN_IF_ERROR(store.Transaction([&](CandidateStore& st) -> Status {
      CUCO_RETURN_IF_ERROR(st.PutMeta(kMetaBinding, now.ToJson().dump()));
      return st.PutMeta(kMetaLineages, lineages.dump());
    }));
    return out;
  }
  auto was = RunBinding::FromJson(**recorded, store.path() + " (meta " + kMetaBinding + ")");
  if (!was.ok()) return was.status();
  out.changes = BindingChanges(*was, now);
  if (out.changes.empty()) return out;
  if (!accept_changes) {
    std::string list;
    for (const std::string& c : out.changes) list += "\n  " + c;
    return Status::InvalidArgument(fmt::format(
        "{}: the run was recorded measuring something else, and its candidates were judged by it; changed since:{}\n"
        "Put them back, start a new run, or resume with --accept-changes to go on as a new lineage (recorded in the "
        "store and shown by `cuco report`).",
        store.path(), list));
  }
  out.lineage += 1;
  out.new_lineage = true;
  lineages.push_back(
      {{"lineage", out.lineage}, {"from_id", *max_id + 1}, {"time_ms", NowMs()}, {"changes", out.changes}});
  CUCO_RETURN_IF_ERROR(store.Transaction([&](CandidateStore& st) -> Status {
    CUCO_RETURN_IF_ERROR(st.PutMeta(kMetaBinding, now.ToJson().dump()));
    return st.PutMeta(kMetaLineages, lineages.dump());
  }));
  return out;
}

}  // namespace cuco
