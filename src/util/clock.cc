#include "util/clock.h"

#include <chrono>
#include <ctime>

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

}  // namespace cuco
