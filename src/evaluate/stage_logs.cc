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

std::string ReferenceLastWordsIn(const std::string& log_text) {
  static const std::string kPrefix = "cuco reference: ";
  const size_t at = log_text.rfind(kPrefix);
  if (at == std::string::npos || (at > 0 && log_text[at - 1] != '\n')) return "";
  const size_t end = log_text.find('\n', at);
  std::string line = log_text.substr(at + kPrefix.size(), end == std::string::npos ? std::string::npos : end - at - kPrefix.size());
  if (line.size() > 300) line = line.substr(0, 300) + "...";
  return line.empty() ? "" : "the reference said last: " + line;
}

std::string ReferenceLastWords(const JobOutcome& job) {
  if (job.ranks.empty()) return "";
  auto text = ReadFile(job.ranks.front().log_path);
  return text.ok() ? ReferenceLastWordsIn(*text) : "";
}

}  // namespace cuco
