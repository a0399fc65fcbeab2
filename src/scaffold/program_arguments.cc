#include "scaffold/program_arguments.h"

#include <algorithm>
#include <cctype>
#include <regex>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "scaffold/constants.h"
#include "scaffold/main_rewrite.h"
#include "scaffold/tokens.h"
#include "util/source_text.h"

namespace cuco::scaffold_internal {
namespace {

bool Mentions(const std::vector<Tok>& t, size_t from, size_t to, const std::string& name) {
  for (size_t i = from; i < to && i < t.size(); ++i)
    if (t[i].ident && t[i].text == name) return true;
  return false;
}

// Whether `argc` guards token `p`: in its own statement (`if (argc > 1) n = atoi(argv[1]);`,
// `argc > 1 ? argv[1] : "x"`) or in the header of a block around it (`if (argc > 2) { ... }`).
bool Guarded(const std::vector<Tok>& t, size_t p, size_t body_open) {
  size_t end = p;
  while (end < t.size() && t[end].text != ";" && t[end].text != "{") ++end;
  if (Mentions(t, StatementStart(t, p, body_open + 1), end, "argc")) return true;
  int depth = 0;
  for (size_t i = p; i-- > body_open + 1;) {
    if (t[i].text == "}") ++depth;
    if (t[i].text != "{") continue;
    if (depth > 0) {
      --depth;
      continue;
    }
    if (Mentions(t, StatementStart(t, i, body_open + 1), i, "argc")) return true;
  }
  return false;
}

// Whether tokens [from, to] stop main: `return`, `exit(`, `abort(`, `MPI_Abort(`, `throw`.
bool Stops(const std::vector<Tok>& t, size_t from, size_t to) {
  static const std::set<std::string> stop = {"return", "exit", "_exit", "abort", "MPI_Abort", "throw", "quick_exit"};
  for (size_t i = from; i <= to && i < t.size(); ++i)
    if (t[i].ident && stop.count(t[i].text) > 0) return true;
  return false;
}

// The fewest arguments a test of argc lets through (`argc < 3`: 2, `argc != 4`: 3, `2 > argc`: 1,
// `argc == 1`: 1), or 0 when `test` is none of those (`argc > 1`, `argc < 2 && rank == 0`).
int ArgcFloor(const std::string& test) {
  static const std::regex left(R"(^\s*argc\s*(<=|<|!=|==)\s*(\d{1,3})\s*$)");
  static const std::regex right(R"(^\s*(\d{1,3})\s*(>=|>)\s*argc\s*$)");
  std::smatch m;
  if (std::regex_match(test, m, left)) {
    const int n = std::stoi(m[2].str());
    const std::string op = m[1].str();
    return op == "<=" || op == "==" ? n : n - 1;
  }
  if (std::regex_match(test, m, right)) return m[2].str() == ">=" ? std::stoi(m[1].str()) : std::stoi(m[1].str()) - 1;
  return 0;
}

}  // namespace

ArgumentsRequired ArgumentsMainRequires(const std::string& raw) {
  ArgumentsRequired out;
  size_t b = 0, e = 0;
  if (!DefinitionLines(raw, "main", &b, &e)) return out;
  const std::string main_text = BlankComments(raw.substr(b, e - b));
  const std::vector<Tok> t = Scan(main_text);
  size_t body_open = 0;
  while (body_open < t.size() && t[body_open].text != "{") ++body_open;
  for (size_t i = body_open; i + 1 < t.size(); ++i) {
    if (!(t[i].ident && t[i].text == "if" && t[i + 1].text == "(")) continue;
    const size_t close = Match(t, i + 1);
    if (close + 1 >= t.size()) continue;
    const std::string condition = main_text.substr(t[i + 1].end, t[close].begin - t[i + 1].end);
    if (condition.find("&&") != std::string::npos) continue;
    int floor = 0;
    for (size_t from = 0; from <= condition.size();) {  // each `||` operand
      const size_t bar = std::min(condition.find("||", from), condition.size());
      floor = std::max(floor, ArgcFloor(condition.substr(from, bar - from)));
      from = bar + 2;
    }
    const size_t body_end = StatementEnd(t, close + 1);
    size_t then_end = body_end;  // the `if`'s own arm, without an `else`
    if (t[close + 1].text == "{") then_end = Match(t, close + 1);
    if (floor > out.count && then_end < t.size() && Stops(t, close + 1, then_end)) {
      out.count = floor;
      out.count_line = LineOf(raw, b + t[i].begin);
      out.count_test = Trim(condition);
    }
  }
  // Literals calling an option required or missing, in a block that stops main.
  static const std::regex literal(R"re("((?:[^"\\\n]|\\.)*)")re");
  // The option beside the words: `--engine required`, `-model is required`, `missing --engine`,
  // `missing required argument: -model`, `required option --engine` (not "the required by -p flag").
  static const std::regex before(
      R"((?:^|[\s'`(])(--?[A-Za-z][\w-]*)['`)]?:?\s+(?:(?:is|are)\s+)?(?:required|mandatory|must be (?:given|specified|set))\b)",
      std::regex::icase);
  static const std::regex after(
      R"(\b(?:missing|required)\s+(?:required\s+)?(?:(?:argument|option|flag|parameter)s?\s*)?:?\s*['`]?(--?[A-Za-z][\w-]*))",
      std::regex::icase);
  for (auto it = std::sregex_iterator(main_text.begin(), main_text.end(), literal); it != std::sregex_iterator(); ++it) {
    const std::string text = (*it)[1].str();
    std::smatch m;
    if (!std::regex_search(text, m, before) && !std::regex_search(text, m, after)) continue;
    const size_t at = static_cast<size_t>(it->position(0));
    // The block around the literal: from its `{` to the matching `}`.
    size_t tok = 0;
    while (tok < t.size() && t[tok].begin < at) ++tok;
    int depth = 0;
    size_t open = t.size();
    for (size_t k = tok; k-- > 0;) {
      if (t[k].text == "}") ++depth;
      if (t[k].text != "{") continue;
      if (depth-- == 0) {
        open = k;
        break;
      }
    }
    if (open == t.size() || open <= body_open) continue;  // none, or main's own body: no test guards it
    const size_t close = Match(t, open);
    if (close >= t.size() || !Stops(t, tok, close)) continue;
    const std::string name = m[1].str();
    if (std::any_of(out.options.begin(), out.options.end(), [&](const auto& o) { return o.name == name; })) continue;
    out.options.push_back({name, LineOf(raw, b + at), "\"" + text + "\""});
  }
  return out;
}

std::vector<std::string> ArgumentsMissing(const ArgumentsRequired& required, const std::string& file,
                                          const std::vector<std::string>& args, int words) {
  std::vector<std::string> out;
  if (required.count > words)
    out.push_back(fmt::format("{}:{}: the program stops when started with fewer than {} argument{} (`if ({})`), and "
                              "it would be started with {}: give the arguments you run it with, `--args \"...\"`",
                              file, required.count_line, required.count, required.count == 1 ? "" : "s",
                              required.count_test, words == 0 ? "none" : std::to_string(words)));
  for (const ArgumentsRequired::Option& o : required.options)
    if (!GivesOption(args, o.name))
      out.push_back(fmt::format("{}:{}: the program stops without `{}` ({}): give it with `--args \"{} ...\"`", file,
                                o.line, o.name, o.message.size() > 60 ? o.message.substr(0, 57) + "..." : o.message,
                                o.name));
  return out;
}

bool GivesOption(const std::vector<std::string>& args, const std::string& option) {
  return std::any_of(args.begin(), args.end(),
                     [&](const std::string& a) { return a == option || a.rfind(option + "=", 0) == 0; });
}

std::vector<ArgumentRead> ArgumentsWithoutDefault(const std::string& raw, const std::vector<FoundConstant>& constants) {
  std::set<int> defaulted;
  for (const FoundConstant& c : constants)
    if (c.argv_index > 0) defaulted.insert(c.argv_index);
  size_t b = 0, e = 0;
  if (!DefinitionLines(raw, "main", &b, &e)) return {};
  const std::string main_text = raw.substr(b, e - b);
  const std::vector<Tok> t = Scan(main_text);
  size_t body_open = 0;
  while (body_open < t.size() && t[body_open].text != "{") ++body_open;
  std::vector<ArgumentRead> out;
  std::set<int> seen;
  for (size_t i = body_open + 1; i + 2 < t.size(); ++i) {
    if (!(t[i].ident && t[i].text == "argv" && t[i + 1].text == "[" && t[i + 2].text == "]")) continue;
    const std::string inside = Trim(main_text.substr(t[i + 1].end, t[i + 2].begin - t[i + 1].end));
    if (inside.empty() || !std::all_of(inside.begin(), inside.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
      continue;
    const int index = std::stoi(inside);
    if (index < 1 || defaulted.count(index) > 0 || !seen.insert(index).second) continue;
    if (Guarded(t, i, body_open)) continue;
    size_t end = i;
    while (end < t.size() && t[end].text != ";") ++end;
    const size_t s = StatementStart(t, i, body_open + 1);
    const size_t stop = end < t.size() ? t[end].end : t[i + 2].end;
    out.push_back({index, LineOf(raw, b + t[i].begin), Trim(main_text.substr(t[s].begin, stop - t[s].begin))});
  }
  std::sort(out.begin(), out.end(), [](const ArgumentRead& x, const ArgumentRead& y) { return x.index < y.index; });
  return out;
}

int RankFromArguments(const std::string& code, const std::vector<std::string>& args) {
  static const std::regex whole(R"([0-9]{1,4})");
  for (const ArgvInteger& read : ArgvIntegers(code)) {
    std::string var = read.variable;
    std::transform(var.begin(), var.end(), var.begin(), [](unsigned char c) { return std::tolower(c); });
    const int k = read.index;
    if (var.find("rank") == std::string::npos || var.find("ranks") != std::string::npos ||
        var.find("local") != std::string::npos || var.find("root") != std::string::npos)
      continue;
    if (k >= 1 && k <= static_cast<int>(args.size()) && std::regex_match(args[k - 1], whole)) return k;
  }
  return 0;
}

std::vector<std::string> RankAloneArguments(const std::string& raw, const std::string& code,
                                            const std::vector<FoundConstant>& constants) {
  const std::vector<ArgumentRead> reads = ArgumentsWithoutDefault(raw, constants);
  if (reads.empty()) return {};
  const std::vector<std::string> zeros(8, "0");
  const int k = RankFromArguments(code, zeros);
  if (k == 0 || std::any_of(reads.begin(), reads.end(), [&](const ArgumentRead& r) { return r.index != k; })) return {};
  for (int j = 1; j < k; ++j)
    if (std::regex_search(code, std::regex("argv\\s*\\[\\s*" + std::to_string(j) + "\\s*\\]"))) return {};
  return std::vector<std::string>(k, "0");
}

bool SplitProgramArguments(const std::string& line, std::vector<std::string>* out, std::string* error) {
  std::istringstream in(line);
  for (std::string word; in >> word;) {
    for (char c : word)
      if (c == '"' || c == '\\' || c == '\'' || std::iscntrl(static_cast<unsigned char>(c))) {
        *error = "--args '" + line + "': an argument may not hold quotes, backslashes or control characters (" + word + ")";
        return false;
      }
    out->push_back(word);
  }
  return true;
}

}  // namespace cuco::scaffold_internal
