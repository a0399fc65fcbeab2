#include "scaffold/object_storage.h"

#include <regex>
#include <set>

#include "util/source_text.h"

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

// The accessor of class body `body` that gives its device storage: a method named like one, or one
// with no parameters returning a pointer member the class allocates with cudaMalloc
// (`double* get_ptr_device() { return array_d; }` beside `cudaMalloc(&array_d, ...)`); "" for none.
std::string DeviceAccessor(const std::string& body) {
  static const std::regex named(
      R"(\b[A-Za-z_][\w:<>]*\s*\*\s*(device_data|device_ptr|dev_ptr|d_data|d_ptr|gpu_data|gpu_ptr|cuda_data)\s*\(\s*\))");
  std::smatch m;
  if (std::regex_search(body, m, named)) return m[1].str();
  static const std::regex returning(
      R"(\b[A-Za-z_][\w:<>]*\s*\*\s*([A-Za-z_]\w*)\s*\(\s*\)\s*(?:const\s*)?\{\s*return\s+(?:this\s*->\s*)?([A-Za-z_]\w*)\s*;\s*\})");
  for (auto i = std::sregex_iterator(body.begin(), body.end(), returning); i != std::sregex_iterator(); ++i) {
    const std::string member = (*i)[2].str();
    if (std::regex_search(body, std::regex(R"(\bcudaMalloc(?:Managed)?\s*\(\s*(?:\(\s*void\s*\*\s*\*\s*\)\s*)?&\s*)" + member + R"(\b)")))
      return (*i)[1].str();
  }
  return "";
}

}  // namespace

std::optional<std::string> ObjectDeviceStorage(const std::string& expr, const std::string& program_text) {
  const std::string program_code = BlankComments(program_text);  // `// init only on device\n grids[1]...` declares nothing
  // An object, or an entry of an array of objects (`Grid grids[3];`'s `grids[0]`).
  static const std::regex name(R"(^([A-Za-z_]\w*)\s*(?:\[\s*\d+\s*\])?$)");
  std::smatch em;
  if (!std::regex_match(expr, em, name)) return std::nullopt;
  const std::string object = em[1].str();
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
  const std::string accessor = body.empty() ? "" : DeviceAccessor(body);
  if (accessor.empty()) return std::nullopt;
  return expr + "." + accessor + "()";
}

}  // namespace cuco::scaffold_internal
