#include "scaffold/object_storage.h"

#include <regex>
#include <set>

namespace cuco::scaffold_internal {
namespace {

// The body of `class type {...}` / `struct type {...}` in `code` (its first definition), "" when none.
std::string ClassBody(const std::string& code, const std::string& type) {
  const std::regex head(R"(\b(?:class|struct)\s+)" + type + R"(\b[^;{]*\{)");
  std::smatch m;
  if (!std::regex_search(code, m, head)) return "";
  const size_t open = static_cast<size_t>(m.position(0) + m.length(0)) - 1;
  int depth = 0;
  for (size_t i = open; i < code.size(); ++i) {
    if (code[i] == '{') ++depth;
    else if (code[i] == '}' && --depth == 0) return code.substr(open + 1, i - open - 1);
  }
  return "";
}

}  // namespace

std::optional<std::string> ObjectDeviceStorage(const std::string& object, const std::string& program_code) {
  static const std::regex name(R"(^[A-Za-z_]\w*$)");
  if (!std::regex_match(object, name)) return std::nullopt;
  // `Field x_new;`, `extern Field x_new;`, `Field b(nx, ny);`, `Field u{n};`, `static Field x = ...;`:
  // a type word then the name, no `*` or `&` between.
  static const std::set<std::string> kNotTypes = {"return", "extern", "static", "const", "delete", "new", "case",
                                                  "goto",   "else",   "typedef", "using", "struct", "class"};
  const std::regex declared(R"(\b([A-Za-z_]\w*)\s+)" + object + R"(\s*(?:;|\(|\{|=|\[))");
  std::set<std::string> types;
  for (auto i = std::sregex_iterator(program_code.begin(), program_code.end(), declared); i != std::sregex_iterator();
       ++i)
    if (!kNotTypes.count((*i)[1].str())) types.insert((*i)[1].str());
  if (types.size() != 1) return std::nullopt;  // none, or declared of two types: not known
  const std::string body = ClassBody(program_code, *types.begin());
  static const std::regex accessor(
      R"(\b[A-Za-z_][\w:<>]*\s*\*\s*(device_data|device_ptr|dev_ptr|d_data|d_ptr|gpu_data|gpu_ptr|cuda_data)\s*\(\s*\))");
  std::smatch m;
  if (body.empty() || !std::regex_search(body, m, accessor)) return std::nullopt;
  return object + "." + m[1].str() + "()";
}

}  // namespace cuco::scaffold_internal
