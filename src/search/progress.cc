#include "search/progress.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <string_view>

#include <fmt/format.h>

#include "util/clock.h"

namespace cuco {

std::string FormatProgress(const SearchProgress& p) {
  std::string s = fmt::format("gen {}{} | {} candidates", p.generation, p.phase.empty() ? "" : " " + p.phase, p.candidates);
  if (p.in_flight > 0) s += fmt::format(" ({} in flight)", p.in_flight);
  if (p.best_id > 0) {
    s += fmt::format(" | best #{} {:.4g} ms", p.best_id, p.best_ms);
    if (p.best_speedup > 0) s += fmt::format(", {:.2f}x over seed", p.best_speedup);
  } else {
    s += " | no passing candidate yet";
  }
  if (p.session_minutes > 0 && p.session_done > 0) s += fmt::format(" | {:.1f}/min", p.session_done / p.session_minutes);
  if (p.wall_s > 0) {
    s += " | elapsed " + FormatDuration(p.wall_s);
    if (p.eta_s >= 0) s += fmt::format(", ETA {} ({})", FormatDuration(p.eta_s), p.eta_limit);
  }
  if (!p.failures.empty()) {
    s += " | failures:";
    bool first = true;
    for (const auto& [k, n] : p.failures) {
      s += fmt::format("{} {} {}", first ? "" : ",", k, n);
      first = false;
    }
  }
  s += fmt::format(" | ${:.2f}", p.dollars);
  return s;
}

std::string FitToWidth(const std::string& line, int width) {
  const size_t max = static_cast<size_t>(std::max(width - 1, 4));  // the last column: no auto-wrap
  if (line.size() <= max) return line;
  static constexpr std::string_view kSep = " | ";
  const size_t end = line.rfind(kSep, max);  // the last field boundary that leaves at most `max`
  if (end != std::string::npos && end > 0) return line.substr(0, end);
  return line.substr(0, max - 3) + "...";
}

int TerminalWidth(int fd) {
  struct winsize ws {};
  if (::ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) return ws.ws_col;
  if (const char* c = std::getenv("COLUMNS")) {
    char* end = nullptr;
    const long n = std::strtol(c, &end, 10);
    if (end != c && *end == '\0' && n > 0 && n < 100000) return static_cast<int>(n);
  }
  return 80;
}

ProgressPrinter::ProgressPrinter(std::FILE* out) : out_(out), tty_(isatty(fileno(out)) != 0) {}

std::string ProgressKey(const SearchProgress& p) {
  SearchProgress q = p;
  q.session_minutes = 0;
  q.wall_s = 0;
  q.eta_s = -1;
  return FormatProgress(q);
}

void ProgressPrinter::Update(const SearchProgress& p) {
  const std::string line = FormatProgress(p);
  // The rate, elapsed time and ETA change every second; only a TTY line is redrawn for that.
  const std::string key = ProgressKey(p);
  if (tty_) {
    std::fprintf(out_, "\r\x1b[K%s", FitToWidth(line, TerminalWidth(fileno(out_))).c_str());
    std::fflush(out_);
    open_line_ = true;
  } else if (key != last_) {
    std::fprintf(out_, "%s\n", line.c_str());
    std::fflush(out_);
  }
  last_ = key;
}

void ProgressPrinter::Done() {
  if (open_line_) std::fprintf(out_, "\n");
  open_line_ = false;
}

}  // namespace cuco
