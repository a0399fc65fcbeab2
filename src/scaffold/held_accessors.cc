#include "scaffold/held_accessors.h"

#include <fmt/format.h>

#include <regex>
#include <set>

#include "scaffold/tokens.h"

namespace cuco::scaffold_internal {
namespace {

const std::set<std::string>& PointerAccessors() {
  static const std::set<std::string> names = {"data", "get", "ptr", "data_ptr", "device_data", "begin"};
  return names;
}

const std::set<std::string>& SizeQueries() {
  static const std::set<std::string> names = {"size", "bytes", "count", "numel", "length", "nbytes"};
  return names;
}

// The mention of `object` at token `i`: its accessor's call `object . M ( )` as tokens [i, last],
// and M; false when it is no call of a method without arguments.
bool MethodCall(const std::vector<Tok>& t, size_t i, size_t* last, std::string* method) {
  size_t m = i + 1;
  if (m < t.size() && t[m].text == ".") {
    ++m;
  } else if (m + 1 < t.size() && t[m].text == "-" && t[m + 1].text == ">") {
    m += 2;
  } else {
    return false;
  }
  if (m + 2 >= t.size() || !t[m].ident || t[m + 1].text != "(" || t[m + 2].text != ")") return false;
  *method = t[m].text;
  *last = m + 2;
  return true;
}

}  // namespace

bool DeclaresPointerBegin(const std::string& program_code) {
  static const std::regex pointer_begin(R"(\*\s*begin\s*\(\s*\)\s*(?:const\s*)?(?:noexcept\s*)?[{;])");
  return std::regex_search(program_code, pointer_begin);
}

std::optional<HeldAccessor> HoldAccessor(const std::string& object, const std::string& body, std::string* why,
                                         const std::string& program_code) {
  const std::vector<Tok> t = Scan(body);
  std::string expr;
  for (size_t i = 0; i < t.size(); ++i) {
    if (!t[i].ident || t[i].text != object) continue;
    if (i > 0 && (t[i - 1].text == "." || (t[i - 1].text == ">" && i > 1 && t[i - 2].text == "-"))) continue;  // x.object
    size_t last = i;
    std::string method;
    if (!MethodCall(t, i, &last, &method) || (!PointerAccessors().count(method) && !SizeQueries().count(method))) {
      *why = fmt::format("the loop uses `{}` otherwise than through one accessor (`{}.data()`, `.get()`) and its size",
                         object, object);
      return std::nullopt;
    }
    if (SizeQueries().count(method)) continue;
    if (method == "begin" && !DeclaresPointerBegin(program_code)) {
      *why = fmt::format("the loop reaches `{}` through `{}.begin()`, an iterator (the program declares no `begin()` "
                         "returning a pointer)", object, object);
      return std::nullopt;
    }
    size_t first = i;
    // thrust::raw_pointer_cast( <accessor> ): the raw pointer of a thrust::device_ptr.
    if (i >= 2 && t[i - 1].text == "(" && t[i - 2].text == "raw_pointer_cast" && last + 1 < t.size() &&
        t[last + 1].text == ")") {
      first = i - 2;
      if (i >= 5 && t[i - 3].text == ":" && t[i - 4].text == ":" && t[i - 5].ident) first = i - 5;
      last += 1;
    }
    if (last + 1 < t.size() && (t[last + 1].text == "." || (t[last + 1].text == "-" && last + 2 < t.size() &&
                                                              t[last + 2].text == ">"))) {
      *why = fmt::format("the loop uses a member of what `{}`'s accessor returns (a thrust::device_ptr's `.get()`)", object);
      return std::nullopt;
    }
    const std::string here = body.substr(t[first].begin, t[last].end - t[first].begin);
    if (!expr.empty() && here != expr) {
      *why = fmt::format("the loop reaches `{}` through two accessors, `{}` and `{}`", object, expr, here);
      return std::nullopt;
    }
    expr = here;
  }
  if (expr.empty()) {
    *why = fmt::format("the loop reaches `{}` through no accessor (`{}.data()`, `.get()`)", object, object);
    return std::nullopt;
  }
  return HeldAccessor{object, expr, "cuco_held_" + object};
}

std::string UseHeld(const std::string& body, const std::vector<HeldAccessor>& held) {
  std::string out = body;
  for (const HeldAccessor& h : held) {
    // Replace from the end, so that earlier offsets stay valid.
    const std::vector<Tok> t = Scan(out);
    std::vector<std::pair<size_t, size_t>> spans;
    for (size_t i = 0; i < t.size(); ++i) {
      if (!t[i].ident || out.compare(t[i].begin, h.expr.size(), h.expr) != 0) continue;
      size_t j = i;
      while (j < t.size() && t[j].end <= t[i].begin + h.expr.size()) ++j;
      // Not a member of another object (`s.v.data()`, `p->v.data()`) nor a name of another scope
      // (`ns::v.data()`); after a ternary's `:` it is this one.
      const bool qualified = i >= 2 && t[i - 1].text == ":" && t[i - 2].text == ":";
      if (j > i && t[j - 1].end == t[i].begin + h.expr.size() && !FollowsMemberAccess(t, i) && !qualified)
        spans.push_back({t[i].begin, h.expr.size()}), i = j - 1;
    }
    for (auto it = spans.rbegin(); it != spans.rend(); ++it) out.replace(it->first, it->second, h.local);
  }
  return out;
}

std::string HeldDeclarations(const std::vector<HeldAccessor>& held) {
  std::string out;
  for (const HeldAccessor& h : held) out += fmt::format("auto* {} = {};\n  ", h.local, h.expr);
  return out;
}

bool CapturesByReference(const std::string& statement) {
  const std::vector<Tok> t = Scan(statement);
  for (size_t i = 0; i + 2 < t.size(); ++i)
    if (t[i].text == "=" && t[i + 1].text == "[")
      return t[i + 2].text == "&" && i + 3 < t.size() && (t[i + 3].text == "]" || t[i + 3].text == ",");
  return false;
}

HeldInLambdas UseHeldInLambdas(const std::string& text, const std::vector<std::pair<size_t, size_t>>& lambdas,
                               const std::vector<HeldAccessor>& held) {
  HeldInLambdas r;
  size_t from = 0;
  for (const auto& [begin, end] : lambdas) {
    const std::string statement = text.substr(begin, end - begin);
    std::string declarations;
    const size_t line_start = text.rfind('\n', begin == 0 ? 0 : begin - 1);
    const std::string indent = text.substr(line_start == std::string::npos ? 0 : line_start + 1,
                                           begin - (line_start == std::string::npos ? 0 : line_start + 1));
    std::vector<HeldAccessor> used;
    for (const HeldAccessor& h : held) {
      if (UseHeld(statement, {h}) == statement) continue;
      used.push_back(h);
      if (r.declared.insert(h.object).second)
        declarations += fmt::format("auto* {} = {};\n{}", h.local, h.expr,
                                    indent.find_first_not_of(" \t") == std::string::npos ? indent : "");
    }
    r.lambdas.push_back(UseHeld(statement, used));
    r.text += text.substr(from, begin - from) + declarations + r.lambdas.back();
    from = r.after = end;
  }
  r.text += text.substr(from);
  r.shift = static_cast<long>(r.text.size()) - static_cast<long>(text.size());
  return r;
}

}  // namespace cuco::scaffold_internal
