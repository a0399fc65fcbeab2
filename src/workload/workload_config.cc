#include "workload/workload_config.h"

#include <toml++/toml.h>

#include <cstdlib>
#include <regex>
#include <set>
#include <sstream>

#include "util/files.h"
#include "util/text.h"
#include "util/toml_guard.h"
#include "workload/knob_marks.h"

namespace cuco {
namespace {

// Reads one table's keys with file:line errors; records which keys it saw so
// unknown (misspelt) keys can be reported.
class TableReader {
 public:
  TableReader(const toml::table& t, std::string path, std::string prefix)
      : t_(t), path_(std::move(path)), prefix_(std::move(prefix)) {}

  int Line(const toml::node& n) const { return static_cast<int>(n.source().begin.line); }
  int TableLine() const { return static_cast<int>(t_.source().begin.line); }
  Status Error(const toml::node& n, const std::string& msg) const { return Status::AtLine(path_, Line(n), msg); }
  Status ErrorAtTable(const std::string& msg) const { return Status::AtLine(path_, TableLine(), msg); }
  std::string Key(const std::string& k) const { return prefix_.empty() ? k : prefix_ + "." + k; }

  const toml::node* Get(const std::string& key) {
    seen_.insert(key);
    return t_.get(key);
  }

  Status String(const std::string& key, std::string* out, bool required) {
    const toml::node* n = Get(key);
    if (!n) return required ? ErrorAtTable("missing required key '" + Key(key) + "'") : Status::Ok();
    if (!n->is_string()) return Error(*n, "'" + Key(key) + "' must be a string");
    *out = *n->value<std::string>();
    return Status::Ok();
  }

  Status Int(const std::string& key, int64_t* out, bool required, int64_t min_value) {
    const toml::node* n = Get(key);
    if (!n) return required ? ErrorAtTable("missing required key '" + Key(key) + "'") : Status::Ok();
    if (!n->is_integer()) return Error(*n, "'" + Key(key) + "' must be an integer");
    int64_t v = *n->value<int64_t>();
    if (v < min_value) return Error(*n, "'" + Key(key) + "' must be >= " + std::to_string(min_value));
    *out = v;
    return Status::Ok();
  }

  Status Int(const std::string& key, int* out, bool required, int64_t min_value) {
    int64_t v = *out;
    CUCO_RETURN_IF_ERROR(Int(key, &v, required, min_value));
    *out = static_cast<int>(v);
    return Status::Ok();
  }

  Status Number(const std::string& key, double* out, bool required, double min_value, double max_value) {
    const toml::node* n = Get(key);
    if (!n) return required ? ErrorAtTable("missing required key '" + Key(key) + "'") : Status::Ok();
    if (!n->is_number()) return Error(*n, "'" + Key(key) + "' must be a number");
    double v = n->is_integer() ? static_cast<double>(*n->value<int64_t>()) : *n->value<double>();
    if (!(v >= min_value && v <= max_value)) {
      std::ostringstream os;
      os << "'" << Key(key) << "' must be in [" << min_value << ", " << max_value << "]";
      return Error(*n, os.str());
    }
    *out = v;
    return Status::Ok();
  }

  Status StringList(const std::string& key, std::vector<std::string>* out) {
    const toml::node* n = Get(key);
    if (!n) return Status::Ok();
    const toml::array* a = n->as_array();
    if (!a) return Error(*n, "'" + Key(key) + "' must be an array of strings");
    out->clear();
    for (const toml::node& e : *a) {
      if (!e.is_string()) return Error(e, "'" + Key(key) + "' must hold only strings");
      out->push_back(*e.value<std::string>());
    }
    return Status::Ok();
  }

  // Any key present but never asked for is a mistake (most often a typo).
  Status RejectUnknown() const {
    for (const auto& [k, v] : t_) {
      std::string key(k.str());
      if (!seen_.count(key)) return Status::AtLine(path_, Line(v), "unknown key '" + Key(key) + "'");
    }
    return Status::Ok();
  }

