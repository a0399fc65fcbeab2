#include "util/clock.h"

#include <chrono>
#include <cmath>
#include <cctype>
#include <cstdio>
#include <ctime>
#include <string>

namespace cuco {

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::string FormatTime(int64_t unix_ms, const char* format, TimeZone zone) {
  const std::time_t t = static_cast<std::time_t>(unix_ms / 1000);
  std::tm tm{};
  if (zone == TimeZone::kUtc) gmtime_r(&t, &tm);
  else localtime_r(&t, &tm);
  char buf[128];
  const size_t n = std::strftime(buf, sizeof buf, format, &tm);
  return std::string(buf, n);
}

std::string FormatDuration(double seconds) {
  const long long s = seconds > 0 ? static_cast<long long>(seconds) : 0;
  char buf[64];
  if (s < 60) std::snprintf(buf, sizeof buf, "%llds", s);
  else if (s < 3600) std::snprintf(buf, sizeof buf, "%lldm%02llds", s / 60, s % 60);
  else std::snprintf(buf, sizeof buf, "%lldh%02lldm", s / 3600, (s % 3600) / 60);
  return buf;
}

Result<double> ParseDuration(const std::string& text) {
  const auto bad = [&] {
    return Status::InvalidArgument("'" + text + "' is not a duration: give seconds (3600) or a number with s, m or h "
                                   "(90s, 30m, 2h)");
  };
  if (text.empty()) return bad();
  double unit = 1;
  std::string number = text;
  switch (text.back()) {
    case 's': unit = 1; number.pop_back(); break;
    case 'm': unit = 60; number.pop_back(); break;
    case 'h': unit = 3600; number.pop_back(); break;
    default: break;
  }
  if (number.empty() || !(std::isdigit(static_cast<unsigned char>(number[0])) || number[0] == '.')) return bad();
  size_t used = 0;
  double value = 0;
  try {
    value = std::stod(number, &used);
  } catch (const std::exception&) {
    return bad();
  }
  if (used != number.size() || !std::isfinite(value) || value < 0) return bad();
  return value * unit;
}

}  // namespace cuco
