#include "scaffold/pointer_arrays.h"

#include <regex>
#include <set>

#include "util/source_text.h"

namespace cuco::scaffold_internal {

bool IsPointerArray(const std::string& code, const std::string& name) {
  const std::string qualifiers = R"(\s*(?:(?:const|volatile|__restrict__|__restrict)\s+)*)";
  const std::regex pointers(R"(\*\s*(?:const\s*)?\*)" + qualifiers + name + R"(\b|\*)" + qualifiers + name + R"(\s*\[)");
  const std::regex vector(R"(\bstd\s*::\s*(?:vector|array)\s*<[^<>;]*\*\s*(?:,[^<>;]*)?>\s*&?\s*)" + name + R"(\b)");
  return std::regex_search(code, pointers) || std::regex_search(code, vector);
}

std::string PointerArrayLength(const std::string& code, const std::string& name) {
  // Each a way to give the array its length; group 1 the count.
  const std::string n = name;
  const std::string count = R"(([^;(){}]+?|[^;{}]*?\([^;(){}]*\)[^;(){}]*?))";
  const std::vector<std::regex> forms = {
      // name = (T**)malloc(count * sizeof(T*));  also sizeof(T*) * count
      std::regex("\\b" + n + R"(\s*=\s*(?:\([^;()]*\)\s*)?malloc\s*\(\s*)" + count + R"(\s*\*\s*sizeof\s*\([^;()]*\*\s*\)\s*\))"),
      std::regex("\\b" + n + R"(\s*=\s*(?:\([^;()]*\)\s*)?malloc\s*\(\s*sizeof\s*\([^;()]*\*\s*\)\s*\*\s*)" + count + R"(\s*\))"),
      // name = (T**)calloc(count, sizeof(T*));
      std::regex("\\b" + n + R"(\s*=\s*(?:\([^;()]*\)\s*)?calloc\s*\(\s*)" + count + R"(\s*,\s*sizeof\s*\([^;()]*\*\s*\)\s*\))"),
      // name = new T*[count];
      std::regex("\\b" + n + R"(\s*=\s*new\s+[\w:<>\s]+\*\s*\[\s*([^\];]+)\s*\])"),
      // T* name[count];
      std::regex(R"(\*\s*)" + n + R"(\s*\[\s*([^\];]+)\s*\]\s*[;=])"),
      // std::vector<T*> name(count);  name.resize(count);  std::array<T*, count> name;
      std::regex(R"(\bstd\s*::\s*vector\s*<[^<>;]*\*\s*>\s*)" + n + R"(\s*\(\s*([^;(),]+?)\s*[,)])"),
      std::regex("\\b" + n + R"(\s*\.\s*resize\s*\(\s*([^;(),]+?)\s*\))"),
      std::regex(R"(\bstd\s*::\s*array\s*<[^<>;]*\*\s*,\s*([^<>;]+?)\s*>\s*)" + n + R"(\b)"),
  };
  std::set<std::string> found;
  for (const std::regex& form : forms)
    for (auto it = std::sregex_iterator(code.begin(), code.end(), form); it != std::sregex_iterator(); ++it)
      found.insert(Trim((*it)[1].str()));
  return found.size() == 1 ? *found.begin() : "";
}

std::optional<MemberPointerArray> MemberPointerArrayOf(const std::string& chain, const std::string& code) {
  static const std::regex last_field(R"((?:\.|->)\s*([A-Za-z_]\w*)$)");
  std::smatch m;
  if (!std::regex_search(chain, m, last_field)) return std::nullopt;
  const std::string field = m[1].str();
  // Declared as a member: a pointer array not in a parameter list (the `;` or `[N];` ends it), its
  // declaration starting a statement (`2.f * x[i];` multiplies).
  const std::string qualifiers = R"(\s*(?:(?:const|volatile|__restrict__|__restrict)\s+)*)";
  const std::string start = R"((?:^|[;{}])\s*(?:(?:const|static|volatile)\s+)*[A-Za-z_][\w:<>]*\s*)";
  const std::regex member(start + R"(\*\s*(?:const\s*)?\*)" + qualifiers + field + R"(\s*;|)" + start + R"(\*)" +
                          qualifiers + field + R"(\s*\[[^\];]*\]\s*;|\bstd\s*::\s*(?:vector|array)\s*<[^<>;]*\*\s*(?:,[^<>;]*)?>\s*)" +
                          field + R"(\s*[;{])");
  if (!std::regex_search(code, member)) return std::nullopt;
  std::set<std::string> found;
  if (const std::string own = PointerArrayLength(code, field); !own.empty()) found.insert(own);
  // `x.field = source;` or `x->field = source.data() + offset;`: the source's length.
  const std::regex assigned(R"((?:\.|->)\s*)" + field +
                            R"(\s*=\s*(?:\([^;()]*\)\s*)?([A-Za-z_]\w*)\s*(?:\.\s*data\s*\(\s*\))?\s*(?:\+[^;]*)?;)");
  for (auto it = std::sregex_iterator(code.begin(), code.end(), assigned); it != std::sregex_iterator(); ++it) {
    const std::string source = (*it)[1].str();
    if (IsNullPointerLiteral(source) || !IsPointerArray(code, source)) continue;
    const std::string length = PointerArrayLength(code, source);
    found.insert(length);  // "" when the source's length is not found: then none is known
  }
  return MemberPointerArray{field, found.size() == 1 ? *found.begin() : ""};
}

}  // namespace cuco::scaffold_internal
