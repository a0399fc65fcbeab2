#include "scaffold/output_regex.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <regex>

namespace cuco::scaffold_internal {
namespace {

// Text of a format between two conversions, without leading spaces or punctuation.
std::string LabelBefore(const std::string& segment) {
  size_t b = 0;
  while (b < segment.size() && !std::isalnum(static_cast<unsigned char>(segment[b]))) ++b;
  return segment.substr(b);
}

const std::regex& ConversionRe() {
  static const std::regex re(R"(%[-+ #0]*(?:\d+|\*)?(?:\.(?:\d+|\*))?(?:hh|h|ll|l|L|z|j|t)?([diouxXeEfFgGaAcsp%]))");
  return re;
}

}  // namespace

std::string RegexFor(const std::string& text) {
  std::string out;
  bool space = false;
  for (char c : text) {
    if (std::isspace(static_cast<unsigned char>(c))) {
      space = true;
      continue;
    }
    if (space) out += "\\s*", space = false;
    if (std::strchr("\\^$.|?*+()[]{}", c)) out += '\\';
    out += c;
  }
  if (space) out += "\\s*";
  return out;
}

namespace {

// How many floating conversions of `format` a time unit follows.
int TimesIn(const std::string& format) {
  static const std::regex unit_after(R"(^\s*(ms|msec|milliseconds?|us|usec|microseconds?|ns|nsec|s|sec|seconds?)\b)");
  int n = 0;
  for (auto it = std::sregex_iterator(format.begin(), format.end(), ConversionRe()); it != std::sregex_iterator(); ++it)
    if (std::strchr("eEfFgG", (*it)[1].str()[0]) &&
        std::regex_search(format.substr(static_cast<size_t>(it->position(0) + it->length(0))), unit_after))
      ++n;
  return n;
}

// "ms", "us", "ns" or "s" for a unit as printed (msec, microseconds, sec, ...).
std::string Unit(const std::string& printed) {
  return printed.rfind("ms", 0) == 0 || printed.rfind("milli", 0) == 0 ? "ms"
         : printed[0] == 'u' || printed.rfind("micro", 0) == 0        ? "us"
         : printed[0] == 'n'                                          ? "ns"
                                                                      : "s";
}

// The first floating conversion of `prints` labelled by a time word (Time, Elapsed, ...); with
// `by_unit`, instead the first followed by a time unit, labelled by the text before it since the
// previous conversion (`ring step: %.3f ms`).
std::optional<RegexGuess> TimeConversion(const std::vector<PrintCall>& prints, bool by_unit) {
  static const std::regex word_re(R"([A-Za-z_]*(?:[Tt]ime|TIME|[Ee]lapsed|ELAPSED|[Ll]atency|LATENCY|[Dd]uration|[Tt]ook)[A-Za-z_]*)");
  static const std::regex unit_re(R"(^\s*(ms|msec|milliseconds?|us|usec|microseconds?|ns|nsec|s|sec|seconds?)\b)");
  for (const auto& p : prints) {
    size_t prev_end = 0;
    for (auto it = std::sregex_iterator(p.format.begin(), p.format.end(), ConversionRe()); it != std::sregex_iterator(); ++it) {
      const size_t at = static_cast<size_t>(it->position(0));
      const std::string segment = p.format.substr(prev_end, at - prev_end);
      prev_end = at + static_cast<size_t>(it->length(0));
      if (!std::strchr("eEfFgG", (*it)[1].str()[0])) continue;
      const std::string after = p.format.substr(prev_end);
      std::smatch u;
      const bool unit_follows = std::regex_search(after, u, unit_re);
      std::string label;
      if (by_unit) {
        // One number a unit follows in the print: of several (`1 GPU: %f s, %d GPUs: %f s`), which is the
        // program's time is not known.
        if (!unit_follows || TimesIn(p.format) != 1) continue;
        label = segment.substr(std::min(segment.size(), segment.find_first_not_of(" \t")));
      } else {
        std::smatch last;
        bool found = false;
        for (auto wi = std::sregex_iterator(segment.begin(), segment.end(), word_re); wi != std::sregex_iterator(); ++wi)
          last = *wi, found = true;
        if (!found) continue;
        label = segment.substr(static_cast<size_t>(last.position(0)));
        // A time step (`Time step = ` << TimeStep, `timestep %g`) counts steps: no time.
        static const std::regex step_re(R"(^(?:[A-Za-z_]*_)?(?:[Tt]ime|TIME)[\s_-]*(?:[Ss]tep|STEP))");
        if (std::regex_search(label, step_re)) continue;
      }
      RegexGuess g;
      g.regex = RegexFor(label) + "([0-9.eE+-]+)";
      // A unit in the label (`time-ms=%f`, `elapsed_us: %f`, `Time (s): %f`) where none follows.
      static const std::regex in_label(R"((?:[-_]|\(|\[)\s*(ms|msec|us|usec|ns|nsec|sec|s)\s*(?:\)|\]|=|:|\s|$))");
      std::smatch lu;
      const bool labelled = !unit_follows && std::regex_search(label, lu, in_label);
      if (labelled) g.unit = Unit(lu[1].str());
      if (unit_follows) {
        const std::string unit = u[1].str();
        g.unit = Unit(unit);
        g.regex += "\\s*" + RegexFor(unit);
      }
      g.line = p.line;
      g.shown = p.format;
      return g;
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<RegexGuess> GuessTimeRegex(const std::vector<PrintCall>& prints) {
  if (auto by_word = TimeConversion(prints, false)) return by_word;
  return TimeConversion(prints, true);
}

std::optional<RegexGuess> GuessVerdictRegex(const std::vector<PrintCall>& prints, bool want_pass) {
  static const std::regex pass_re(R"(\b(PASS(?:ED)?|Pass(?:ed)?|passed|SUCCESS(?:FUL)?|Success(?:ful)?|SUCCEEDED|[Ss]ucceeded|CORRECT|Correct)\b)");
  static const std::regex fail_re(R"(\b(FAIL(?:ED|URE)?|Fail(?:ed|ure)?|failed|INCORRECT|Incorrect|MISMATCH|Mismatch)\b)");
  const std::regex& word = want_pass ? pass_re : fail_re;
  for (const auto& p : prints) {
    // The text of the format cut at conversions: each piece with the conversion that ends it.
    size_t prev_end = 0;
    std::vector<std::pair<std::string, std::string>> pieces;  // (text, conversion letter or "")
    for (auto it = std::sregex_iterator(p.format.begin(), p.format.end(), ConversionRe()); it != std::sregex_iterator(); ++it) {
      pieces.push_back({p.format.substr(prev_end, static_cast<size_t>(it->position(0)) - prev_end), (*it)[1].str()});
      prev_end = static_cast<size_t>(it->position(0) + it->length(0));
    }
    pieces.push_back({p.format.substr(prev_end), ""});
    for (const auto& [text, conv] : pieces) {
      std::smatch m;
      if (std::regex_search(text, m, word)) {
        RegexGuess g;
        const std::string label = LabelBefore(text.substr(0, static_cast<size_t>(m.position(0))));
        g.regex = RegexFor(label) + m[1].str();
        g.line = p.line;
        g.shown = p.format;
        return g;
      }
      if (conv == "s") {
        for (const auto& lit : p.literals) {
          std::smatch lm;
          if (!std::regex_search(lit, lm, word)) continue;
          RegexGuess g;
          g.regex = RegexFor(LabelBefore(text)) + RegexFor(lit.substr(0, static_cast<size_t>(lm.position(0) + lm.length(0))));
          g.line = p.line;
          g.shown = p.format;
          return g;
        }
        break;  // only the first %s carries the verdict
      }
    }
  }
  return std::nullopt;
}

}  // namespace cuco::scaffold_internal
