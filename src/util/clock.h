// Wall-clock time: now as stored in records (unix milliseconds), and a time as text. The one
// place that reads the clock or formats a time; stamps in run-folder names and reports use it.
#pragma once

#include <cstdint>
#include <string>

namespace cuco {

int64_t NowMs();

enum class TimeZone { kUtc, kLocal };

// `unix_ms` (whole seconds) as strftime's `format` writes it in `zone`, e.g.
// FormatTime(NowMs(), "%Y-%m-%dT%H:%M:%SZ", TimeZone::kUtc) -> "2026-11-25T11:47:38Z".
std::string FormatTime(int64_t unix_ms, const char* format, TimeZone zone);

}  // namespace cuco