 private:
  const toml::table& t_;
  std::string path_;
  std::string prefix_;
  std::set<std::string> seen_;
};

// Scalar TOML value as plain text: 32, 0.5, true, chunked.
std::string ScalarText(const toml::node& n) {
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

Status ParseSizes(TableReader& parent, const toml::table& sizes_table, const std::string& path,
                  const std::string& stage, std::map<std::string, int64_t>* out) {
  const toml::node* n = sizes_table.get(stage);
  if (!n) return parent.ErrorAtTable("missing table [sizes." + stage + "]");
  const toml::table* t = n->as_table();
  if (!t) return Status::AtLine(path, static_cast<int>(n->source().begin.line), "'sizes." + stage + "' must be a table");
  for (const auto& [k, v] : *t) {
    int line = static_cast<int>(v.source().begin.line);
    if (!v.is_integer()) return Status::AtLine(path, line, "size 'sizes." + stage + "." + std::string(k.str()) + "' must be an integer");
    int64_t value = *v.value<int64_t>();
    if (value < 0) return Status::AtLine(path, line, "size 'sizes." + stage + "." + std::string(k.str()) + "' must be >= 0");
    (*out)[std::string(k.str())] = value;
  }
  return Status::Ok();
}

Status ParseKnobs(const toml::node& knobs_node, const std::string& path, std::vector<Knob>* out) {
  const toml::array* arr = knobs_node.as_array();
  if (!arr) return Status::AtLine(path, static_cast<int>(knobs_node.source().begin.line), "'knobs' must be an array of tables ([[knobs]])");
  std::set<std::string> names;
  for (const toml::node& e : *arr) {
    const toml::table* t = e.as_table();
    if (!t) return Status::AtLine(path, static_cast<int>(e.source().begin.line), "each [[knobs]] entry must be a table");
    TableReader r(*t, path, "knobs");
    Knob k;
    CUCO_RETURN_IF_ERROR(r.String("name", &k.name, true));
    CUCO_RETURN_IF_ERROR(r.String("description", &k.description, false));
    if (const toml::node* sn = r.Get("search")) {
      if (!sn->is_boolean()) return r.Error(*sn, "'knobs.search' must be true or false");
      k.search = *sn->value<bool>();
    }
    if (!std::regex_match(k.name, std::regex("[A-Za-z_][A-Za-z0-9_]*")))
      return r.ErrorAtTable("knob name '" + k.name + "' must be an identifier");
    if (!names.insert(k.name).second) return r.ErrorAtTable("knob '" + k.name + "' is declared twice");
    const toml::node* values = r.Get("values");
    if (!values || !values->as_array() || values->as_array()->empty())
      return r.ErrorAtTable("knob '" + k.name + "' needs a non-empty 'values' array");
    for (const toml::node& v : *values->as_array()) {
      std::string s = ScalarText(v);
      if (s.empty()) return r.Error(v, "knob '" + k.name + "' values must be strings, integers, floats or booleans");
      k.values.push_back(s);
    }
    const toml::node* def = r.Get("default");
    if (!def) return r.ErrorAtTable("knob '" + k.name + "' needs a 'default'");
    k.default_value = ScalarText(*def);
    bool listed = false;
    for (const auto& v : k.values) listed |= (v == k.default_value);
    if (!listed) return r.Error(*def, "default '" + k.default_value + "' of knob '" + k.name + "' is not among its values");
    CUCO_RETURN_IF_ERROR(r.RejectUnknown());
    out->push_back(std::move(k));
  }
  return Status::Ok();
}

Status ParseVariants(const toml::node& node, const std::string& path, const std::vector<Knob>& knobs,
                     std::vector<Variant>* out) {
  const toml::array* arr = node.as_array();
  if (!arr) return Status::AtLine(path, static_cast<int>(node.source().begin.line), "'variants' must be an array of tables ([[variants]])");
  std::set<std::string> names;
  for (const toml::node& e : *arr) {
    const toml::table* t = e.as_table();
    if (!t) return Status::AtLine(path, static_cast<int>(e.source().begin.line), "each [[variants]] entry must be a table");
    TableReader r(*t, path, "variants");
    Variant v;
    v.line = r.TableLine();
    CUCO_RETURN_IF_ERROR(r.String("name", &v.name, true));
    CUCO_RETURN_IF_ERROR(r.String("description", &v.description, false));
    CUCO_RETURN_IF_ERROR(r.String("file", &v.file, false));
    CUCO_RETURN_IF_ERROR(r.String("part", &v.part, false));
    if (!std::regex_match(v.name, std::regex("[A-Za-z0-9_.-]+")))
      return r.ErrorAtTable("variant name '" + v.name + "' may hold only letters, digits, '_', '.' and '-'");
    if (!names.insert(v.name).second) return r.ErrorAtTable("variant '" + v.name + "' is declared twice");
    if (!v.part.empty() && v.part != "compute" && v.part != "comm")
      return r.Error(*t->get("part"), "'variants.part' must be \"compute\" or \"comm\"");
    if (const toml::node* kn = r.Get("knobs")) {
      const toml::table* kt = kn->as_table();
      if (!kt) return r.Error(*kn, "'variants.knobs' must be a table, e.g. { strategy = \"ring\", chunks = 4 }");
      for (const auto& [k, val] : *kt) {
        const std::string key(k.str());
        const Knob* decl = nullptr;
        for (const auto& d : knobs)
          if (d.name == key) decl = &d;
        // (values inside an inline table carry no line of their own: name the `knobs =` line)
        if (!decl) return r.Error(*kn, "variant '" + v.name + "' sets knob '" + key + "', which [[knobs]] does not declare");
        const std::string text = ScalarText(val);
        bool allowed = false;
        for (const auto& a : decl->values) allowed |= a == text;
        if (!allowed) return r.Error(*kn, "variant '" + v.name + "': '" + text + "' is not a value of knob '" + key + "'");
        v.knobs[key] = text;
      }
    }
    CUCO_RETURN_IF_ERROR(r.RejectUnknown());
    out->push_back(std::move(v));
  }
  return Status::Ok();
}

Status CheckRegex(const TableReader& r, const toml::node* n, const std::string& key, const std::string& re) {
  if (re.empty()) return Status::Ok();
  try {
    std::regex compiled(re, std::regex::ECMAScript);
    if (key == "time_regex" && compiled.mark_count() < 1)
      return r.Error(*n, "'program.time_regex' needs one capture group holding the milliseconds");
  } catch (const std::regex_error& e) {
    return r.Error(*n, "'program." + key + "' is not a valid regular expression: " + e.what());
  }
  return Status::Ok();
}

Status ParseProgram(const toml::table& t, const std::string& path, ProgramSpec* out) {
  TableReader r(t, path, "program");
  CUCO_RETURN_IF_ERROR(r.String("launcher", &out->launcher, false));
  if (out->launcher != "cuco" && out->launcher != "mpirun")
    return r.Error(*t.get("launcher"), "'program.launcher' must be \"cuco\" or \"mpirun\"");
  CUCO_RETURN_IF_ERROR(r.StringList("args", &out->args));
  CUCO_RETURN_IF_ERROR(r.String("time_regex", &out->time_regex, true));
  CUCO_RETURN_IF_ERROR(r.String("pass_regex", &out->pass_regex, true));
  CUCO_RETURN_IF_ERROR(r.String("fail_regex", &out->fail_regex, false));
  CUCO_RETURN_IF_ERROR(CheckRegex(r, t.get("time_regex"), "time_regex", out->time_regex));
  CUCO_RETURN_IF_ERROR(CheckRegex(r, t.get("pass_regex"), "pass_regex", out->pass_regex));
  CUCO_RETURN_IF_ERROR(CheckRegex(r, t.get("fail_regex"), "fail_regex", out->fail_regex));
  return r.RejectUnknown();
}

// Returns the sub-table at `key`, or nullptr when absent; an error when present but not a table.
Status SubTable(TableReader& r, const std::string& key, const toml::table** out) {
  *out = nullptr;
  const toml::node* n = r.Get(key);
  if (!n) return Status::Ok();
  if (!n->as_table()) return r.Error(*n, "'" + key + "' must be a table ([" + key + "])");
  *out = n->as_table();
  return Status::Ok();
}

}  // namespace

const Knob* WorkloadConfig::FindKnob(const std::string& knob_name) const {
  for (const auto& k : knobs)
    if (k.name == knob_name) return &k;
  return nullptr;
}

Result<WorkloadConfig> ParseWorkload(const std::string& text, const std::filesystem::path& toml_path) {
  const std::string path = toml_path.string();
  CUCO_RETURN_IF_ERROR(CheckTomlForParser(text, path));
  toml::parse_result parsed = toml::parse(text, path);
  if (!parsed) {
    const toml::parse_error& err = parsed.error();
    return Status::AtLine(path, static_cast<int>(err.source().begin.line), std::string(err.description()));
  }
  const toml::table& root = parsed.table();
  WorkloadConfig c;
  c.toml_path = toml_path;
  c.dir = toml_path.parent_path();
  TableReader r(root, path, "");

  CUCO_RETURN_IF_ERROR(r.String("name", &c.name, true));
  if (!std::regex_match(c.name, std::regex("[A-Za-z0-9_.-]+")))
    return r.Error(*root.get("name"), "'name' may hold only letters, digits, '_', '-' and '.'");
  CUCO_RETURN_IF_ERROR(r.String("description", &c.description, false));
  CUCO_RETURN_IF_ERROR(r.String("mode", &c.mode, false));
  if (c.mode != "harness" && c.mode != "program")
    return r.Error(*root.get("mode"), "'mode' must be \"harness\" or \"program\"");
  CUCO_RETURN_IF_ERROR(r.String("language", &c.language, false));
  if (c.language != "cuda" && c.language != "cpu")
    return r.Error(*root.get("language"), "'language' must be \"cuda\" or \"cpu\"");
  CUCO_RETURN_IF_ERROR(r.String("seed", &c.seed_file, true));
  CUCO_RETURN_IF_ERROR(r.String("reference", &c.reference_file, c.mode == "harness"));
  CUCO_RETURN_IF_ERROR(r.Int("world_size", &c.world_size, true, 1));

  if (const toml::node* ws = r.Get("world_sizes")) {
    const toml::array* a = ws->as_array();
    if (!a) return r.Error(*ws, "'world_sizes' must be an array of integers");
    for (const toml::node& e : *a) {
      if (!e.is_integer() || *e.value<int64_t>() < 1) return r.Error(e, "'world_sizes' must hold integers >= 1");
      c.world_sizes.push_back(static_cast<int>(*e.value<int64_t>()));
    }
    bool listed = false;
    for (int w : c.world_sizes) listed |= (w == c.world_size);
    if (!listed) return r.Error(*ws, "'world_sizes' must include world_size " + std::to_string(c.world_size));
  } else {
    c.world_sizes = {c.world_size};
  }

  const toml::table* build = nullptr;
  CUCO_RETURN_IF_ERROR(SubTable(r, "build", &build));
  if (build) {
    TableReader b(*build, path, "build");
    CUCO_RETURN_IF_ERROR(b.StringList("flags", &c.build_flags));
    CUCO_RETURN_IF_ERROR(b.StringList("libs", &c.build_libs));
    CUCO_RETURN_IF_ERROR(b.RejectUnknown());
  }

  const toml::table* sizes = nullptr;
  CUCO_RETURN_IF_ERROR(SubTable(r, "sizes", &sizes));
  if (c.mode == "harness") {
    if (!sizes) return r.ErrorAtTable("harness-mode workloads need [sizes.verify] and [sizes.bench]");
    TableReader s(*sizes, path, "sizes");
    s.Get("verify");
    s.Get("bench");
    CUCO_RETURN_IF_ERROR(ParseSizes(s, *sizes, path, "verify", &c.verify_sizes));
    CUCO_RETURN_IF_ERROR(ParseSizes(s, *sizes, path, "bench", &c.bench_sizes));
    CUCO_RETURN_IF_ERROR(s.RejectUnknown());
  } else if (sizes) {
    return r.Error(*root.get("sizes"), "[sizes] belongs to harness mode; program mode passes sizes in program.args");
  }

  const toml::table* tol = nullptr;
  CUCO_RETURN_IF_ERROR(SubTable(r, "tolerance", &tol));
  if (c.mode == "harness") {
    if (!tol) return r.ErrorAtTable("harness-mode workloads need a [tolerance] table with rel_l2 and max_abs");
    TableReader t(*tol, path, "tolerance");
    CUCO_RETURN_IF_ERROR(t.Number("rel_l2", &c.tol_rel_l2, true, 0.0, 1.0));
    CUCO_RETURN_IF_ERROR(t.Number("max_abs", &c.tol_max_abs, true, 0.0, 1e30));
    CUCO_RETURN_IF_ERROR(t.RejectUnknown());
  }

  const toml::table* timing = nullptr;
  CUCO_RETURN_IF_ERROR(SubTable(r, "timing", &timing));
  if (timing) {
    TableReader t(*timing, path, "timing");
    CUCO_RETURN_IF_ERROR(t.Int("warmup", &c.warmup, false, 0));
    CUCO_RETURN_IF_ERROR(t.Int("iters", &c.iters, false, 20));
    CUCO_RETURN_IF_ERROR(t.Int("verify_runs", &c.verify_runs, false, 1));
    CUCO_RETURN_IF_ERROR(t.Number("verify_fraction", &c.verify_fraction, false, 0.0, 1.0));
    CUCO_RETURN_IF_ERROR(t.RejectUnknown());
  }

  const toml::table* limits = nullptr;
  CUCO_RETURN_IF_ERROR(SubTable(r, "limits", &limits));
  if (limits) {
    TableReader t(*limits, path, "limits");
    CUCO_RETURN_IF_ERROR(t.Number("compile_s", &c.compile_s, false, 1, 86400));
    CUCO_RETURN_IF_ERROR(t.Number("verify_s", &c.verify_s, false, 1, 86400));
    CUCO_RETURN_IF_ERROR(t.Number("bench_s", &c.bench_s, false, 1, 86400));
    CUCO_RETURN_IF_ERROR(t.Number("iteration_s", &c.iteration_s, false, 1, 86400));
    CUCO_RETURN_IF_ERROR(t.RejectUnknown());
  }

  if (const toml::node* knobs = r.Get("knobs")) CUCO_RETURN_IF_ERROR(ParseKnobs(*knobs, path, &c.knobs));
  CUCO_RETURN_IF_ERROR(r.String("generation0", &c.generation0_file, false));
  if (c.generation0_file.empty()) c.generation0_file = c.seed_file;
  if (const toml::node* variants = r.Get("variants"))
    CUCO_RETURN_IF_ERROR(ParseVariants(*variants, path, c.knobs, &c.variants));
  for (auto& v : c.variants)
    if (v.file.empty()) v.file = c.generation0_file;

  const toml::table* program = nullptr;
  CUCO_RETURN_IF_ERROR(SubTable(r, "program", &program));
  if (c.mode == "program") {
    if (!program) return r.ErrorAtTable("program-mode workloads need a [program] table (time_regex, pass_regex)");
    ProgramSpec p;
    CUCO_RETURN_IF_ERROR(ParseProgram(*program, path, &p));
    c.program = p;
  } else if (program) {
    return r.Error(*root.get("program"), "[program] belongs to program mode; set mode = \"program\"");
  }

  CUCO_RETURN_IF_ERROR(r.RejectUnknown());
  return c;
}

namespace {

// "; did you mean 'workloads/gemm_allgather'?" from the folders beside a path that does not exist.
std::string SimilarFolders(const std::filesystem::path& missing) {
  std::filesystem::path path = missing;
  while (!path.empty() && path.filename().empty()) path = path.parent_path();  // "a/b/" -> "a/b"
  const std::filesystem::path parent = path.has_parent_path() ? path.parent_path() : ".";
  std::error_code ec;
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(parent, ec))
    if (e.is_directory(ec)) names.push_back(e.path().filename().string());
  std::vector<std::string> close = ClosestNames(path.filename().string(), names);
  if (close.empty()) return "";
  for (std::string& c : close) c = (path.has_parent_path() ? parent / c : std::filesystem::path(c)).string();
  return "; did you mean " + QuotedAlternatives(close) + "?";
}

}  // namespace

Result<WorkloadConfig> LoadWorkload(const std::filesystem::path& dir_or_toml) {
  std::error_code ec;
  std::filesystem::path p = std::filesystem::absolute(dir_or_toml, ec);
  if (std::filesystem::is_directory(p)) p /= "workload.toml";
  if (!std::filesystem::exists(p)) {
    if (std::filesystem::exists(dir_or_toml, ec)) return Status::NotFound(p.string() + ": no workload.toml here");
    return Status::NotFound(dir_or_toml.string() + ": no such folder" + SimilarFolders(dir_or_toml));
  }
  auto text = ReadFile(p);
  if (!text.ok()) return text.status();
  auto c = ParseWorkload(*text, p);
  if (!c.ok()) return c;
  const std::string path = p.string();
  if (!std::filesystem::exists(c->SeedPath()))
    return Status::AtLine(path, 0, "seed file '" + c->seed_file + "' not found in " + c->dir.string());
  if (c->mode == "harness" && !std::filesystem::exists(c->ReferencePath()))
    return Status::AtLine(path, 0, "reference file '" + c->reference_file + "' not found in " + c->dir.string());
  for (const auto& v : c->variants)
    if (!std::filesystem::exists(c->dir / v.file))
      return Status::AtLine(path, v.line, "variant '" + v.name + "': file '" + v.file + "' not found in " + c->dir.string());
  if (!c->knobs.empty()) {
    if (!std::filesystem::exists(c->Generation0Path()))
      return Status::AtLine(path, 0, "generation0 file '" + c->generation0_file + "' not found in " + c->dir.string());
    auto g0 = ReadFile(c->Generation0Path());
    if (!g0.ok()) return g0.status();
    CUCO_RETURN_IF_ERROR(CheckKnobMarks(*g0, c->Generation0Path().string(), c->knobs));
  }
  return c;
}

Status OverrideBenchSizes(WorkloadConfig* workload, const std::vector<std::string>& settings) {
  for (const std::string& setting : settings) {
    const size_t eq = setting.find('=');
    const std::string name = setting.substr(0, eq);
    auto it = workload->bench_sizes.find(name);
    if (eq == std::string::npos || it == workload->bench_sizes.end()) {
      std::string known;
      for (const auto& [k, v] : workload->bench_sizes) known += (known.empty() ? "" : ", ") + k;
      return Status::InvalidArgument("--size " + setting + ": expected NAME=VALUE with NAME one of the bench sizes of " +
                                     workload->toml_path.string() + " (" + known + ")");
    }
    const std::string value = setting.substr(eq + 1);
    char* end = nullptr;
    const long long v = std::strtoll(value.c_str(), &end, 10);
    if (value.empty() || *end != '\0')
      return Status::InvalidArgument("--size " + setting + ": the value must be an integer");
    it->second = v;
  }
  return Status::Ok();
}

}  // namespace cuco
