#include "scaffold/unreached_comm.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <regex>
#include <vector>

#include "scaffold/iteration_io.h"
#include "scaffold/loop_accesses.h"
#include "scaffold/main_rewrite.h"
#include "scaffold/tokens.h"
#include "util/source_text.h"

namespace cuco::scaffold_internal {

std::set<std::string> CalledFrom(const Analysis& a, const std::string& fn) {
  std::set<std::string> reached = {fn};
  for (bool grew = true; grew;) {
    grew = false;
    for (const AnalyzedOp& op : a.ops)
      if (op.kind == "call" && !op.api.empty() && reached.count(op.function) && reached.insert(op.api).second) grew = true;
  }
  return reached;
}

std::string CalledParameters(const std::string& body, const std::vector<std::string>& params) {
  std::vector<std::string> called;
  const std::vector<Tok> toks = Scan(body);
  for (size_t i = 0; i + 1 < toks.size(); ++i)
    if (toks[i].ident && toks[i + 1].text == "(" &&
        std::find(params.begin(), params.end(), toks[i].text) != params.end() &&
        std::find(called.begin(), called.end(), "`" + toks[i].text + "`") == called.end())
      called.push_back("`" + toks[i].text + "`");
  return fmt::format("{}", fmt::join(called, ", "));
}

std::optional<std::string> UnreachedCommunication(const ProgramFacts& f, const std::string& fn,
                                                  const std::set<std::string>& direct) {
  const Analysis& a = *f.analysis;
  std::set<std::string> reached = CalledFrom(a, fn);
  size_t b = 0, e = 0;
  const bool defined = DefinitionLines(f.raw, fn, &b, &e);
  // A function fn names without calling it (`std::thread(worker, ...)`, `pthread_create(&t, 0, worker,
  // ...)`, a callback) runs from it too.
  std::set<std::string> named;
  if (defined)
    for (const Tok& t : Scan(BlankCommentsAndLiterals(f.raw).substr(b, e - b)))
      if (t.ident) named.insert(t.text);
  for (const AnalyzedFunction& d : a.functions)
    if (!reached.count(d.name) && named.count(d.name))
      for (const std::string& g : CalledFrom(a, d.name)) reached.insert(g);
  for (bool grew = true; grew;) {  // through the program's function pointers, to what they are given
    grew = false;
    for (const auto& [pointer, stored] : f.pointer_targets)
      if (reached.count(pointer))
        for (const std::string& target : stored)
          if (!reached.count(target)) {
            for (const std::string& g : CalledFrom(a, target)) reached.insert(g);
            grew = true;
          }
  }
  std::vector<std::string> issuers;  // "name (file:line)"
  std::set<std::string> names;
  for (const AnalyzedOp& op : a.ops) {
    if (!IsCommOp(op)) continue;
    if (reached.count(op.function)) return std::nullopt;
    if (!op.function.empty() && direct.count(op.function) && names.insert(op.function).second)
      issuers.push_back(fmt::format("{} ({}:{})", op.function, SourceFileName(op.file), op.line));
  }
  if (issuers.empty()) return std::nullopt;
  std::set<std::string> reaching = names;  // the issuers and their callers
  AddCallers(a, &reaching);
  std::string commented;  // fn's lines calling one of them in a comment: a call commented out
  if (defined) {
    const std::string blank = BlankCommentsAndLiterals(f.raw);
    static const std::regex call(R"(\b([A-Za-z_]\w*)\s*\()");
    for (auto it = std::sregex_iterator(f.raw.begin() + static_cast<std::ptrdiff_t>(b),
                                        f.raw.begin() + static_cast<std::ptrdiff_t>(e), call);
         it != std::sregex_iterator(); ++it) {
      const size_t at = b + static_cast<size_t>(it->position(1));
      if (reaching.count((*it)[1].str()) && blank.compare(at, (*it)[1].length(), (*it)[1].str()) != 0)
        commented += fmt::format("{}{}:{} calls {} in a comment", commented.empty() ? "" : "; ", f.file,
                                 LineOf(f.raw, at), (*it)[1].str());
    }
  }
  int line = 1;
  std::vector<std::string> params;
  for (const AnalyzedFunction& d : a.functions)
    if (d.name == fn && SourceFileName(d.file) == f.file && d.line > 0) line = d.line, params = d.params;
  const std::string callables = defined ? CalledParameters(BlankCommentsAndLiterals(f.raw).substr(b, e - b), params) : "";
  return fmt::format("{}:{}: {} reaches no NCCL call through the calls cuco can follow{}: the program's "
                     "NCCL calls are in {}, which nothing {} calls reaches{}; call that code from {} as the program runs "
                     "(or build the program with the definitions that make it do so, -D after `--`)",
                     f.file, line, fn,
                     callables.empty() ? ""
                                       : " (it calls its parameter " + callables +
                                             ", a callable its callers hand it, such as a lambda: cuco does not follow "
                                             "a call through an argument)",
                     fmt::join(issuers, ", "), fn, commented.empty() ? "" : " (" + commented + ")", fn);
}

}  // namespace cuco::scaffold_internal
