#include "evaluate/runtime_knobs.h"

#include <regex>

#include "util/source_text.h"

namespace cuco {
namespace {

// specifiers `constexpr const char*` identifier `= "`value`";` comment
const std::regex& KnobLine() {
  static const std::regex re(
      R"re(^(\s*(?:(?:static|inline)\s+)*)constexpr\s+const\s+char\s*\*\s*([A-Za-z_][A-Za-z0-9_]*)\s*=\s*"([A-Za-z0-9_.+\-]{0,64})"(\s*;\s*//\s*cuco:knob\s+[A-Za-z_][A-Za-z0-9_]*\s*)$)re");
  return re;
}

// Whether the line at `begin` continues the one before it (a backslash-newline splice).
bool Spliced(const std::string& code, size_t begin) {
  if (begin == 0 || code[begin - 1] != '\n') return false;
  size_t j = begin - 1;
  if (j > 0 && code[j - 1] == '\r') --j;
  return j > 0 && code[j - 1] == '\\';
}

}  // namespace

std::optional<RuntimeKnobs> SplitRuntimeKnobs(const std::string& code) {
  if (code.find("cuco/program/candidate.h") == std::string::npos) return std::nullopt;
  const std::vector<SourceByte> kind = ClassifySource(code);
  RuntimeKnobs out;
  size_t at = 0;  // offset of the line
  int parens = 0;  // ( minus ) in code before the line
  for (const std::string& whole : SplitLinesKeepingNewlines(code)) {
    const size_t begin = at;
    at += whole.size();
    const bool knob = whole.find("cuco:knob") != std::string::npos;
    // A knob line only where it is a declaration of its own: in code (not a raw string or comment),
    // outside every parenthesis (a macro's arguments, which `#` could make a string of) and not
    // spliced onto the line before (a #define's body).
    if (knob && (kind[begin] != SourceByte::kCode || parens != 0 || Spliced(code, begin))) return std::nullopt;
    for (size_t i = begin; i < at; ++i)
      if (kind[i] == SourceByte::kCode) parens += code[i] == '(' ? 1 : code[i] == ')' ? -1 : 0;
    if (!knob) {
      out.code += whole;
      continue;
    }
    size_t end = whole.size();
    while (end > 0 && (whole[end - 1] == '\n' || whole[end - 1] == '\r')) --end;
    const std::string line = whole.substr(0, end);
    std::smatch m;
    if (!std::regex_match(line, m, KnobLine())) return std::nullopt;
    out.code += m[1].str() + "const char* const " + m[2].str() + " = ::cuco_program::knob_value(" +
                std::to_string(out.values.size()) + ")" + m[4].str() + whole.substr(end);
    out.values.push_back(m[3].str());
  }
  if (out.values.empty()) return std::nullopt;
  return out;
}

std::string RuntimeKnobsUnit(const std::vector<std::string>& values) {
  std::string list;
  for (const std::string& v : values) list += "\"" + v + "\", ";
  return "// A candidate's knob values (cuco's builder: evaluate/runtime_knobs.h).\n"
         "namespace cuco_program {\n"
         "const char* knob_value(int index) {\n"
         "  static const char* const kValues[] = {" + list + "nullptr};\n"
         "  return index >= 0 && index < " + std::to_string(values.size()) + " ? kValues[index] : \"\";\n"
         "}\n"
         "}  // namespace cuco_program\n";
}

}  // namespace cuco
