#include "workload/knob_tables.h"

#include <functional>
#include <regex>
#include <set>

#include "util/toml_reader.h"

namespace cuco {
namespace {

// A table of knob settings ({ backend = "ce", graph = "on" }) of `owner` (for messages): each knob
// declared in [[knobs]], each value one of its values. Values in an inline table carry no line of
// their own: errors name the `knobs =` line.
Status ParseKnobSettings(const TomlReader& r, const toml::node& kn, const std::vector<Knob>& knobs,
                         const std::string& owner, std::map<std::string, std::string>* out) {
  const toml::table* kt = kn.as_table();
  if (!kt) return r.Error(kn, owner + ": 'knobs' must be a table, e.g. { strategy = \"ring\", chunks = 4 }");
  for (const auto& [k, val] : *kt) {
    const std::string key(k.str());
    const Knob* decl = nullptr;
    for (const auto& d : knobs)
      if (d.name == key) decl = &d;
    if (!decl) return r.Error(kn, owner + " sets knob '" + key + "', which [[knobs]] does not declare");
    const std::string text = TomlScalarText(val);
    bool allowed = false;
    for (const auto& a : decl->values) allowed |= a == text;
    if (!allowed) return r.Error(kn, owner + ": '" + text + "' is not a value of knob '" + key + "'");
    (*out)[key] = text;
  }
  return Status::Ok();
}

// Calls `each` with a reader of every table of the array `node` ([[name]]); errors name the line.
Status ForEachTable(const toml::node& node, const std::string& path, const std::string& name,
                    const std::function<Status(TomlReader&)>& each) {
  const toml::array* arr = node.as_array();
  if (!arr) return Status::AtLine(path, TomlReader::LineOf(node), "'" + name + "' must be an array of tables ([[" + name + "]])");
  for (const toml::node& e : *arr) {
    const toml::table* t = e.as_table();
    if (!t) return Status::AtLine(path, TomlReader::LineOf(e), "each [[" + name + "]] entry must be a table");
    TomlReader r(*t, path, name);
    CUCO_RETURN_IF_ERROR(each(r));
  }
  return Status::Ok();
}

}  // namespace

Status ParseKnobs(const toml::node& knobs_node, const std::string& path, std::vector<Knob>* out) {
  std::set<std::string> names;
  return ForEachTable(knobs_node, path, "knobs", [&](TomlReader& r) -> Status {
    Knob k;
    CUCO_RETURN_IF_ERROR(r.Require("name"));
    CUCO_RETURN_IF_ERROR(r.String("name", &k.name));
    CUCO_RETURN_IF_ERROR(r.String("description", &k.description));
    CUCO_RETURN_IF_ERROR(r.Bool("search", &k.search));
    if (!std::regex_match(k.name, std::regex("[A-Za-z_][A-Za-z0-9_]*")))
      return r.ErrorAtTable("knob name '" + k.name + "' must be an identifier");
    if (!names.insert(k.name).second) return r.ErrorAtTable("knob '" + k.name + "' is declared twice");
    const toml::node* values = r.Get("values");
    if (!values || !values->as_array() || values->as_array()->empty())
      return r.ErrorAtTable("knob '" + k.name + "' needs a non-empty 'values' array");
    for (const toml::node& v : *values->as_array()) {
      std::string s = TomlScalarText(v);
      if (s.empty()) return r.Error(v, "knob '" + k.name + "' values must be strings, integers, floats or booleans");
      k.values.push_back(s);
    }
    const toml::node* def = r.Get("default");
    if (!def) return r.ErrorAtTable("knob '" + k.name + "' needs a 'default'");
    k.default_value = TomlScalarText(*def);
    bool listed = false;
    for (const auto& v : k.values) listed |= (v == k.default_value);
    if (!listed) return r.Error(*def, "default '" + k.default_value + "' of knob '" + k.name + "' is not among its values");
    CUCO_RETURN_IF_ERROR(r.RejectUnknown());
    out->push_back(std::move(k));
    return Status::Ok();
  });
}

Status ParseVariants(const toml::node& node, const std::string& path, const std::vector<Knob>& knobs,
                     std::vector<Variant>* out) {
  std::set<std::string> names;
  return ForEachTable(node, path, "variants", [&](TomlReader& r) -> Status {
    Variant v;
    v.line = r.Line();
    CUCO_RETURN_IF_ERROR(r.Require("name"));
    CUCO_RETURN_IF_ERROR(r.String("name", &v.name));
    CUCO_RETURN_IF_ERROR(r.String("description", &v.description));
    CUCO_RETURN_IF_ERROR(r.String("file", &v.file));
    CUCO_RETURN_IF_ERROR(r.String("part", &v.part));
    if (!std::regex_match(v.name, std::regex("[A-Za-z0-9_.-]+")))
      return r.ErrorAtTable("variant name '" + v.name + "' may hold only letters, digits, '_', '.' and '-'");
    if (!names.insert(v.name).second) return r.ErrorAtTable("variant '" + v.name + "' is declared twice");
    if (!v.part.empty() && v.part != "compute" && v.part != "comm")
      return r.Error(*r.Get("part"), "'variants.part' must be one of: compute, comm (got '" + v.part + "')");
    if (const toml::node* kn = r.Get("knobs"))
      CUCO_RETURN_IF_ERROR(ParseKnobSettings(r, *kn, knobs, "variant '" + v.name + "'", &v.knobs));
    CUCO_RETURN_IF_ERROR(r.RejectUnknown());
    out->push_back(std::move(v));
    return Status::Ok();
  });
}

Status ParseExclusions(const toml::node& node, const std::string& path, const std::vector<Knob>& knobs,
                       std::vector<KnobExclusion>* out) {
  return ForEachTable(node, path, "excluded", [&](TomlReader& r) -> Status {
    KnobExclusion x;
    x.line = r.Line();
    CUCO_RETURN_IF_ERROR(r.Require("knobs"));
    CUCO_RETURN_IF_ERROR(r.Require("why"));
    CUCO_RETURN_IF_ERROR(r.String("why", &x.why));
    CUCO_RETURN_IF_ERROR(ParseKnobSettings(r, *r.Get("knobs"), knobs, "[[excluded]]", &x.knobs));
    if (x.knobs.size() < 2)
      return r.ErrorAtTable("[[excluded]] names settings of at least two knobs (one value that never runs is left out "
                            "of the knob's values instead)");
    CUCO_RETURN_IF_ERROR(r.RejectUnknown());
    out->push_back(std::move(x));
    return Status::Ok();
  });
}

}  // namespace cuco
