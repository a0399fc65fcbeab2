#include "toolchain/nvcc_includes.h"

#include <fmt/format.h>

#include "toolchain/command.h"
#include "util/files.h"
#include "util/sha256.h"
#include "util/source_text.h"

namespace cuco {

namespace fs = std::filesystem;

namespace {

// The words of one `#$ NAME="a" "b" ...` line's value, quotes removed.
std::vector<std::string> QuotedWords(const std::string& value) {
  std::vector<std::string> words;
  std::string cur;
  bool quoted = false, any = false;
  for (char c : value) {
    if (c == '"') {
      quoted = !quoted;
      any = true;
    } else if (!quoted && (c == ' ' || c == '\t')) {
      if (any) words.push_back(cur);
      cur.clear();
      any = false;
    } else {
      cur += c;
      any = true;
    }
  }
  if (any) words.push_back(cur);
  return words;
}

}  // namespace

std::vector<std::string> ParseNvccDryrun(const std::string& text) {
  std::vector<std::string> flags;
  for (const std::string& raw : SplitLines(text)) {
    const std::string line = Trim(raw);
    for (const char* var : {"INCLUDES=", "SYSTEM_INCLUDES="}) {
      const std::string prefix = std::string("#$ ") + var;
      if (line.rfind(prefix, 0) != 0) continue;
      const std::vector<std::string> words = QuotedWords(line.substr(prefix.size()));
      for (size_t i = 0; i < words.size(); ++i) {
        const std::string& w = words[i];
        for (const char* flag : {"-isystem", "-I"}) {
          const std::string f = flag;
          std::string dir;
          if (w == f && i + 1 < words.size()) dir = words[++i];
          else if (w.size() > f.size() && w.rfind(f, 0) == 0) dir = w.substr(f.size());
          else continue;
          flags.push_back(f + fs::path(dir).lexically_normal().string());
          break;
        }
      }
    }
  }
  return flags;
}

std::vector<std::string> NvccIncludeFlags(const std::string& nvcc, const fs::path& cache_dir) {
  if (nvcc.empty()) return {};
  std::error_code ec;
  const auto size = fs::file_size(nvcc, ec);
  const auto mtime = fs::last_write_time(nvcc, ec).time_since_epoch().count();
  const fs::path cache =
      cache_dir.empty() ? fs::path()
                        : cache_dir / ("nvcc-includes-" + Sha256Hex(fmt::format("{}\n{}\n{}", nvcc, size, mtime)).substr(0, 16));
  if (!cache.empty()) {
    Result<std::string> cached = ReadFile(cache);
    if (cached.ok()) {
      std::vector<std::string> flags;
      for (const std::string& f : SplitLines(*cached))
        if (!f.empty()) flags.push_back(f);
      if (!flags.empty()) return flags;
    }
  }
  const fs::path probe = fs::temp_directory_path() / "cuco-nvcc-includes.cu";  // --dryrun reads nothing
  const toolchain_internal::CommandOutput out =
      toolchain_internal::RunCommand({nvcc, "--dryrun", "-c", probe.string(), "-o", probe.string() + ".o"}, 30);
  std::vector<std::string> flags = out.exit_code == 0 ? ParseNvccDryrun(out.output) : std::vector<std::string>{};
  if (!cache.empty() && !flags.empty() && MakeDirs(cache_dir).ok()) {
    std::string text;
    for (const auto& f : flags) text += f + "\n";
    (void)WriteFileAtomic(cache, text);
  }
  return flags;
}

}  // namespace cuco
