// Wall-clock time: now as stored in records (unix milliseconds), a time as text, a duration as
// text both ways, and the seconds since a steady-clock start. The one place that reads the clock
// or formats a time; stamps in run-folder names, reports, progress lines and the --time-budget
// flag use it.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

#include "util/status.h"

namespace cuco {

int64_t NowMs();

// Seconds on the steady clock since `start`: timeouts and how long a step took.
double SecondsSince(std::chrono::steady_clock::time_point start);

enum class TimeZone { kUtc, kLocal };

// `unix_ms` (whole seconds) as strftime's `format` writes it in `zone`, e.g.
// FormatTime(NowMs(), "%Y-%m-%dT%H:%M:%SZ", TimeZone::kUtc) -> "2026-11-25T11:47:38Z".
std::string FormatTime(int64_t unix_ms, const char* format, TimeZone zone);

// A duration for people: "45s", "4m05s", "2h03m" (seconds rounded down; negative counts as 0).
std::string FormatDuration(double seconds);

// "90s", "30m", "2h", "1.5h" or plain seconds ("3600") -> seconds (>= 0). Anything else is
// kInvalidArgument naming the text and the accepted forms.
Result<double> ParseDuration(const std::string& text);

}  // namespace cuco
