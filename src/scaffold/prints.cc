#include "scaffold/prints.h"

#include <algorithm>
#include <cctype>
#include <regex>

#include "scaffold/program_text.h"

namespace cuco::scaffold_internal {
namespace {

// printf("fmt", args...) and the like: the first literal is the format.
void FindPrintfCalls(const std::string& code, std::vector<PrintCall>* out) {
  static const std::regex call_re(R"(\b(?:std::)?(printf|fprintf|puts|fputs)\s*\()");
  for (auto it = std::sregex_iterator(code.begin(), code.end(), call_re); it != std::sregex_iterator(); ++it) {
    const size_t open = static_cast<size_t>(it->position(0) + it->length(0) - 1);
    const size_t close = MatchParen(code, open);
    if (close == std::string::npos) continue;
    auto lits = StringLiterals(code, open + 1, close);
    if (lits.empty()) continue;
    PrintCall p;
    p.callee = (*it)[1].str();
    p.format = lits[0];
    p.literals.assign(lits.begin() + 1, lits.end());
    p.line = LineOf(code, open);
    out->push_back(std::move(p));
  }
}

// std::cout << a << "b" << std::endl; up to the ';': one format built from the operands.
void FindStreamChains(const std::string& code, std::vector<PrintCall>* out) {
  static const std::regex stream_re(R"(\b(?:std::)?(cout|cerr)\b)");
  for (auto it = std::sregex_iterator(code.begin(), code.end(), stream_re); it != std::sregex_iterator(); ++it) {
    size_t i = static_cast<size_t>(it->position(0) + it->length(0));
    PrintCall p;
    p.callee = (*it)[1].str();
    p.line = LineOf(code, i);
    // Operands between top-level `<<` up to the ';'.
    size_t operand = std::string::npos;
    int depth = 0;
    auto flush = [&](size_t end) {
      if (operand == std::string::npos) return;
      const std::string text = Trim(code.substr(operand, end - operand));
      auto lits = StringLiterals(code, operand, end);
      const bool only_literal = !text.empty() && text.front() == '"' && text.back() == '"' && lits.size() == 1;
      if (only_literal) p.format += lits[0];
      else if (text == "std::endl" || text == "endl" || text == "'\\n'") p.format += "\n";
      else if (!lits.empty()) p.format += "%s", p.literals.insert(p.literals.end(), lits.begin(), lits.end());
      else p.format += "%g";
      operand = std::string::npos;
    };
    for (; i < code.size(); ++i) {
      const char c = code[i];
      if (c == '"' || c == '\'') {
        if (operand == std::string::npos) operand = i;
        i = SkipLiteral(code, i) - 1;
        continue;
      }
      if (c == '(' || c == '[') ++depth;
      else if (c == ')' || c == ']') --depth;
      if (depth == 0 && c == '<' && i + 1 < code.size() && code[i + 1] == '<') {
        flush(i);
        ++i;
        operand = i + 1;
        continue;
      }
      if ((depth == 0 && c == ';') || depth < 0) break;
      if (operand == std::string::npos && !std::isspace(static_cast<unsigned char>(c))) operand = i;
    }
    flush(i);
    if (!p.format.empty()) out->push_back(std::move(p));
  }
}

}  // namespace

std::vector<PrintCall> FindPrints(const std::string& code) {
  std::vector<PrintCall> out;
  FindPrintfCalls(code, &out);
  FindStreamChains(code, &out);
  std::sort(out.begin(), out.end(), [](const PrintCall& a, const PrintCall& b) { return a.line < b.line; });
  return out;
}

}  // namespace cuco::scaffold_internal
