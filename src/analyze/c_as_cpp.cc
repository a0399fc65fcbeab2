#include "analyze/c_as_cpp.h"

#include <algorithm>
#include <regex>

namespace cuco::analyze_internal {

namespace {

const char* const kType = R"('([^']+)'(?: \(aka '[^']+'\))?)";

// Whether `(type)(x)` is C++ that names the type: not an array, nor a type without a name.
bool Castable(const std::string& type) {
  for (const char* unwritable : {"[", "unnamed", "anonymous", "lambda"})
    if (type.find(unwritable) != std::string::npos) return false;
  return true;
}

}  // namespace

std::vector<CppEdit> EditsCppNeeds(const std::vector<FileDiagnostic>& errors) {
  static const std::regex assign(std::string("^assigning to ") + kType + " from incompatible type");
  static const std::regex init(std::string("^cannot initialize (?:a variable|return object|a parameter|a member "
                                           "subobject|an array element) of type ") +
                               kType + " with an? [lrx]value of type");
  static const std::regex argument(std::string("^candidate function not viable: (?:cannot convert argument of "
                                               "incomplete type |no known conversion from )") +
                                   kType + " to " + kType + " for \\w+ argument");
  static const std::regex no_match("^no matching function for call to ");
  static const std::regex scoped(R"(^use of undeclared identifier '(\w+)'; did you mean '((?:\w+::)+)(\w+)'\?)");
  std::vector<CppEdit> out;
  auto cast = [&](const std::string& type, const FileDiagnostic& d) {
    if (!d.ranges.empty() && Castable(type))
      out.push_back({d.ranges.front().first, d.ranges.front().second, "(" + type + ")(", ")"});
  };
  for (const FileDiagnostic& e : errors) {
    std::smatch m;
    if (std::regex_search(e.message, m, assign) || std::regex_search(e.message, m, init)) {
      cast(m[1].str(), e);
    } else if (std::regex_search(e.message, no_match) && e.notes.size() == 1 &&
               std::regex_search(e.notes.front().message, m, argument)) {
      cast(m[2].str(), e.notes.front());
    } else if (std::regex_search(e.message, m, scoped) && m[1] == m[3] && e.fixits.size() == 1 &&
               e.fixits.front().text == m[2].str() + m[3].str()) {
      out.push_back({e.fixits.front().begin, e.fixits.front().end, m[2].str(), ""});  // the same name, qualified
    }
  }
  return out;
}

std::string WithEdits(const std::string& text, std::vector<CppEdit> edits) {
  std::sort(edits.begin(), edits.end(), [](const CppEdit& a, const CppEdit& b) { return a.begin < b.begin; });
  std::vector<CppEdit> kept;
  for (const CppEdit& c : edits)
    if (c.end <= text.size() && c.begin < c.end && (kept.empty() || kept.back().end <= c.begin)) kept.push_back(c);
  std::string out = text;
  for (auto c = kept.rbegin(); c != kept.rend(); ++c) {
    out.insert(c->end, c->after);
    out.insert(c->begin, c->before);
  }
  return out;
}

}  // namespace cuco::analyze_internal
