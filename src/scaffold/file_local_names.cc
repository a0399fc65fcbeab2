#include "scaffold/file_local_names.h"

#include <map>

#include "scaffold/tokens.h"

namespace cuco::scaffold_internal {
namespace {

// The name the declaration of tokens [from, to] declares (`to`: its `;` or `{`); "" for none or
// an operator.
std::string DeclaredName(const std::vector<Tok>& t, size_t from, size_t to) {
  for (size_t i = from; i < to; ++i)
    if (t[i].text == "operator") return "";
  const size_t name = DeclaredNameToken(t, from, to);
  return name == 0 ? "" : t[name].text;
}

// Whether the declaration of tokens [from, to) (at namespace scope) has internal linkage: it starts
// (past its attributes) `static` (after `inline`, `constexpr`, `__host__` or `__device__`), or `in_unnamed` holds.
// Or, where it defines a function (`function_body`), it is `__device__` alone (not `__host__`): a
// whole-program build (no -rdc) keeps device code to its file, so two files may each define one
// (`__device__ __forceinline__ float silu_(float)` in an MoE's experts and its shared expert).
bool FileLocal(const std::vector<Tok>& t, size_t from, size_t to, bool in_unnamed, bool function_body) {
  from = AfterAttributes(t, from, to);
  if (from >= to) return false;
  if (in_unnamed) return t[from].text != "using" && t[from].text != "typedef" && t[from].text != "template";
  bool device = false;
  for (size_t i = from; i < to && t[i].ident; ++i) {
    if (t[i].text == "static") return true;
    if (t[i].text == "__host__") return false;
    device = device || t[i].text == "__device__";
    if (t[i].text != "inline" && t[i].text != "constexpr" && t[i].text != "__device__" && t[i].text != "__forceinline__")
      return function_body && device;
  }
  return false;
}

}  // namespace

std::set<std::string> FileLocalNames(const std::string& text) {
  const std::vector<Tok> t = Scan(text);
  std::set<std::string> names;
  std::vector<bool> scopes;  // each open namespace (or extern "C" block): whether it is unnamed
  auto in_unnamed = [&] {
    for (bool u : scopes)
      if (u) return true;
    return false;
  };
  size_t start = 0;  // the current declaration's first token
  for (size_t i = 0; i < t.size(); ++i) {
    const std::string& s = t[i].text;
    if (s == "}") {  // a namespace's end
      if (!scopes.empty()) scopes.pop_back();
      start = i + 1;
      continue;
    }
    if (s == ";") {
      if (FileLocal(t, start, i, in_unnamed(), false)) names.insert(DeclaredName(t, start, i));
      start = i + 1;
      continue;
    }
    if (s != "{") continue;
    if (i > start && (t[start].text == "namespace" || (t[start].text == "inline" && start + 1 < i &&
                                                       t[start + 1].text == "namespace"))) {
      scopes.push_back(t[i - 1].text == "namespace");
      start = i + 1;
      continue;
    }
    if (i == start + 1 && t[start].text == "extern") {  // extern "C" { (the literal is not a token)
      scopes.push_back(false);
      start = i + 1;
      continue;
    }
    // A function's body, a class's, or a braced initialiser: the declaration is named before it.
    const bool runs_to_semicolon = [&] {
      for (size_t k = start; k < i; ++k)
        if (t[k].text == "=" || t[k].text == "struct" || t[k].text == "class" || t[k].text == "enum" ||
            t[k].text == "union")
          return true;
      return false;
    }();
    const bool function_body = !runs_to_semicolon && i > start && t[i - 1].text == ")";
    if (FileLocal(t, start, i, in_unnamed(), function_body)) names.insert(DeclaredName(t, start, i));
    i = Match(t, i);
    if (runs_to_semicolon)
      while (i + 1 < t.size() && t[i].text != ";") i = t[i + 1].text == "{" ? Match(t, i + 1) : i + 1;
    start = i + 1;
  }
  names.erase("");
  return names;
}

std::vector<std::vector<std::pair<std::string, std::string>>> FileLocalRenames(const std::vector<std::string>& texts,
                                                                               const std::vector<std::string>& tags) {
  std::vector<std::vector<std::pair<std::string, std::string>>> renames(texts.size());
  std::set<std::string> taken;
  for (size_t i = 0; i < texts.size(); ++i)
    for (const std::string& name : FileLocalNames(texts[i]))
      if (!taken.insert(name).second) renames[i].push_back({name, name + "_cuco_" + (i < tags.size() ? tags[i] : "")});
  return renames;
}

}  // namespace cuco::scaffold_internal
