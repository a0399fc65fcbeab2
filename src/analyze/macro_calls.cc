#include "analyze/macro_calls.h"

#include <map>
#include <regex>

#include "analyze/frontend.h"
#include "util/source_text.h"

namespace cuco::analyze_internal {
namespace {

// The macro named at `use` and its definition in `text`: its parameters' list (m[2]) and its
// replacement, lines joined (m[3]).
bool MacroDefinition(const std::string& text, size_t use, std::string* macro, std::smatch* m) {
  *macro = IdentifierAt(text, use);
  if (macro->empty()) return false;
  const std::regex define("#[ \\t]*define[ \\t]+" + *macro + "\\b(\\(([^)]*)\\))?((?:[^\\n]*\\\\\\n)*[^\\n]*)");
  return std::regex_search(text, *m, define);
}

// The arguments of the use of a function-like macro whose name ends at `past_name`: split at the
// commas outside brackets, each trimmed. False when no `(` follows the name or it does not close.
bool UseArguments(const std::string& text, size_t past_name, std::vector<std::string>* out) {
  size_t p = SkipSpace(text, past_name);
  if (p >= text.size() || text[p] != '(') return false;
  int depth = 0;
  std::string arg;
  auto flush = [&] {
    const size_t b = arg.find_first_not_of(" \t\n"), e = arg.find_last_not_of(" \t\n");
    out->push_back(b == std::string::npos ? "" : arg.substr(b, e - b + 1));
    arg.clear();
  };
  for (++p; p < text.size(); ++p) {
    const char ch = text[p];
    if (ch == '(' || ch == '[' || ch == '{') ++depth;
    if (ch == ')' || ch == ']' || ch == '}') {
      if (depth == 0) {
        flush();
        return true;
      }
      --depth;
    }
    if (ch == ',' && depth == 0) {
      flush();
      continue;
    }
    arg += ch;
  }
  return false;
}

}  // namespace

size_t MacroBodyCallWithoutArguments(const std::string& text, size_t use, const std::string& name) {
  std::string macro;
  std::smatch m;
  if (!MacroDefinition(text, use, &macro, &m)) return std::string::npos;
  const std::regex call("\\b" + name + "\\s*\\(\\s*\\)");
  std::smatch c;
  const std::string body = m[3].str();
  if (!std::regex_search(body, c, call)) return std::string::npos;
  const std::string before = body.substr(0, static_cast<size_t>(c.position(0)));
  bool after_a_parameter = false;
  const std::string params = m[2].str();
  static const std::regex word("[A-Za-z_]\\w*");
  for (auto it = std::sregex_iterator(params.begin(), params.end(), word); it != std::sregex_iterator(); ++it)
    after_a_parameter |= std::regex_search(before, std::regex("\\b" + it->str() + "\\b"));
  if (!after_a_parameter) return use;
  std::string used;
  std::vector<std::string> config, args;
  size_t past = 0;  // just past the use's closing parenthesis
  return ReadCallAt(text, use, &used, &config, &args, &past) ? past - 1 : use;
}

bool MacroExpandedCall(const std::string& text, size_t use, const std::string& name, std::string* macro,
                       std::vector<std::string>* config, std::vector<std::string>* args) {
  std::smatch m;
  std::string used;
  std::vector<std::string> given;
  if (!MacroDefinition(text, use, &used, &m) || !m[1].matched || !UseArguments(text, use + used.size(), &given))
    return false;
  // The parameters, `...` standing for __VA_ARGS__ (every argument from its position on).
  std::vector<std::string> params;
  const std::string list = m[2].str();
  static const std::regex param("[A-Za-z_]\\w*|\\.\\.\\.");
  for (auto it = std::sregex_iterator(list.begin(), list.end(), param); it != std::sregex_iterator(); ++it)
    params.push_back(it->str() == "..." ? "__VA_ARGS__" : it->str());
  std::map<std::string, std::string> value;
  for (size_t i = 0; i < params.size(); ++i) {
    if (params[i] != "__VA_ARGS__") {
      value[params[i]] = i < given.size() ? given[i] : "";
      continue;
    }
    std::string rest;
    for (size_t k = i; k < given.size(); ++k) rest += (k > i ? ", " : "") + given[k];
    value[params[i]] = rest;
  }
  // The replacement with each parameter replaced by its argument, continuation lines joined.
  std::string body = std::regex_replace(m[3].str(), std::regex("\\\\\\n"), " "), expanded;
  static const std::regex word("[A-Za-z_]\\w*");
  size_t from = 0;
  for (auto it = std::sregex_iterator(body.begin(), body.end(), word); it != std::sregex_iterator(); ++it) {
    const auto v = value.find(it->str());
    if (v == value.end()) continue;
    expanded += body.substr(from, static_cast<size_t>(it->position()) - from) + v->second;
    from = static_cast<size_t>(it->position() + it->length());
  }
  expanded += body.substr(from);
  const std::regex called("\\b" + name + "\\b");
  for (auto it = std::sregex_iterator(expanded.begin(), expanded.end(), called); it != std::sregex_iterator(); ++it) {
    std::string read;
    size_t end = 0;
    std::vector<std::string> c, a;
    if (ReadCallAt(expanded, static_cast<size_t>(it->position()), &read, &c, &a, &end) && read == name) {
      *macro = used;
      *config = c;
      *args = a;
      return true;
    }
  }
  return false;
}

}  // namespace cuco::analyze_internal
