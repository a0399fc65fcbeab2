#include "util/toml_reader.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <sstream>

#include "util/toml_guard.h"

namespace cuco {
namespace {

bool Listed(const std::vector<std::string>& allowed, const std::string& v) {
  return std::find(allowed.begin(), allowed.end(), v) != allowed.end();
}

template <typename T>
std::string RangeText(T min, std::optional<T> max) {
  std::ostringstream os;
  if (max)
    os << "must be in [" << min << ", " << *max << "]";
  else
    os << "must be >= " << min;
  return os.str();
}

}  // namespace

Result<toml::table> ParseToml(const std::string& text, const std::string& path) {
  CUCO_RETURN_IF_ERROR(CheckTomlForParser(text, path));
  toml::parse_result parsed = toml::parse(text, path);
  if (!parsed) {
    const toml::parse_error& err = parsed.error();
    return Status::AtLine(path, static_cast<int>(err.source().begin.line), std::string(err.description()));
  }
  return std::move(parsed).table();
}

std::string TomlScalarText(const toml::node& n) {
  if (n.is_string()) return *n.value<std::string>();
  if (n.is_integer()) return std::to_string(*n.value<int64_t>());
  if (n.is_boolean()) return *n.value<bool>() ? "true" : "false";
  if (n.is_floating_point()) {
    std::ostringstream os;
    os << *n.value<double>();
    return os.str();
  }
  return "";
}

std::string JoinChoices(const std::vector<std::string>& choices) {
  std::string list;
  for (const auto& c : choices) list += (list.empty() ? "" : ", ") + c;
  return list;
}

TomlReader::TomlReader(const toml::table& table, std::string path, std::string prefix)
    : table_(table), path_(std::move(path)), prefix_(std::move(prefix)) {}

int TomlReader::LineOf(const toml::node& node) { return static_cast<int>(node.source().begin.line); }

int TomlReader::Line() const { return LineOf(table_); }

int TomlReader::Line(const std::string& key) const {
  const toml::node* n = table_.get(key);
  return n ? LineOf(*n) : Line();
}

std::string TomlReader::Key(const std::string& key) const { return prefix_.empty() ? key : prefix_ + "." + key; }

Status TomlReader::Error(const toml::node& node, const std::string& msg) const {
  return Status::AtLine(path_, LineOf(node), msg);
}

Status TomlReader::ErrorAtTable(const std::string& msg) const { return Status::AtLine(path_, Line(), msg); }

const toml::node* TomlReader::Get(const std::string& key) {
  seen_.insert(key);
  return table_.get(key);
}

void TomlReader::Allow(const std::string& key) { seen_.insert(key); }

Status TomlReader::Require(const std::string& key) const {
  if (table_.get(key)) return Status::Ok();
  return ErrorAtTable("missing required key '" + Key(key) + "'");
}

Status TomlReader::String(const std::string& key, std::string* out) {
  const toml::node* n = Get(key);
  if (!n) return Status::Ok();
  if (!n->is_string()) return Error(*n, "'" + Key(key) + "' must be a string");
  *out = *n->value<std::string>();
  return Status::Ok();
}

Status TomlReader::OneOf(const std::string& key, std::string* out, const std::vector<std::string>& allowed) {
  std::string v;
  if (!table_.get(key)) return String(key, &v);
  CUCO_RETURN_IF_ERROR(String(key, &v));
  if (!Listed(allowed, v))
    return Error(*table_.get(key), "'" + Key(key) + "' must be one of: " + JoinChoices(allowed) + " (got '" + v + "')");
  *out = v;
  return Status::Ok();
}

Status TomlReader::Integer(const std::string& key, int64_t* out, int64_t min, std::optional<int64_t> max) {
  const toml::node* n = Get(key);
  if (!n) return Status::Ok();
  if (!n->is_integer()) return Error(*n, "'" + Key(key) + "' must be an integer");
  const int64_t v = *n->value<int64_t>();
  if (v < min || (max && v > *max)) return Error(*n, "'" + Key(key) + "' " + RangeText(min, max));
  *out = v;
  return Status::Ok();
}

Status TomlReader::Integer(const std::string& key, int* out, int64_t min, std::optional<int64_t> max) {
  int64_t v = *out;
  const toml::node* n = table_.get(key);
  CUCO_RETURN_IF_ERROR(Integer(key, &v, min, max));
  if (v > INT_MAX) return Error(*n, "'" + Key(key) + "' " + RangeText<int64_t>(min, INT_MAX));
  *out = static_cast<int>(v);
  return Status::Ok();
}

Status TomlReader::Number(const std::string& key, double* out, double min, std::optional<double> max) {
  const toml::node* n = Get(key);
  if (!n) return Status::Ok();
  if (!n->is_number()) return Error(*n, "'" + Key(key) + "' must be a number");
  const double v = n->is_integer() ? static_cast<double>(*n->value<int64_t>()) : *n->value<double>();
  const bool in_range = max ? (v >= min && v <= *max) : (std::isfinite(v) && v >= min);
  if (!in_range) return Error(*n, "'" + Key(key) + "' " + RangeText(min, max));
  *out = v;
  return Status::Ok();
}

Status TomlReader::Bool(const std::string& key, bool* out) {
  const toml::node* n = Get(key);
  if (!n) return Status::Ok();
  if (!n->is_boolean()) return Error(*n, "'" + Key(key) + "' must be true or false");
  *out = *n->value<bool>();
  return Status::Ok();
}

Status TomlReader::StringArray(const std::string& key, std::vector<std::string>* out,
                               const std::vector<std::string>& allowed) {
  const toml::node* n = Get(key);
  if (!n) return Status::Ok();
  const toml::array* a = n->as_array();
  if (!a) return Error(*n, "'" + Key(key) + "' must be an array of strings");
  std::vector<std::string> values;
  for (const toml::node& e : *a) {
    if (!e.is_string()) return Error(e, "'" + Key(key) + "' must hold only strings");
    std::string v = *e.value<std::string>();
    if (!allowed.empty() && !Listed(allowed, v))
      return Error(e, "'" + Key(key) + "': '" + v + "' is not one of: " + JoinChoices(allowed));
    values.push_back(std::move(v));
  }
  *out = std::move(values);
  return Status::Ok();
}

Status TomlReader::Table(const std::string& key, const toml::table** out) {
  *out = nullptr;
  const toml::node* n = Get(key);
  if (!n) return Status::Ok();
  if (!n->is_table()) return Error(*n, "'" + Key(key) + "' must be a table ([" + Key(key) + "])");
  *out = n->as_table();
  return Status::Ok();
}

Status TomlReader::RejectUnknown() const {
  for (const auto& [k, v] : table_) {
    const std::string key(k.str());
    if (!seen_.count(key)) return Error(v, "unknown key '" + Key(key) + "'");
  }
  return Status::Ok();
}

}  // namespace cuco
