// Wall-clock time: now as stored in records (unix milliseconds), and a time as text; and the
// seconds since a steady-clock start. The one
// place that reads the clock or formats a time; stamps in run-folder names and reports use it.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace cuco {

int64_t NowMs();

// Seconds on the steady clock since `start`: timeouts and how long a step took.
double SecondsSince(std::chrono::steady_clock::time_point start);

enum class TimeZone { kUtc, kLocal };

// `unix_ms` (whole seconds) as strftime's `format` writes it in `zone`, e.g.
// FormatTime(NowMs(), "%Y-%m-%dT%H:%M:%SZ", TimeZone::kUtc) -> "2026-11-25T11:47:38Z".
std::string FormatTime(int64_t unix_ms, const char* format, TimeZone zone);

}  // namespace cuco
