#include "workload/knob_marks.h"

#include <regex>
#include <set>
#include <sstream>

#include "util/source_text.h"
#include "workload/evolve_blocks.h"

namespace cuco {
namespace {

const std::regex& MarkRegex() {
  // prefix `= ` value `;` spaces `// cuco:knob ` name
  static const std::regex re(R"(^(.*=\s*)(\"(?:[^\"\\]|\\.)*\"|[^;]*?)(\s*;\s*//\s*cuco:knob\s+)([A-Za-z_][A-Za-z0-9_]*)\s*$)");
  return re;
}

std::string Unquote(const std::string& lit) {
  std::string out;
  for (size_t i = 1; i + 1 < lit.size(); ++i) {
    if (lit[i] == '\\' && i + 2 < lit.size()) ++i;
    out += lit[i];
  }
  return out;
}

std::string CStringLiteral(const std::string& v) {
  std::string out = "\"";
  for (char c : v) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

}  // namespace

Result<std::vector<KnobMark>> FindKnobMarks(const std::string& text, const std::string& path) {
  auto split = SplitEvolveBlocks(text, path, /*require_blocks=*/false);
  if (!split.ok()) return split.status();
  auto inside = [&](int line) {
    for (const auto& b : split->blocks)
      if (line > b.start_line && line < b.end_line) return true;
    return false;
  };
  std::vector<KnobMark> marks;
  std::set<std::string> seen;
  const std::vector<std::string> lines = SplitLines(text);
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string& l = lines[i];
    const size_t at = l.find("cuco:knob");
    if (at == std::string::npos) continue;
    const int line = static_cast<int>(i) + 1;
    std::smatch m;
    if (!std::regex_match(l, m, MarkRegex()))
      return Status::AtLine(path, line, "a 'cuco:knob' mark must end a line of the form `... = <value>;  // cuco:knob <name>`");
    if (!inside(line)) return Status::AtLine(path, line, "knob '" + m[4].str() + "' is marked outside the EVOLVE blocks");
    KnobMark k;
    k.name = m[4].str();
    k.line = line;
    std::string v = m[2].str();
    while (!v.empty() && (v.back() == ' ' || v.back() == '\t')) v.pop_back();
    if (v.empty()) return Status::AtLine(path, line, "knob '" + k.name + "' has no value before ';'");
    k.quoted = v.front() == '"';
    k.value = k.quoted ? Unquote(v) : v;
    if (!seen.insert(k.name).second) return Status::AtLine(path, line, "knob '" + k.name + "' is marked twice");
    marks.push_back(std::move(k));
  }
  return marks;
}

std::map<std::string, std::string> KnobValues(const std::vector<KnobMark>& marks) {
  std::map<std::string, std::string> out;
  for (const auto& m : marks) out[m.name] = m.value;
  return out;
}

Status CheckKnobMarks(const std::string& text, const std::string& path, const std::vector<Knob>& declared) {
  auto marks = FindKnobMarks(text, path);
  if (!marks.ok()) return marks.status();
  const auto values = KnobValues(*marks);
  for (const auto& k : declared) {
    auto it = values.find(k.name);
    if (it == values.end())
      return Status::AtLine(path, 0, "knob '" + k.name + "' is declared in workload.toml but not marked (`// cuco:knob " +
                                         k.name + "`) in this file");
    bool allowed = false;
    for (const auto& v : k.values) allowed |= v == it->second;
    if (!allowed) {
      int line = 0;
      for (const auto& m : *marks)
        if (m.name == k.name) line = m.line;
      return Status::AtLine(path, line, "knob '" + k.name + "' has value '" + it->second + "', not one of its declared values");
    }
  }
  return Status::Ok();
}

Result<std::string> ApplyKnobs(const std::string& text, const std::string& path,
                               const std::map<std::string, std::string>& values, const std::vector<Knob>& declared) {
  auto marks = FindKnobMarks(text, path);
  if (!marks.ok()) return marks.status();
  std::map<int, const KnobMark*> by_line;
  std::map<std::string, const KnobMark*> by_name;
  for (const auto& m : *marks) {
    by_line[m.line] = &m;
    by_name[m.name] = &m;
  }
  for (const auto& [name, value] : values) {
    if (!by_name.count(name)) return Status::InvalidArgument(path + ": knob '" + name + "' is not marked in this file");
    for (const auto& k : declared) {
      if (k.name != name) continue;
      bool allowed = false;
      for (const auto& v : k.values) allowed |= v == value;
      if (!allowed) return Status::InvalidArgument("knob '" + name + "' cannot take the value '" + value + "'");
    }
    if (!by_name[name]->quoted && value.find_first_of(";\n/") != std::string::npos)
      return Status::InvalidArgument("knob '" + name + "': value '" + value + "' is not a plain literal");
  }
  std::vector<std::string> lines = SplitLines(text);
  for (size_t i = 0; i < lines.size(); ++i) {
    auto it = by_line.find(static_cast<int>(i) + 1);
    if (it == by_line.end()) continue;
    auto v = values.find(it->second->name);
    if (v == values.end()) continue;
    std::smatch m;
    const std::string l = lines[i];
    std::regex_match(l, m, MarkRegex());
    lines[i] = m[1].str() + (it->second->quoted ? CStringLiteral(v->second) : v->second) + m[3].str() + m[4].str();
  }
  std::string out;
  for (size_t i = 0; i < lines.size(); ++i) {
    out += lines[i];
    if (i + 1 < lines.size()) out += '\n';
  }
  return out;
}

}  // namespace cuco
