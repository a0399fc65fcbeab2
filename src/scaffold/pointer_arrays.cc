#include "scaffold/pointer_arrays.h"

#include <regex>
#include <set>

namespace cuco::scaffold_internal {
namespace {

// `text` without the spaces around it.
std::string Trimmed(const std::string& text) {
  const size_t b = text.find_first_not_of(" \t\n");
  if (b == std::string::npos) return "";
  return text.substr(b, text.find_last_not_of(" \t\n") - b + 1);
}

}  // namespace

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
      found.insert(Trimmed((*it)[1].str()));
  return found.size() == 1 ? *found.begin() : "";
}

}  // namespace cuco::scaffold_internal
