#include "evaluate/stage_logs.h"

#include <fmt/format.h>

#include "util/files.h"

namespace cuco {

std::string LastLines(const std::string& text, int n) {
  size_t pos = text.size();
  for (int i = 0; i <= n && pos != std::string::npos && pos > 0; ++i) pos = text.rfind('\n', pos - 1);
  return pos == std::string::npos ? text : text.substr(pos + 1);
}

std::string RankLogsTail(const JobOutcome& job, int lines) {
  std::string out;
  for (const auto& r : job.ranks) {
    auto text = ReadFile(r.log_path);
    if (!text.ok() || text->empty()) continue;
    out += fmt::format("--- rank {} ({}) ---\n{}", r.rank, r.log_path, LastLines(*text, lines));
    if (out.back() != '\n') out += '\n';
  }
  return out;
}

std::string CandidateLogsTail(const std::filesystem::path& logs, int world, int lines) {
  std::string out;
  for (int r = 0; r < world; ++r) {
    const std::filesystem::path p = logs / fmt::format("candidate-rank{}.log", r);
    auto text = ReadFile(p);
    if (!text.ok() || text->empty()) continue;
    out += fmt::format("--- candidate rank {} ({}) ---\n{}", r, p.string(), LastLines(*text, lines));
    if (out.back() != '\n') out += '\n';
  }
  return out;
}

}  // namespace cuco
