#include "scaffold/host_clocks.h"

#include <tuple>
#include <vector>

#include "scaffold/tokens.h"
#include "workload/evolve_blocks.h"

namespace cuco::scaffold_internal {

std::string TickingClockSpellings(const std::string& text) {
  const std::vector<Tok> t = Scan(text);
  std::vector<std::tuple<size_t, size_t, std::string>> edits;  // begin, end, with
  auto after_scope = [&](size_t i) { return i >= 2 && t[i - 1].text == ":" && t[i - 2].text == ":"; };
  for (size_t i = 0; i < t.size(); ++i) {
    if (!t[i].ident) continue;
    if (t[i].text == "chrono") {
      size_t from = i;  // `std::chrono` as a whole; `x::chrono` of another namespace is not std's
      if (after_scope(i)) {
        if (i < 3 || !t[i - 3].ident || t[i - 3].text != "std") continue;
        from = i - 3;
      }
      edits.emplace_back(t[from].begin, t[i].end, "cuco_program::host_time");
    } else if ((t[i].text == "clock_gettime" || t[i].text == "gettimeofday") && i + 1 < t.size() && t[i + 1].text == "(" &&
               (!after_scope(i) || i < 3 || !t[i - 3].ident)) {  // a call of the C function (`::` before it is kept)
      edits.emplace_back(t[i].begin, t[i].end, "cuco_program::host_time::ticking_" + t[i].text);
    }
  }
  std::string out;
  size_t at = 0;
  for (const auto& [begin, end, with] : edits) {
    out += text.substr(at, begin - at) + with;
    at = end;
  }
  return out + text.substr(at);
}

Result<std::string> TickingClocksInBlocks(const std::string& seed, const std::string& path) {
  Result<SplitSource> split = SplitEvolveBlocks(seed, path, /*require_blocks=*/false);
  if (!split.ok()) return split.status();
  std::vector<std::string> bodies;
  for (const EvolveBlock& b : split->blocks) bodies.push_back(TickingClockSpellings(b.body));
  return JoinEvolveBlocks(*split, bodies);
}

}  // namespace cuco::scaffold_internal
