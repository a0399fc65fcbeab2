#include "scaffold/array_entries.h"

#include <fmt/format.h>

#include <regex>
#include <set>

#include "scaffold/pointer_arrays.h"
#include "util/source_text.h"

namespace cuco::scaffold_internal {
namespace {

// A chain `a.b->c` as its names and the separators before each (`""` for the first).
struct Chain {
  std::vector<std::string> names, seps;
};

Chain Split(const std::string& chain) {
  static const std::regex part(R"((^|\.|->)([A-Za-z_][\w:]*))");
  Chain c;
  for (auto it = std::sregex_iterator(chain.begin(), chain.end(), part); it != std::sregex_iterator(); ++it)
    c.seps.push_back((*it)[1].str()), c.names.push_back((*it)[2].str());
  return c;
}

// The chain's parts 0..k as written (`pool.buffers`).
std::string Prefix(const Chain& c, size_t k) {
  std::string out;
  for (size_t i = 0; i <= k; ++i) out += c.seps[i] + c.names[i];
  return out;
}

// Whether `code` subscripts the chain's part k (`layers[l].w` for part 0 of `layers.w`), earlier
// parts subscripted or not.
bool Subscripted(const Chain& c, size_t k, const std::string& code) {
  const std::string sub = R"((?:\s*\[[^\[\];]*\])?)";
  std::string pattern = "\\b";
  for (size_t i = 0; i <= k; ++i) {
    if (i > 0) pattern += sub + (c.seps[i] == "." ? R"(\s*\.\s*)" : R"(\s*->\s*)");
    pattern += c.names[i];
  }
  return std::regex_search(code, std::regex(pattern + R"(\s*\[)"));
}

// Element types that make an array host data, never an array of buffers (`float h[4]`,
// `std::vector<int> counts`): a negative lookahead for where the element type starts.
// Statements' keywords too (`else b[i] = x;` assigns).
const char kNoScalar[] =
    R"((?!(?:const\s+)?(?:float|double|int|unsigned|signed|long|short|char|bool|size_t|half|__half|__nv_bfloat16|)"
    R"(nv_bfloat16|u?int\d+_t|return|delete|throw|case|else|goto|sizeof|new|do|typedef|using)\b(?!\s*\*)))";

// Whether `code` declares `name` an array of buffers or of objects holding them: `T* name[N]` or
// `T** name` (a statement's or parameter's start before the type: `2.f * x[i]` multiplies), `T
// name[N]` of a class type, a std::vector or std::array of pointers or of a class type.
bool DeclaredArray(const std::string& code, const std::string& name) {
  const std::string start = R"((?:^|[;{}(,])\s*(?:(?:const|static|volatile)\s+)*)";
  const std::regex pointers(start + R"([A-Za-z_][\w:<>]*\s*\*\s*(?:const\s*)?(?:\*\s*(?:const\s*)?)?)" + name +
                            R"(\s*\[|)" + start + R"([A-Za-z_][\w:<>]*\s*\*\s*(?:const\s*)?\*\s*)" + name + R"(\s*[;=,)])");
  const std::regex objects(start + kNoScalar + R"([A-Za-z_][\w:<>]*\s+)" + name + R"(\s*\[[^\];]*\]\s*[;={])");
  const std::regex container(R"(\bstd\s*::\s*(?:vector|array)\s*<\s*)" + std::string(kNoScalar) + R"([^;]*?>\s*&?\s*)" +
                             name + R"(\s*[;({])");
  return std::regex_search(code, pointers) || std::regex_search(code, objects) || std::regex_search(code, container);
}

}  // namespace

std::string ArrayLength(const std::string& code, const std::string& name) {
  std::set<std::string> found;
  if (const std::string p = PointerArrayLength(code, name); !p.empty()) found.insert(p);
  const std::vector<std::regex> forms = {
      // T name[count];  (not `return name[i];`)
      std::regex(R"(\b(?!return\b|delete\b|throw\b|case\b|else\b|goto\b|sizeof\b|new\b|do\b)[A-Za-z_][\w:<>]*\s+)" + name +
                 R"(\s*\[\s*([^\];]+?)\s*\]\s*[;={])"),
      // std::vector<T> name(count);  std::array<T, count> name;  name.resize(count);
      std::regex(R"(\bstd\s*::\s*vector\s*<[^;]*?>\s*)" + name + R"(\s*\(\s*([^;(),]+?)\s*[,)])"),
      std::regex(R"(\bstd\s*::\s*array\s*<[^;]*?,\s*([^<>;,]+?)\s*>\s*)" + name + R"(\b)"),
      std::regex("\\b" + name + R"(\s*\.\s*resize\s*\(\s*([^;(),]+?)\s*\))"),
  };
  for (const std::regex& form : forms)
    for (auto it = std::sregex_iterator(code.begin(), code.end(), form); it != std::sregex_iterator(); ++it)
      found.insert(Trim((*it)[1].str()));
  return found.size() == 1 ? *found.begin() : "";
}

std::optional<ArrayEntries> EntriesOf(const std::string& chain, const std::string& code, const ProgramDefaults& run,
                                      int max_entries, std::string* why) {
  const Chain c = Split(chain);
  if (c.names.empty() || Prefix(c, c.names.size() - 1) != chain) return std::nullopt;
  std::vector<size_t> arrays;  // the parts `code` subscripts and declares arrays
  for (size_t k = 0; k < c.names.size(); ++k)
    if (Subscripted(c, k, code) && (DeclaredArray(code, c.names[k]) || (k > 0 && MemberPointerArrayOf(Prefix(c, k), code))))
      arrays.push_back(k);
  if (arrays.empty()) return std::nullopt;
  ArrayEntries e;
  const size_t k = arrays.front();
  e.array = Prefix(c, k);
  if (arrays.size() > 1) {
    *why = fmt::format("`{}` is subscripted twice (`{}` and `{}`, arrays of arrays): cuco init binds the entries of one "
                       "array", chain, e.array, Prefix(c, arrays[1]));
    return e;
  }
  if (k > 0)
    if (const std::optional<MemberPointerArray> m = MemberPointerArrayOf(e.array, code)) e.length = m->length;
  if (e.length.empty()) e.length = ArrayLength(code, c.names[k]);
  const std::optional<int64_t> n = e.length.empty() ? std::nullopt : ValueUnder(e.length, run);
  if (!n || *n < 1 || *n > max_entries) {
    *why = fmt::format("`{}` is an array (its length {}): the harness binds its entries one by one where their count is "
                       "known and at most {}",
                       e.array, e.length.empty() ? "not found" : n ? fmt::format("`{}` = {}", e.length, *n)
                                                                   : fmt::format("`{}`, not a number before the loop", e.length),
                       max_entries);
    return e;
  }
  const std::string rest = chain.substr(e.array.size());
  for (int64_t i = 0; i < *n; ++i) e.entries.push_back(fmt::format("{}[{}]{}", e.array, i, rest));
  return e;
}

}  // namespace cuco::scaffold_internal
