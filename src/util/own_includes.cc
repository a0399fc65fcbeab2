#include "util/own_includes.h"

#include <filesystem>
#include <map>
#include <regex>
#include <set>

#include "util/files.h"
#include "util/source_text.h"

namespace cuco {
namespace {

namespace fs = std::filesystem;

}  // namespace

std::vector<OwnInclude> OwnIncludes(const std::vector<std::string>& roots,
                                    const std::vector<std::string>& own_include_dirs,
                                    std::vector<std::string>* root_units) {
  // `#include "x"`: the including file's folder, then the own include folders; `#include <x>`: those.
  static const std::regex include_re(R"re((^|\n)\s*#\s*include\s*(["<])([^">]+)[">])re");
  std::vector<OwnInclude> out;
  std::set<std::string> seen;
  std::map<std::string, size_t> root_at;            // resolved path -> index in roots
  std::vector<size_t> reached_by(roots.size());      // the first root (by index) whose compile reaches it
  for (size_t r = 0; r < roots.size(); ++r) {
    const std::string key = ResolvedPath(roots[r]).string();
    seen.insert(key);
    root_at.emplace(key, r);
    reached_by[r] = r;
  }
  // One queue, roots first: each file carries the root its includer came from, and its text.
  struct ToScan {
    fs::path file;
    size_t root;
  };
  std::vector<ToScan> to_scan;
  for (size_t r = 0; r < roots.size(); ++r) to_scan.push_back({roots[r], r});
  for (size_t i = 0; i < to_scan.size(); ++i) {
    const ToScan scan = to_scan[i];
    Result<std::string> text = i < roots.size() ? ReadFile(scan.file) : Result<std::string>(out[i - roots.size()].text);
    if (!text.ok()) continue;
    const std::string code = BlankComments(*text);
    for (auto it = std::sregex_iterator(code.begin(), code.end(), include_re); it != std::sregex_iterator(); ++it) {
      std::vector<fs::path> where;
      if ((*it)[2].str() == "\"") where.push_back(scan.file.parent_path().empty() ? fs::path(".") : scan.file.parent_path());
      for (const auto& d : own_include_dirs) where.push_back(d);
      for (const fs::path& dir : where) {
        const fs::path header = dir / (*it)[3].str();
        std::error_code ec;
        if (!fs::is_regular_file(header, ec)) continue;
        const std::string key = ResolvedPath(header).string();
        if (const auto listed = root_at.find(key); listed != root_at.end() && listed->second != scan.root) {
          size_t& by = reached_by[listed->second];
          if (by == listed->second || scan.root < by) by = scan.root;
        }
        if (seen.insert(key).second) {
          Result<std::string> header_text = ReadFile(header);
          if (header_text.ok()) {
            out.push_back({header.lexically_normal().string(), roots[scan.root], std::move(*header_text)});
            to_scan.push_back({header, scan.root});
          }
        }
        break;  // the first folder that has it, as the compiler looks
      }
    }
  }
  if (root_units) {
    root_units->clear();
    for (size_t r = 0; r < roots.size(); ++r) {
      // Followed to a root that none reaches; a cycle ends at its first (lowest) root.
      std::set<size_t> path = {r};
      size_t unit = r;
      while (reached_by[unit] != unit && path.insert(reached_by[unit]).second) unit = reached_by[unit];
      if (reached_by[unit] != unit) unit = *path.begin();
      root_units->push_back(roots[unit]);
    }
  }
  return out;
}

}  // namespace cuco
