#include "scaffold/task_starts.h"

#include <algorithm>
#include <cctype>
#include <regex>

#include "analyze/analysis.h"
#include "util/source_text.h"

namespace cuco::scaffold_internal {

std::vector<TaskStart> TaskStarts(const std::string& text, const std::set<std::string>& functions) {
  static const std::regex start(R"(\b(std\s*::\s*async|std\s*::\s*j?thread|emplace_back|pthread_create)\s*(?:[A-Za-z_]\w*\s*)?\()");
  const std::string code = BlankCommentsAndLiterals(text);
  std::vector<TaskStart> out;
  for (auto it = std::sregex_iterator(code.begin(), code.end(), start); it != std::sregex_iterator(); ++it) {
    const size_t open = static_cast<size_t>(it->position(0) + it->length(0)) - 1;
    int depth = 0;
    size_t close = open;
    for (; close < code.size(); ++close) {
      depth += code[close] == '(' ? 1 : code[close] == ')' ? -1 : 0;
      if (depth == 0) break;
    }
    if (close >= code.size()) continue;
    for (std::string arg : SplitArgs(code.substr(open + 1, close - open - 1))) {
      arg = Trim(arg);
      if (!arg.empty() && arg[0] == '&') arg = Trim(arg.substr(1));
      if (!functions.count(arg)) continue;
      std::string api = (*it)[1].str();
      api.erase(std::remove_if(api.begin(), api.end(), [](unsigned char c) { return std::isspace(c); }), api.end());
      if (api == "std::jthread") api = "std::thread";
      out.push_back({api, arg, static_cast<size_t>(it->position(0))});
      break;
    }
  }
  return out;
}

}  // namespace cuco::scaffold_internal
