#include "scaffold/callee_defaults.h"

#include <map>
#include <optional>
#include <set>

#include "scaffold/loop_choice.h"
#include "scaffold/main_rewrite.h"
#include "scaffold/tokens.h"

namespace cuco::scaffold_internal {
namespace {

// The `>` closing the template brackets opened at `open`, or t.size() (a statement or block ends first).
size_t AngleClose(const std::vector<Tok>& t, size_t open) {
  int depth = 0;
  for (size_t i = open; i < t.size(); ++i) {
    if (t[i].text == "<") ++depth;
    else if (t[i].text == ">" && --depth == 0) return i;
    else if (t[i].text == ";" || t[i].text == "{" || t[i].text == "}") break;
    else if (t[i].text == "(" || t[i].text == "[") i = Match(t, i);
  }
  return t.size();
}

std::vector<std::string> Between(const std::string& text, const std::vector<Tok>& t, size_t open, size_t close) {
  return SplitArgs(text.substr(t[open].end, t[close].begin - t[open].end));
}

// A parameter as declared (`int RANK = 0`, `size_t n`): its name, and its default ("" when none).
std::pair<std::string, std::string> NameAndDefault(const std::string& param) {
  const size_t eq = param.find('=');
  const std::vector<Tok> t = Scan(param.substr(0, eq));
  std::string name;
  for (const Tok& k : t)
    if (k.ident) name = k.text;
  return {name, eq == std::string::npos ? "" : param.substr(eq + 1)};
}

// A call's token is a call, not a declaration (`static void run(int n);`, a type before the name).
bool IsCall(const std::vector<Tok>& t, size_t name) {
  if (name == 0 || !t[name - 1].ident) return true;
  static const std::set<std::string> kBeforeCalls = {"return", "else", "do", "case", "co_return", "throw"};
  return kBeforeCalls.count(t[name - 1].text) > 0;
}

}  // namespace

ProgramDefaults CalleeDefaults(const std::string& def, const AnalyzedFunction& fn, const CallArguments& call,
                               const ProgramDefaults& caller) {
  ProgramDefaults d;
  d.enumerators = caller.enumerators;
  auto bind = [&](const std::string& name, const std::string& given) {
    if (name.empty() || given.empty()) return;
    if (const std::optional<int64_t> v = ValueUnder(given, caller)) d.values[name] = *v;
    else if (BranchTruth(given, 0, given.size(), caller) == Truth::kPerRank) d.rank_vars.insert(name);
  };
  const std::vector<Tok> t = Scan(def);
  size_t at = t.size();
  for (size_t i = 0; i + 1 < t.size() && at == t.size(); ++i)
    if (t[i].ident && t[i].text == fn.name && t[i + 1].text == "(") at = i;
  if (at == t.size()) return d;
  for (size_t i = 0; i + 1 < at; ++i) {
    if (!(t[i].ident && t[i].text == "template" && t[i + 1].text == "<")) continue;
    const size_t close = AngleClose(t, i + 1);
    if (close >= at) break;
    const std::vector<std::string> params = Between(def, t, i + 1, close);
    for (size_t k = 0; k < params.size(); ++k) {
      const auto [name, given_default] = NameAndDefault(params[k]);
      bind(name, k < call.template_args.size() ? call.template_args[k] : given_default);
    }
    break;
  }
  const size_t close = Match(t, at + 1);
  if (close >= t.size()) return d;
  const std::vector<std::string> params = Between(def, t, at + 1, close);
  for (size_t i = 0; i < fn.params.size() && i < params.size(); ++i)
    bind(fn.params[i], i < call.args.size() ? call.args[i] : NameAndDefault(params[i]).second);
  return d;
}

ProgramDefaults DefaultsOverCalls(const std::string& text, const AnalyzedFunction& fn,
                                  const std::function<ProgramDefaults(int line)>& caller_defaults) {
  size_t def_b = 0, def_e = 0;
  if (!DefinitionLines(text, fn.name, &def_b, &def_e)) return {};
  const std::string def = text.substr(def_b, def_e - def_b);
  struct Call {
    ProgramDefaults at;
    bool in_rank_arm = false;  // in an arm of a branch each rank decides
  };
  std::vector<Call> calls;
  ProgramDefaults out;
  const std::vector<Tok> t = Scan(text);
  for (size_t i = 0; i + 1 < t.size(); ++i) {
    if (!t[i].ident || t[i].text != fn.name || (t[i].begin >= def_b && t[i].begin < def_e) || !IsCall(t, i)) continue;
    CallArguments args;
    size_t open = i + 1;
    if (t[open].text == "<") {
      const size_t close = AngleClose(t, open);
      if (close + 1 >= t.size()) continue;
      args.template_args = Between(text, t, open, close);
      open = close + 1;
    }
    const size_t close = t[open].text == "(" ? Match(t, open) : t.size();
    if (close >= t.size()) continue;
    args.args = Between(text, t, open, close);
    const ProgramDefaults caller = caller_defaults(t[i].line);
    out.enumerators = caller.enumerators;
    Call c{CalleeDefaults(def, fn, args, caller)};
    for (const Branch& b : BranchesHolding(t, 0, t.size(), i, close))
      c.in_rank_arm |= BranchTruth(text, t[b.open].end, t[b.close].begin, caller) == Truth::kPerRank;
    calls.push_back(std::move(c));
  }
  if (calls.empty()) return out;
  std::set<std::string> names;
  for (const Call& c : calls) {
    for (const auto& [name, v] : c.at.values) names.insert(name);
    names.insert(c.at.rank_vars.begin(), c.at.rank_vars.end());
  }
  for (const std::string& name : names) {
    std::set<int64_t> values;
    bool every_value = true, every_rank_arm = true, rank = false;
    for (const Call& c : calls) {
      rank |= c.at.rank_vars.count(name) > 0;
      const auto v = c.at.values.find(name);
      if (v == c.at.values.end()) every_value = false;
      else values.insert(v->second);
      every_rank_arm &= c.in_rank_arm;
    }
    if (rank || (every_value && values.size() > 1 && every_rank_arm)) out.rank_vars.insert(name);
    else if (every_value && values.size() == 1) out.values[name] = *values.begin();
  }
  return out;
}

}  // namespace cuco::scaffold_internal
