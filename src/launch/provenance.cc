#include "launch/provenance.h"

#include <unistd.h>

#include <cstdlib>

#include "launch/subprocess.h"
#include "util/clock.h"
#include "util/files.h"
#include "util/runtime_dir.h"
#include "util/text.h"

namespace cuco {

namespace fs = std::filesystem;

std::string UtcNow() { return FormatTime(NowMs(), "%Y-%m-%dT%H:%M:%SZ", TimeZone::kUtc); }

std::string HostName() {
  char buf[256] = {};
  if (::gethostname(buf, sizeof buf - 1) != 0) return "";
  return buf;
}

std::string CommandLine() {
  auto text = ReadFile("/proc/self/cmdline");
  if (!text.ok()) return "";
  std::string out, word;
  auto flush = [&] {
    if (!out.empty()) out += ' ';
    out += word.find_first_of(" \t'\"") == std::string::npos && !word.empty() ? word : "'" + word + "'";
    word.clear();
  };
  for (char c : *text) {
    if (c == '\0') flush();
    else word += c;
  }
  if (!word.empty()) flush();
  return out;
}

nlohmann::json GitInfo(const fs::path& workload_dir) {
  nlohmann::json j = {{"commit", nullptr}, {"dirty", nullptr}, {"source", nullptr}};
  if (const char* c = std::getenv("CUCO_GIT_COMMIT"); c && *c) {
    j["commit"] = c;
    j["source"] = "env CUCO_GIT_COMMIT";
    return j;
  }
  for (const fs::path& dir : {SourceDir(), workload_dir}) {
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) continue;
    auto head = RunCapture({"git", "-C", dir.string(), "rev-parse", "HEAD"}, 10);
    std::string commit = LastLine(head.output);
    if (!head.outcome.ok() || commit.size() < 40) continue;
    j["commit"] = commit;
    j["source"] = "git -C " + dir.string();
    auto status = RunCapture({"git", "-C", dir.string(), "status", "--porcelain", "--untracked-files=no"}, 20);
    if (status.outcome.ok()) j["dirty"] = !LastLine(status.output).empty();
    return j;
  }
  return j;
}

}  // namespace cuco
