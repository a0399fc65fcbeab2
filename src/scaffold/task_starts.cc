#include "scaffold/task_starts.h"

#include "scaffold/tokens.h"

namespace cuco::scaffold_internal {
namespace {

// The api a start begins with at token i (`std::async`, `std::thread`, `std::jthread`,
// `emplace_back`, `pthread_create`), or "" when none does; *next is the token after its name.
std::string StartApi(const std::vector<Tok>& t, size_t i, size_t* next) {
  if (t[i].text == "emplace_back" || t[i].text == "pthread_create") {
    *next = i + 1;
    return t[i].text;
  }
  if (t[i].text != "std" || i + 3 >= t.size() || t[i + 1].text != ":" || t[i + 2].text != ":") return "";
  const std::string& name = t[i + 3].text;
  if (name != "async" && name != "thread" && name != "jthread") return "";
  *next = i + 4;
  return name == "async" ? "std::async" : "std::thread";
}

// The function of `functions` argument [b, e) names: `fn`, `&fn`, or either behind a C cast
// (`(void* (*)(void*))fn`); "" otherwise.
std::string NamedFunction(const std::vector<Tok>& t, size_t b, size_t e, const std::set<std::string>& functions) {
  if (b < e && t[b].text == "(") {  // a cast, when something follows its parentheses
    const size_t close = Match(t, b);
    if (close + 1 < e) b = close + 1;
  }
  if (b < e && t[b].text == "&") ++b;
  return b + 1 == e && t[b].ident && functions.count(t[b].text) ? t[b].text : "";
}

}  // namespace

std::vector<TaskStart> TaskStarts(const std::string& text, const std::set<std::string>& functions) {
  const std::vector<Tok> t = Scan(text);
  std::vector<TaskStart> out;
  for (size_t i = 0; i < t.size(); ++i) {
    size_t open = 0;
    const std::string api = StartApi(t, i, &open);
    if (api.empty() || open >= t.size()) continue;
    if (api == "std::thread" && t[open].ident) ++open;  // `std::thread worker(fn, ...)`
    if (open >= t.size() || !(t[open].text == "(" || (api == "std::thread" && t[open].text == "{"))) continue;
    const size_t close = Match(t, open);
    if (close >= t.size()) continue;
    // The arguments, split at the commas outside brackets.
    for (size_t b = open + 1, k = open + 1; k <= close; ++k) {
      const std::string& s = t[k].text;
      if (s == "(" || s == "{" || s == "[") {
        k = Match(t, k);
        continue;
      }
      if (s != "," && k != close) continue;
      const std::string fn = NamedFunction(t, b, k, functions);
      if (!fn.empty()) {
        out.push_back({api, fn, t[i].begin});
        break;
      }
      b = k + 1;
    }
  }
  return out;
}

std::string ThreadFunction(const std::string& text, const std::set<std::string>& functions) {
  for (const TaskStart& s : TaskStarts(text, functions))
    if (s.api != "std::async") return s.function;
  return "";
}

}  // namespace cuco::scaffold_internal
