#include "analyze/c_as_cpp.h"

#include <algorithm>
#include <cctype>
#include <optional>
#include <regex>
#include <utility>

namespace cuco::analyze_internal {

namespace {

const char* const kType = R"('([^']+)'(?: \(aka '[^']+'\))?)";

// Whether `(type)(x)` is C++ that names the type: not an array, nor a type without a name.
bool Castable(const std::string& type) {
  for (const char* unwritable : {"[", "unnamed", "anonymous", "lambda"})
    if (type.find(unwritable) != std::string::npos) return false;
  return true;
}

// The bytes of argument `ordinal` (1-based) of the call whose callee's name ends at byte `callee_end`
// of `text`, spaces trimmed; nullopt when the text there is no such call.
std::optional<std::pair<size_t, size_t>> ArgumentAt(const std::string& text, size_t callee_end, int ordinal) {
  size_t i = callee_end;
  while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
  if (i >= text.size() || text[i] != '(') return std::nullopt;
  int depth = 0, index = 1;
  size_t begin = i + 1;
  for (++i; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '(' || c == '[' || c == '{') ++depth;
    const bool closes = depth == 0 && c == ')';
    if (depth == 0 && (c == ',' || closes)) {
      if (index == ordinal) {
        size_t end = i;
        while (begin < end && std::isspace(static_cast<unsigned char>(text[begin]))) ++begin;
        while (end > begin && std::isspace(static_cast<unsigned char>(text[end - 1]))) --end;
        if (begin == end) return std::nullopt;
        return std::make_pair(begin, end);
      }
      if (closes) return std::nullopt;
      ++index, begin = i + 1;
    }
    if (c == ')' || c == ']' || c == '}') --depth;
  }
  return std::nullopt;
}

// The argument `ordinal` of the call `call` ("no matching function for call to 'F'") is about,
// found in `text`: the first `F (` from the error's place on (a call inside a macro's arguments,
// `CHECK(cudaMalloc(...))`, is placed at the macro), within the statement.
std::optional<std::pair<size_t, size_t>> CallArgument(const std::string& text, const FileDiagnostic& call, int ordinal) {
  static const std::regex callee("for call to '(\\w+)'");
  std::smatch m;
  if (call.ranges.empty() || !std::regex_search(call.message, m, callee)) return std::nullopt;
  const std::string name = m[1].str();
  const size_t from = call.ranges.front().first, limit = text.find(';', from);
  for (size_t at = text.find(name, from); at != std::string::npos && at < limit; at = text.find(name, at + 1)) {
    const bool starts = at == 0 || !(std::isalnum(static_cast<unsigned char>(text[at - 1])) || text[at - 1] == '_');
    if (starts) return ArgumentAt(text, at + name.size(), ordinal);
  }
  return std::nullopt;
}

}  // namespace

std::vector<CppEdit> EditsCppNeeds(const std::vector<FileDiagnostic>& errors, const std::string& text) {
  static const std::regex assign(std::string("^assigning to ") + kType + " from incompatible type");
  static const std::regex init(std::string("^cannot initialize (?:a variable|return object|a parameter|a member "
                                           "subobject|an array element) of type ") +
                               kType + " with an? [lrx]value of type");
  static const std::regex argument(std::string("^candidate function not viable: (?:cannot convert argument of "
                                               "incomplete type |no known conversion from )") +
                                   kType + " to " + kType + " for (\\d+)\\w* argument");
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
    } else if (std::regex_search(e.message, no_match)) {
      // The call's one candidate a C program can mean: templates are C++'s own overloads
      // (cuda_runtime.h's `cudaMalloc(T**, size_t)` beside `cudaMalloc(void**, size_t)`).
      std::vector<const FileDiagnostic*> functions;
      for (const FileDiagnostic& n : e.notes)
        if (n.message.rfind("candidate ", 0) == 0 && n.message.rfind("candidate template", 0) != 0) functions.push_back(&n);
      if (functions.size() != 1 || !std::regex_search(functions.front()->message, m, argument)) continue;
      const auto& note_ranges = functions.front()->ranges;
      if (!note_ranges.empty() && note_ranges.front().first < note_ranges.front().second) {
        cast(m[2].str(), *functions.front());
      } else if (auto arg = CallArgument(text, e, std::stoi(m[3].str())); arg && Castable(m[2].str())) {
        out.push_back({arg->first, arg->second, "(" + m[2].str() + ")(", ")"});
      }
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
