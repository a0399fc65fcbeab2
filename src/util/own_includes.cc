#include "util/own_includes.h"

#include <filesystem>
#include <regex>
#include <set>

#include "util/files.h"
#include "util/source_text.h"

namespace cuco {
namespace {

namespace fs = std::filesystem;

std::string CanonicalKey(const fs::path& p) {
  std::error_code ec;
  const fs::path c = fs::weakly_canonical(fs::absolute(p, ec), ec);
  return (ec ? fs::absolute(p).lexically_normal() : c).string();
}

}  // namespace

std::vector<OwnInclude> OwnIncludes(const std::vector<std::string>& roots,
                                    const std::vector<std::string>& own_include_dirs) {
  // `#include "x"`: the including file's folder, then the own include folders; `#include <x>`: those.
  static const std::regex include_re(R"re((^|\n)\s*#\s*include\s*(["<])([^">]+)[">])re");
  std::vector<OwnInclude> out;
  std::set<std::string> seen;
  for (const auto& r : roots) seen.insert(CanonicalKey(r));
  // One queue, roots first: each file found carries the root its includer came from.
  std::vector<std::pair<fs::path, std::string>> to_scan;
  for (const auto& r : roots) to_scan.push_back({r, r});
  for (size_t i = 0; i < to_scan.size(); ++i) {
    const auto [file, root] = to_scan[i];
    auto text = ReadFile(file);
    if (!text.ok()) continue;
    const std::string code = BlankComments(*text);
    for (auto it = std::sregex_iterator(code.begin(), code.end(), include_re); it != std::sregex_iterator(); ++it) {
      std::vector<fs::path> where;
      if ((*it)[2].str() == "\"") where.push_back(file.parent_path().empty() ? fs::path(".") : file.parent_path());
      for (const auto& d : own_include_dirs) where.push_back(d);
      for (const fs::path& dir : where) {
        const fs::path header = dir / (*it)[3].str();
        std::error_code ec;
        if (!fs::is_regular_file(header, ec)) continue;
        if (seen.insert(CanonicalKey(header)).second) {
          out.push_back({header.lexically_normal().string(), root});
          to_scan.push_back({header, root});
        }
        break;  // the first folder that has it, as the compiler looks
      }
    }
  }
  return out;
}

}  // namespace cuco
