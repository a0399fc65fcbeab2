#include "scaffold/program_files.h"

#include <filesystem>
#include <regex>
#include <set>

#include "util/files.h"
#include "util/source_text.h"

namespace cuco::scaffold_internal {
namespace {

namespace fs = std::filesystem;

// `path` relative to `root` when it lies in or below it; "" otherwise.
std::string RelativeInside(const fs::path& path, const fs::path& root) {
  std::error_code ec;
  const fs::path rel = fs::relative(fs::weakly_canonical(path, ec), fs::weakly_canonical(root, ec), ec);
  if (ec || rel.empty() || *rel.begin() == "..") return "";
  return rel.string();
}

}  // namespace

Result<std::vector<ProgramFile>> CollectProgramFiles(const std::string& main_path,
                                                     const std::vector<std::string>& other_sources) {
  const fs::path root = fs::path(main_path).parent_path().empty() ? fs::path(".") : fs::path(main_path).parent_path();
  std::vector<ProgramFile> out;
  std::set<std::string> seen = {RelativeInside(main_path, root)};
  std::vector<fs::path> to_scan = {main_path};
  for (const auto& src : other_sources) {
    const std::string rel = RelativeInside(src, root);
    if (rel.empty())
      return Status::InvalidArgument(src + ": not in the folder of " + main_path + " or below (cuco init copies the "
                                     "program's files into one workload folder)");
    auto text = ReadFile(src);
    if (!text.ok()) return Status::InvalidArgument(src + ": cannot read (" + text.status().message() + ")");
    if (!seen.insert(rel).second) continue;
    out.push_back({rel, *text, true});
    to_scan.push_back(src);
  }
  static const std::regex include_re(R"re((^|\n)\s*#\s*include\s*"([^"]+)")re");
  for (size_t i = 0; i < to_scan.size(); ++i) {
    auto text = ReadFile(to_scan[i].string());
    if (!text.ok()) continue;
    const std::string code = BlankComments(*text);
    for (auto it = std::sregex_iterator(code.begin(), code.end(), include_re); it != std::sregex_iterator(); ++it) {
      const fs::path header = to_scan[i].parent_path() / (*it)[2].str();
      std::error_code ec;
      if (!fs::is_regular_file(header, ec)) continue;  // found through -I elsewhere
      const std::string rel = RelativeInside(header, root);
      if (rel.empty() || !seen.insert(rel).second) continue;
      auto h = ReadFile(header.string());
      if (!h.ok()) return Status::InvalidArgument(header.string() + ": cannot read (" + h.status().message() + ")");
      out.push_back({rel, *h, false});
      to_scan.push_back(header);
    }
  }
  return out;
}

}  // namespace cuco::scaffold_internal
