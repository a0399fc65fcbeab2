#include "scaffold/program_files.h"

#include <filesystem>
#include <regex>
#include <set>

#include "util/files.h"
#include "util/source_text.h"

namespace cuco::scaffold_internal {
namespace {

namespace fs = std::filesystem;

fs::path Canonical(const fs::path& p) {
  std::error_code ec;
  const fs::path c = fs::weakly_canonical(fs::absolute(p, ec), ec);
  return ec ? fs::absolute(p).lexically_normal() : c;
}

}  // namespace

std::string WorkloadName(const std::string& path, const std::string& main_dir) {
  const fs::path rel = Canonical(path).lexically_relative(Canonical(main_dir.empty() ? "." : main_dir));
  if (rel.empty()) return fs::path(path).filename().string();
  fs::path out;
  for (const fs::path& part : rel) out /= part == ".." ? fs::path("_up") : part;
  return out.string();
}

std::string WithWorkloadIncludes(const std::string& text, const std::string& path, const std::string& name,
                                 const std::string& main_dir) {
  static const std::regex include_re(R"re((#\s*include\s*")([^"]*\.\.[^"]*)("))re");
  const fs::path from = fs::path(path).parent_path().empty() ? fs::path(".") : fs::path(path).parent_path();
  const fs::path here = fs::path(name).parent_path();
  std::string out;
  size_t last = 0;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), include_re); it != std::sregex_iterator(); ++it) {
    const std::string spelled = (*it)[2].str();
    std::error_code ec;
    const fs::path target = from / spelled;
    if (!fs::is_regular_file(target, ec)) continue;
    const std::string placed = fs::path(WorkloadName(target.string(), main_dir)).lexically_relative(here.empty() ? "." : here).string();
    if (placed.empty() || placed == spelled) continue;
    const size_t at = static_cast<size_t>(it->position(2));
    out += text.substr(last, at - last) + placed;
    last = at + spelled.size();
  }
  return out + text.substr(last);
}

Result<std::vector<ProgramFile>> CollectProgramFiles(const std::string& main_path,
                                                     const std::vector<std::string>& other_sources,
                                                     const std::vector<std::string>& own_include_dirs) {
  const std::string root = fs::path(main_path).parent_path().empty() ? "." : fs::path(main_path).parent_path().string();
  std::vector<ProgramFile> out;
  std::set<std::string> seen = {WorkloadName(main_path, root)};
  std::vector<fs::path> to_scan = {main_path};
  for (const auto& src : other_sources) {
    auto text = ReadFile(src);
    if (!text.ok()) return Status::InvalidArgument(src + ": cannot read (" + text.status().message() + ")");
    if (!seen.insert(WorkloadName(src, root)).second) continue;
    out.push_back({WorkloadName(src, root), WithWorkloadIncludes(*text, src, WorkloadName(src, root), root), true});
    to_scan.push_back(src);
  }
  // `#include "x"`: the including file's folder, then the own include folders; `#include <x>`: those.
  static const std::regex include_re(R"re((^|\n)\s*#\s*include\s*(["<])([^">]+)[">])re");
  for (size_t i = 0; i < to_scan.size(); ++i) {
    auto text = ReadFile(to_scan[i].string());
    if (!text.ok()) continue;
    const std::string code = BlankComments(*text);
    for (auto it = std::sregex_iterator(code.begin(), code.end(), include_re); it != std::sregex_iterator(); ++it) {
      std::vector<fs::path> where;
      if ((*it)[2].str() == "\"") where.push_back(to_scan[i].parent_path());
      for (const auto& d : own_include_dirs) where.push_back(d);
      for (const fs::path& dir : where) {
        const fs::path header = dir / (*it)[3].str();
        std::error_code ec;
        if (!fs::is_regular_file(header, ec)) continue;
        const std::string name = WorkloadName(header.string(), root);
        if (seen.insert(name).second) {
          auto h = ReadFile(header.string());
          if (!h.ok()) return Status::InvalidArgument(header.string() + ": cannot read (" + h.status().message() + ")");
          out.push_back({name, WithWorkloadIncludes(*h, header.string(), name, root), false});
          to_scan.push_back(header);
        }
        break;  // the first folder that has it, as the compiler looks
      }
    }
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
