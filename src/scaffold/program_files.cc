#include "scaffold/program_files.h"

#include <fmt/format.h>

#include <filesystem>
#include <functional>
#include <map>
#include <regex>
#include <set>

#include "util/files.h"
#include "util/own_includes.h"

namespace cuco::scaffold_internal {
namespace {

namespace fs = std::filesystem;

}  // namespace

std::string WorkloadName(const std::string& path, const std::string& main_dir) {
  const fs::path rel = ResolvedPath(path).lexically_relative(ResolvedPath(main_dir.empty() ? "." : main_dir));
  if (rel.empty()) return fs::path(path).filename().string();
  fs::path out;
  for (const fs::path& part : rel) out /= part == ".." ? fs::path("_up") : part;
  return out.string();
}

namespace {

// `text` with each `#include "P"` whose `respelled(P)` is neither empty nor P written as that instead.
std::string RespellQuotedIncludes(const std::string& text, const std::function<std::string(const std::string&)>& respelled) {
  static const std::regex include_re(R"re((#\s*include\s*")([^"]+)("))re");
  std::string out;
  size_t last = 0;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), include_re); it != std::sregex_iterator(); ++it) {
    const std::string spelled = (*it)[2].str(), placed = respelled(spelled);
    if (placed.empty() || placed == spelled) continue;
    const size_t at = static_cast<size_t>(it->position(2));
    out += text.substr(last, at - last) + placed;
    last = at + spelled.size();
  }
  return out + text.substr(last);
}

}  // namespace

std::string WithWorkloadIncludes(const std::string& text, const std::string& path, const std::string& name,
                                 const std::string& main_dir, const std::vector<std::string>& include_dirs) {
  const fs::path from = fs::path(path).parent_path().empty() ? fs::path(".") : fs::path(path).parent_path();
  const fs::path here = fs::path(name).parent_path();
  auto placed = [&](const fs::path& target) {
    return fs::path(WorkloadName(target.string(), main_dir)).lexically_relative(here.empty() ? "." : here).string();
  };
  return RespellQuotedIncludes(text, [&](const std::string& spelled) -> std::string {
    std::error_code ec;
    if (spelled.empty() || spelled[0] == '/') return "";
    const fs::path target = from / spelled;
    if (fs::is_regular_file(target, ec)) return spelled.find("..") == std::string::npos ? "" : placed(target);
    for (const std::string& dir : include_dirs) {  // a folder above main's holding a file below it
      const fs::path found = fs::path(dir) / spelled;
      if (!fs::is_regular_file(found, ec)) continue;
      const bool dir_above = WorkloadName(dir, main_dir).rfind("_up", 0) == 0;
      return dir_above && WorkloadName(found.string(), main_dir).rfind("_up", 0) != 0 ? placed(found) : "";
    }
    return "";
  });
}

std::string IncludesFromUnitRoot(const std::string& text, const std::string& name, const std::set<std::string>& program_files) {
  const fs::path here = fs::path(name).parent_path();
  if (here.empty()) return text;
  return RespellQuotedIncludes(text, [&](const std::string& spelled) -> std::string {
    const std::string placed = (here / spelled).lexically_normal().string();
    return spelled[0] == '/' || !program_files.count(placed) ? "" : placed;
  });
}

std::string ProgramRoot(const std::string& main_path) {
  return fs::path(main_path).parent_path().empty() ? "." : fs::path(main_path).parent_path().string();
}

Result<std::vector<ProgramFile>> CollectProgramFiles(const std::string& main_path,
                                                     const std::vector<std::string>& other_sources,
                                                     const std::vector<std::string>& own_include_dirs) {
  const std::string root = ProgramRoot(main_path);
  std::vector<ProgramFile> out;
  std::set<std::string> seen = {WorkloadName(main_path, root)};
  // Source files are told apart by their file names (the analysis's ops, --loop, the served file):
  // two of one name in different folders would be taken for one.
  std::map<std::string, std::string> by_file_name = {{fs::path(main_path).filename().string(), main_path}};
  for (const auto& src : other_sources) {
    const auto [it, added] = by_file_name.emplace(fs::path(src).filename().string(), src);
    if (!added && WorkloadName(it->second, root) != WorkloadName(src, root))
      return Status::InvalidArgument(fmt::format(
          "{}: named like {} ({}): cuco tells the program's source files apart by their file names, so it would take "
          "the two for one; give cuco a copy of one under another name (as a Makefile's object names often do)",
          src, it->second, it->first));
  }
  for (const auto& src : other_sources) {
    auto text = ReadFile(src);
    if (!text.ok()) return Status::InvalidArgument(src + ": cannot read (" + text.status().message() + ")");
    if (!seen.insert(WorkloadName(src, root)).second) continue;
    out.push_back({WorkloadName(src, root), WithWorkloadIncludes(*text, src, WorkloadName(src, root), root, own_include_dirs),
                   true, src});
  }
  std::vector<std::string> roots = {main_path};
  roots.insert(roots.end(), other_sources.begin(), other_sources.end());
  std::vector<std::string> root_units;
  const std::vector<OwnInclude> includes = OwnIncludes(roots, own_include_dirs, &root_units);
  // A source that another of the program's files includes (`#include "gpu_computation.cu"`) is compiled
  // there, in that file's unit: in the harness's one unit it is that file's header, else defined twice.
  for (size_t i = 1; i < roots.size() && i < root_units.size(); ++i)
    if (root_units[i] != roots[i])
      for (ProgramFile& pf : out)
        if (pf.path == roots[i]) pf.source = false;
  for (const OwnInclude& inc : includes) {
    const std::string name = WorkloadName(inc.path, root);
    if (!seen.insert(name).second) continue;
    out.push_back({name, WithWorkloadIncludes(inc.text, inc.path, name, root, own_include_dirs), false, inc.path});
  }
  return out;
}

std::string OwnIncludeFlag(const std::string& flag, const std::string& main_dir, const std::set<std::string>& own_dirs) {
  for (const char* name : {"-isystem", "-include", "-I"}) {
    const std::string n = name;
    if (flag.size() <= n.size() || flag.rfind(n, 0) != 0) continue;
    const std::string path = flag.substr(n.size());
    // nvcc takes -I joined, the longer ones only as `-isystem=DIR` (or two words), never joined.
    const std::string spelled = n == "-I" ? n : n + "=";
    return spelled + (own_dirs.count(path) ? WorkloadName(path, main_dir) : path);
  }
  return flag;
}

}  // namespace cuco::scaffold_internal
