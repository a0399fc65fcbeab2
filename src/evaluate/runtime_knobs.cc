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

}  // namespace

std::optional<RuntimeKnobs> SplitRuntimeKnobs(const std::string& code) {
  if (code.find("cuco/program/candidate.h") == std::string::npos) return std::nullopt;
  RuntimeKnobs out;
  for (const std::string& whole : SplitLinesKeepingNewlines(code)) {
    if (whole.find("cuco:knob") == std::string::npos) {
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
