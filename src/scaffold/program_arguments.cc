#include "scaffold/program_arguments.h"

#include <algorithm>
#include <cctype>
#include <regex>
#include <set>
#include <sstream>

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

}  // namespace

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
