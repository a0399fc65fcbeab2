#include "util/language_standard.h"

#include <map>
#include <set>

namespace cuco {

std::string AtLeastCpp17(const std::string& std_flag, bool nvcc_spelling) {
  if (std_flag.rfind("-std=", 0) != 0) return std_flag;
  std::string v = std_flag.substr(5);
  const bool gnu = v.rfind("gnu", 0) == 0;
  if (gnu) v = v.substr(3);
  else if (v.rfind("c", 0) == 0) v = v.substr(1);
  static const std::map<std::string, std::string> kAliases = {{"++0x", "++11"}, {"++1y", "++14"}, {"++1z", "++17"},
                                                              {"++2a", "++20"}, {"++2b", "++23"}};
  if (auto it = kAliases.find(v); it != kAliases.end()) v = it->second;
  static const std::set<std::string> kTooOld = {"++98", "++03", "++11", "++14"};
  if (v.rfind("++", 0) != 0 || kTooOld.count(v)) v = "++17";
  return "-std=" + std::string(gnu && !nvcc_spelling ? "gnu" : "c") + v;
}

bool IsNvccLanguageFlag(const std::string& flag) {
  static const std::set<std::string> k = {"--expt-relaxed-constexpr", "-expt-relaxed-constexpr", "--expt-extended-lambda",
                                          "-expt-extended-lambda", "--extended-lambda", "-extended-lambda"};
  return k.count(flag) > 0;
}

}  // namespace cuco
