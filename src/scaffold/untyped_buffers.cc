#include "scaffold/untyped_buffers.h"

#include <map>
#include <regex>
#include <vector>
#include <set>

#include "scaffold/iteration_io.h"
#include "util/source_text.h"

namespace cuco::scaffold_internal {

std::string FloatTypeOfDatatypes(const std::set<std::string>& datatypes) {
  // The floating ones of DTypeFor's datatypes, as C++ types.
  static const std::map<std::string, std::string> kFloat = {
      {"kF32", "float"}, {"kF64", "double"}, {"kF16", "__half"}, {"kBF16", "__nv_bfloat16"}};
  std::string type;
  for (const std::string& d : datatypes) {
    const char* dtype = DTypeFor(Trim(d));
    const auto it = dtype == nullptr ? kFloat.end() : kFloat.find(dtype);
    if (it == kFloat.end() || (!type.empty() && type != it->second)) return "";
    type = it->second;
  }
  return type;
}

std::string DatatypeValue(const std::string& code, const std::string& datatype) {
  static const std::regex last_name(R"(([A-Za-z_]\w*)\s*$)");
  const std::string d = Trim(datatype);
  std::smatch m;
  if (d.rfind("nccl", 0) == 0 || !std::regex_search(d, m, last_name)) return d;
  const std::regex given(R"((?:^|\W))" + m[1].str() + R"(\s*(?:=|\{|\()\s*(nccl[A-Z]\w*)\b)");
  std::set<std::string> values;
  for (auto i = std::sregex_iterator(code.begin(), code.end(), given); i != std::sregex_iterator(); ++i)
    values.insert((*i)[1].str());
  return values.size() == 1 ? *values.begin() : d;
}

namespace {

// The pointer declarations of the last name of `expr` in `code`: each one's type word (`void *a =
// nullptr, *name` -> "void", `std::vector<float*> name` -> "float").
std::vector<std::string> PointerDeclarationTypes(const std::string& code, const std::string& expr) {
  static const std::regex last_name(R"(([A-Za-z_]\w*)\s*(?:\[[^\]]*\]\s*)*$)");
  std::smatch m;
  if (!std::regex_search(expr, m, last_name)) return {};
  // A type word and a pointer (or a container of them closing `>`), then the declarators before the
  // name in one declaration (`void *a = nullptr, *name`, `std::vector<void*> name`).
  const std::regex declared(R"(\b([A-Za-z_]\w*)\s*\*[\s\*&>]*(?:const\s+)?)"
                            R"((?:[A-Za-z_]\w*\s*(?:\[[^\]]*\]\s*)?(?:=\s*[^,;(){}]*)?,[\s\*&]*)*)" +
                            m[1].str() + R"(\b)");
  std::vector<std::string> types;
  for (auto i = std::sregex_iterator(code.begin(), code.end(), declared); i != std::sregex_iterator(); ++i)
    types.push_back((*i)[1].str());
  return types;
}

}  // namespace

std::string DeclaredFloatType(const std::string& code, const std::string& expr) {
  static const std::map<std::string, std::string> kFloats = {
      {"float", "float"},   {"double", "double"},           {"__half", "__half"},
      {"half", "__half"},   {"__nv_bfloat16", "__nv_bfloat16"}, {"nv_bfloat16", "__nv_bfloat16"}};
  std::string found;
  for (const std::string& type : PointerDeclarationTypes(code, expr)) {
    auto it = kFloats.find(type);
    if (it == kFloats.end()) continue;
    if (!found.empty() && found != it->second) return "";
    found = it->second;
  }
  return found;
}

bool DeclaredUntyped(const std::string& code, const std::string& expr) {
  static const std::set<std::string> kBytes = {"void", "char", "uint8_t", "int8_t", "byte"};
  static const std::set<std::string> kTyped = {"float",   "double",  "__half",   "half",     "__nv_bfloat16",
                                               "nv_bfloat16", "int", "long",    "short",    "int16_t",
                                               "uint16_t", "int32_t", "uint32_t", "int64_t", "uint64_t", "size_t"};
  bool bytes = false;
  for (const std::string& type : PointerDeclarationTypes(code, expr)) {
    if (kTyped.count(type)) return false;  // also declared typed (main's `float* C`, a helper's `void* C`)
    bytes = bytes || kBytes.count(type) > 0;
  }
  return bytes;
}

}  // namespace cuco::scaffold_internal
