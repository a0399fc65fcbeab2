#include "workload/workload_config.h"

#include <algorithm>
#include <cstdlib>
#include <regex>

#include "util/files.h"
#include "util/int_expr.h"
#include "util/read_trace.h"
#include "util/sha256.h"
#include "util/toml_reader.h"
#include "util/text.h"
#include "workload/knob_marks.h"
#include "workload/knob_tables.h"

namespace cuco {
namespace {

Status ParseSizes(TomlReader& sizes, const std::string& stage, std::map<std::string, int64_t>* out) {
  const toml::table* t = nullptr;
  CUCO_RETURN_IF_ERROR(sizes.Table(stage, &t));
  if (!t) return sizes.ErrorAtTable("missing table [sizes." + stage + "]");
  for (const auto& [k, v] : *t) {
    const std::string key = "sizes." + stage + "." + std::string(k.str());
    if (!v.is_integer()) return sizes.Error(v, "size '" + key + "' must be an integer");
    int64_t value = *v.value<int64_t>();
    if (value < 0) return sizes.Error(v, "size '" + key + "' must be >= 0");
    (*out)[std::string(k.str())] = value;
  }
  return Status::Ok();
}

Status CheckRegex(const TomlReader& r, const toml::node* n, const std::string& key, const std::string& re) {
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
  TomlReader r(t, path, "program");
  CUCO_RETURN_IF_ERROR(r.OneOf("launcher", &out->launcher, {"cuco", "mpirun", "single"}));
  CUCO_RETURN_IF_ERROR(r.StringArray("args", &out->args));
  CUCO_RETURN_IF_ERROR(r.Require("time_regex"));
  CUCO_RETURN_IF_ERROR(r.String("time_regex", &out->time_regex));
  CUCO_RETURN_IF_ERROR(r.Require("pass_regex"));
  CUCO_RETURN_IF_ERROR(r.String("pass_regex", &out->pass_regex));
  CUCO_RETURN_IF_ERROR(r.String("fail_regex", &out->fail_regex));
  CUCO_RETURN_IF_ERROR(CheckRegex(r, t.get("time_regex"), "time_regex", out->time_regex));
  CUCO_RETURN_IF_ERROR(CheckRegex(r, t.get("pass_regex"), "pass_regex", out->pass_regex));
  CUCO_RETURN_IF_ERROR(CheckRegex(r, t.get("fail_regex"), "fail_regex", out->fail_regex));
  return r.RejectUnknown();
}

std::string WorkError(const std::string& key, const std::string& expr, const std::string& stage, int world,
                      bool negative) {
  return "'work." + key + "' = '" + expr + "' " +
         (negative ? "is negative" : "is not an integer expression over the sizes and W (or divides by zero)") +
         " at the " + stage + " sizes, W = " + std::to_string(world);
}

// [work]: each expression must evaluate at the verify and the bench sizes for every world size.
Status ParseWork(const toml::table& t, const std::string& path, const WorkloadConfig& c, WorkSpec* out) {
  TomlReader r(t, path, "work");
  CUCO_RETURN_IF_ERROR(r.String("compute_flops", &out->compute_flops));
  CUCO_RETURN_IF_ERROR(r.String("comm_bytes", &out->comm_bytes));
  CUCO_RETURN_IF_ERROR(r.RejectUnknown());
  out->compute_line = r.Line("compute_flops");
  out->comm_line = r.Line("comm_bytes");
  if (c.verify_sizes.count("W") || c.bench_sizes.count("W"))
    return r.ErrorAtTable("[work] names the world size W, so no size may be called W");
  for (const auto& [key, expr] : {std::pair{"compute_flops", out->compute_flops}, std::pair{"comm_bytes", out->comm_bytes}}) {
    if (expr.empty()) continue;
    for (const auto* sizes : {&c.verify_sizes, &c.bench_sizes})
      for (int w : c.world_sizes) {
        const auto v = EvalWork(expr, *sizes, w);
        if (!v || *v < 0)
          return r.Error(*t.get(key), WorkError(key, expr, sizes == &c.bench_sizes ? "bench" : "verify", w, v.has_value()));
      }
  }
  return Status::Ok();
}

}  // namespace

std::optional<int64_t> EvalWork(const std::string& expr, const std::map<std::string, int64_t>& sizes, int world) {
  if (expr.empty()) return std::nullopt;
  std::map<std::string, int64_t> names = sizes;
  names["W"] = world;
  return EvalIntExpr(expr, names);
}

const Knob* WorkloadConfig::FindKnob(const std::string& knob_name) const {
  for (const auto& k : knobs)
    if (k.name == knob_name) return &k;
  return nullptr;
}

const KnobExclusion* WorkloadConfig::ExclusionOf(const std::map<std::string, std::string>& set) const {
  for (const auto& x : excluded) {
    bool all = true;
    for (const auto& [k, v] : x.knobs) {
      auto it = set.find(k);
      all = all && it != set.end() && it->second == v;
    }
    if (all) return &x;
  }
  return nullptr;
}

namespace {

// [build]: flags (include folders made absolute against the workload's folder), libs, and program
// mode's other sources (files inside the workload folder).
Status ParseBuildTable(TomlReader& r, const std::string& path, WorkloadConfig* c) {
  const toml::table* build = nullptr;
  CUCO_RETURN_IF_ERROR(r.Table("build", &build));
  if (!build) return Status::Ok();
  TomlReader b(*build, path, "build");
  CUCO_RETURN_IF_ERROR(b.StringArray("flags", &c->build_flags));
  c->build_flags = AbsoluteIncludeFlags(c->build_flags, c->dir);
  CUCO_RETURN_IF_ERROR(b.StringArray("libs", &c->build_libs));
  CUCO_RETURN_IF_ERROR(b.StringArray("sources", &c->build_sources));
  CUCO_RETURN_IF_ERROR(b.RejectUnknown());
  for (const auto& src : c->build_sources) {
    if (c->mode != "program")
      return b.Error(*build->get("sources"), "'build.sources' belongs to program mode (a harness seed is one file)");
    if (src.empty() || src[0] == '/' || src.find("..") != std::string::npos ||
        !std::filesystem::is_regular_file(c->dir / src))
      return b.Error(*build->get("sources"), "'build.sources': '" + src + "' is not a file inside the workload folder");
  }
  return Status::Ok();
}

// [timing] and [limits], each optional.
Status ParseTimingTables(TomlReader& r, const std::string& path, WorkloadConfig* c) {
  const toml::table* timing = nullptr;
  CUCO_RETURN_IF_ERROR(r.Table("timing", &timing));
  if (timing) {
    TomlReader t(*timing, path, "timing");
    CUCO_RETURN_IF_ERROR(t.Integer("warmup", &c->warmup, 0));
    CUCO_RETURN_IF_ERROR(t.Integer("iters", &c->iters, 20));
    CUCO_RETURN_IF_ERROR(t.Integer("verify_runs", &c->verify_runs, 1));
    CUCO_RETURN_IF_ERROR(t.Number("verify_fraction", &c->verify_fraction, 0.0, 1.0));
    CUCO_RETURN_IF_ERROR(t.RejectUnknown());
  }

  const toml::table* limits = nullptr;
  CUCO_RETURN_IF_ERROR(r.Table("limits", &limits));
  if (limits) {
    TomlReader t(*limits, path, "limits");
    CUCO_RETURN_IF_ERROR(t.Number("compile_s", &c->compile_s, 1, 86400));
    CUCO_RETURN_IF_ERROR(t.Number("verify_s", &c->verify_s, 1, 86400));
    CUCO_RETURN_IF_ERROR(t.Number("bench_s", &c->bench_s, 1, 86400));
    CUCO_RETURN_IF_ERROR(t.Number("iteration_s", &c->iteration_s, 1, 86400));
    CUCO_RETURN_IF_ERROR(t.RejectUnknown());
  }
  return Status::Ok();
}

// The files the program reads (`reads`, absolute) and the folders it writes into where it runs
// (`run_folders`, plain relative paths).
Status ParseRunFiles(TomlReader& r, WorkloadConfig* c) {
  CUCO_RETURN_IF_ERROR(r.StringArray("reads", &c->reads));
  for (const std::string& read : c->reads)
    if (read.empty() || read[0] != '/')
      return r.Error(*r.Get("reads"), "'reads' holds absolute paths (the files the program reads), not '" + read + "'");
  CUCO_RETURN_IF_ERROR(r.StringArray("run_folders", &c->run_folders));
  for (const std::string& folder : c->run_folders) {
    bool plain = !folder.empty() && folder[0] != '/';
    for (const auto& part : std::filesystem::path(folder)) plain = plain && part != "." && part != ".." && !part.empty();
    if (!plain)
      return r.Error(*r.Get("run_folders"), "'run_folders' holds folders relative to where the program runs, without "
                                            "'.' or '..' parts, not '" + folder + "'");
  }

  return Status::Ok();
}

}  // namespace

Result<WorkloadConfig> ParseWorkload(const std::string& text, const std::filesystem::path& toml_path) {
  const std::string path = toml_path.string();
  Result<toml::table> parsed = ParseToml(text, path);
  if (!parsed.ok()) return parsed.status();
  const toml::table& root = *parsed;
  WorkloadConfig c;
  c.toml_path = toml_path;
  c.dir = toml_path.parent_path();
  TomlReader r(root, path, "");

  CUCO_RETURN_IF_ERROR(r.Require("name"));
  CUCO_RETURN_IF_ERROR(r.String("name", &c.name));
  if (!std::regex_match(c.name, std::regex("[A-Za-z0-9_.-]+")))
    return r.Error(*root.get("name"), "'name' may hold only letters, digits, '_', '-' and '.'");
  CUCO_RETURN_IF_ERROR(r.String("description", &c.description));
  CUCO_RETURN_IF_ERROR(r.OneOf("mode", &c.mode, {"harness", "program"}));
  CUCO_RETURN_IF_ERROR(r.OneOf("language", &c.language, {"cuda", "cpu"}));
  CUCO_RETURN_IF_ERROR(r.Require("seed"));
  CUCO_RETURN_IF_ERROR(r.String("seed", &c.seed_file));
  if (c.mode == "harness") CUCO_RETURN_IF_ERROR(r.Require("reference"));
  CUCO_RETURN_IF_ERROR(r.String("reference", &c.reference_file));
  CUCO_RETURN_IF_ERROR(r.Require("world_size"));
  CUCO_RETURN_IF_ERROR(r.Integer("world_size", &c.world_size, 1));

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

  CUCO_RETURN_IF_ERROR(ParseRunFiles(r, &c));

  CUCO_RETURN_IF_ERROR(ParseBuildTable(r, path, &c));

  const toml::table* sizes = nullptr;
  CUCO_RETURN_IF_ERROR(r.Table("sizes", &sizes));
  if (c.mode == "harness") {
    if (!sizes) return r.ErrorAtTable("harness-mode workloads need [sizes.verify] and [sizes.bench]");
    TomlReader s(*sizes, path, "sizes");
    CUCO_RETURN_IF_ERROR(ParseSizes(s, "verify", &c.verify_sizes));
    CUCO_RETURN_IF_ERROR(ParseSizes(s, "bench", &c.bench_sizes));
    CUCO_RETURN_IF_ERROR(s.RejectUnknown());
  } else if (sizes) {
    return r.Error(*root.get("sizes"), "[sizes] belongs to harness mode; program mode passes sizes in program.args");
  }

  const toml::table* tol = nullptr;
  CUCO_RETURN_IF_ERROR(r.Table("tolerance", &tol));
  if (c.mode == "harness") {
    if (!tol) return r.ErrorAtTable("harness-mode workloads need a [tolerance] table with rel_l2 and max_abs");
    TomlReader t(*tol, path, "tolerance");
    CUCO_RETURN_IF_ERROR(t.Require("rel_l2"));
    CUCO_RETURN_IF_ERROR(t.Number("rel_l2", &c.tol_rel_l2, 0.0, 1.0));
    CUCO_RETURN_IF_ERROR(t.Require("max_abs"));
    CUCO_RETURN_IF_ERROR(t.Number("max_abs", &c.tol_max_abs, 0.0, 1e30));
    CUCO_RETURN_IF_ERROR(t.RejectUnknown());
  }

  CUCO_RETURN_IF_ERROR(ParseTimingTables(r, path, &c));

  if (const toml::node* knobs = r.Get("knobs")) CUCO_RETURN_IF_ERROR(ParseKnobs(*knobs, path, &c.knobs));
  CUCO_RETURN_IF_ERROR(r.String("generation0", &c.generation0_file));
  if (c.generation0_file.empty()) c.generation0_file = c.seed_file;
  if (const toml::node* variants = r.Get("variants"))
    CUCO_RETURN_IF_ERROR(ParseVariants(*variants, path, c.knobs, &c.variants));
  if (const toml::node* excluded = r.Get("excluded"))
    CUCO_RETURN_IF_ERROR(ParseExclusions(*excluded, path, c.knobs, &c.excluded));
  for (auto& v : c.variants)
    if (v.file.empty()) v.file = c.generation0_file;

  const toml::table* work = nullptr;
  CUCO_RETURN_IF_ERROR(r.Table("work", &work));
  if (work) CUCO_RETURN_IF_ERROR(ParseWork(*work, path, c, &c.work));

  const toml::table* program = nullptr;
  CUCO_RETURN_IF_ERROR(r.Table("program", &program));
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

std::vector<std::string> AbsoluteIncludeFlags(const std::vector<std::string>& flags, const std::filesystem::path& dir) {
  std::vector<std::string> out;
  for (size_t i = 0; i < flags.size(); ++i) {
    const std::string& f = flags[i];
    bool done = false;
    for (const char* name : {"-isystem", "-iquote", "-include", "-I"}) {
      const std::string n = name;
      auto absolute = [&](const std::string& p) {
        if (n == "-include") return PreIncludedFile(p, dir);
        return p.empty() || p[0] == '/' ? p : (dir / p).lexically_normal().string();
      };
      if (f == n && i + 1 < flags.size()) {
        out.push_back(f);
        out.push_back(absolute(flags[++i]));
      } else if (f.size() > n.size() && f.rfind(n, 0) == 0) {
        const size_t at = f[n.size()] == '=' ? n.size() + 1 : n.size();
        out.push_back(f.substr(0, at) + absolute(f.substr(at)));
      } else {
        continue;
      }
      done = true;
      break;
    }
    if (!done) out.push_back(f);
  }
  return out;
}

namespace {

// The folders one or two levels below `parent` that are named `name` and hold a workload.toml, as
// paths relative to `parent` ("workloads/gemm_reducescatter" for `gemm_reducescatter` named from
// the repository's root); hidden folders are not entered. At most 3.
std::vector<std::string> WorkloadsBelow(const std::filesystem::path& parent, const std::string& name) {
  namespace fs = std::filesystem;
  std::vector<std::string> found;
  std::error_code ec;
  auto visible_dirs = [&ec](const fs::path& dir) {
    std::vector<fs::path> dirs;
    for (const auto& e : fs::directory_iterator(dir, ec))
      if (e.is_directory(ec) && e.path().filename().string().rfind('.', 0) != 0) dirs.push_back(e.path().filename());
    std::sort(dirs.begin(), dirs.end());
    return dirs;
  };
  for (const fs::path& a : visible_dirs(parent)) {
    if (fs::exists(parent / a / name / "workload.toml", ec)) found.push_back((a / name).string());
    for (const fs::path& b : visible_dirs(parent / a))
      if (fs::exists(parent / a / b / name / "workload.toml", ec)) found.push_back((a / b / name).string());
    if (found.size() >= 3) break;
  }
  if (found.size() > 3) found.resize(3);
  return found;
}

// "; did you mean 'workloads/gemm_allgather'?" for a path that does not exist: the folders beside
// it with a close name, else the workload folders of that name a level or two below its parent.
std::string SimilarFolders(const std::filesystem::path& missing) {
  std::filesystem::path path = missing;
  while (!path.empty() && path.filename().empty()) path = path.parent_path();  // "a/b/" -> "a/b"
  const std::filesystem::path parent = path.has_parent_path() ? path.parent_path() : ".";
  std::error_code ec;
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(parent, ec))
    if (e.is_directory(ec)) names.push_back(e.path().filename().string());
  std::vector<std::string> close = ClosestNames(path.filename().string(), names);
  if (close.empty()) close = WorkloadsBelow(parent, path.filename().string());
  if (close.empty()) return "";
  for (std::string& c : close) c = (path.has_parent_path() ? parent / c : std::filesystem::path(c)).string();
  return "; did you mean " + QuotedAlternatives(close) + "?";
}

}  // namespace

Result<WorkloadConfig> LoadWorkload(const std::filesystem::path& dir_or_toml) {
  std::error_code ec;
  // The folder as the file system resolves it: no `..` or symlink left, since the sandbox binds
  // and every compile names files by this path (a/../b under /tmp did not resolve there).
  std::filesystem::path p = ResolvedPath(dir_or_toml);
  if (std::filesystem::is_directory(p)) p /= "workload.toml";
  if (!std::filesystem::exists(p)) {
    if (std::filesystem::exists(dir_or_toml, ec)) return Status::NotFound(p.string() + ": no workload.toml here");
    return Status::NotFound(dir_or_toml.string() + ": no such folder" + SimilarFolders(dir_or_toml));
  }
  auto text = ReadFile(p);
  if (!text.ok()) return text.status();
  return LoadWorkloadText(*text, p);
}

Result<WorkloadConfig> LoadWorkloadText(const std::string& text, const std::filesystem::path& p) {
  // The same text parsed twice in one command is a read to pass down instead (util/read_trace.h).
  NoteRead("workload.toml", p.lexically_normal().string() + " " + Sha256Hex(text).substr(0, 12));
  auto c = ParseWorkload(text, p);
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

Result<WorkloadConfig> LoadWorkloadWithOverrides(const std::string& path, const std::vector<std::string>& bench_sizes,
                                                 double verify_limit_s, double bench_limit_s) {
  auto wl = LoadWorkload(path);
  if (!wl.ok()) return Status::InvalidArgument(wl.status().message());
  if (Status s = OverrideBenchSizes(&*wl, bench_sizes); !s.ok()) return Status::InvalidArgument(s.message());
  if (verify_limit_s > 0) wl->verify_s = verify_limit_s;
  if (bench_limit_s > 0) wl->bench_s = bench_limit_s;
  return wl;
}

Status CheckWorldSizeListed(const WorkloadConfig& workload, int world_size) {
  const auto& sizes = workload.world_sizes;
  if (world_size <= 0 || std::find(sizes.begin(), sizes.end(), world_size) != sizes.end()) return Status::Ok();
  return Status::InvalidArgument("--world-size " + std::to_string(world_size) + ": not among the world_sizes of " +
                                 workload.toml_path.string());
}

int LargestWorldSizeWithin(const WorkloadConfig& workload, int gpus) {
  int fits = 0;
  for (int w : workload.world_sizes)
    if (w <= gpus && w > fits) fits = w;
  return fits;
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
