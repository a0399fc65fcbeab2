#include "scaffold/file_local_names.h"

#include <algorithm>
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

// Every declarator's name of the variable declaration of tokens [from, to) (`double Lx, Ly = 1, v[3];`:
// Lx, Ly, v); DeclaredName's one where the type has template arguments (their commas) or none is found.
std::vector<std::string> DeclaratorNames(const std::vector<Tok>& t, size_t from, size_t to) {
  const std::string one = DeclaredName(t, from, to);
  for (size_t i = from; i < to; ++i)
    if (t[i].text == "<" || t[i].text == "operator") return {one};
  std::vector<std::string> names;
  std::string candidate;
  bool frozen = false;  // past the segment's declarator (its `=`, `[`, `(` or `{`)
  for (size_t i = AfterAttributes(t, from, to); i <= to && i < t.size(); ++i) {
    const std::string& x = t[i].text;
    if (i == to || x == ",") {
      if (!candidate.empty()) names.push_back(candidate);
      candidate.clear(), frozen = false;
      continue;
    }
    if (x == "(" || x == "[" || x == "{") {
      frozen = true;
      i = Match(t, i);
      continue;
    }
    if (x == "=") frozen = true;
    if (!frozen && t[i].ident) candidate = x;
  }
  if (names.empty() || std::find(names.begin(), names.end(), one) == names.end()) return {one};
  return names;
}

// Whether the declaration of tokens [from, to) (at namespace scope) has internal linkage: it starts
// (past its attributes) `static` (after `inline`, `constexpr`, `__host__` or `__device__`), or `in_unnamed` holds.
// Or it is device code or data alone (`__device__`, `__constant__`; not `__host__`, not `extern`): a
// whole-program build (no -rdc) keeps it to its file, so two files may each define one
// (`__device__ __forceinline__ float silu_(float)` in an MoE's experts and its shared expert), and
// one file's `__constant__ double Lx;` is no other's host `double Lx;` (a 3-D wave solver's).
// A device function's declaration alone (`prototype`) is not: its definition says.
bool FileLocal(const std::vector<Tok>& t, size_t from, size_t to, bool in_unnamed, bool prototype) {
  from = AfterAttributes(t, from, to);
  if (from >= to) return false;
  if (in_unnamed) return t[from].text != "using" && t[from].text != "typedef" && t[from].text != "template";
  bool device = false;
  for (size_t i = from; i < to && t[i].ident; ++i) {
    if (t[i].text == "static") return true;
    if (t[i].text == "__host__" || t[i].text == "extern") return false;
    device = device || t[i].text == "__device__" || t[i].text == "__constant__";
    if (t[i].text != "inline" && t[i].text != "constexpr" && t[i].text != "__device__" && t[i].text != "__forceinline__" &&
        t[i].text != "__constant__")
      return device && !prototype;
  }
  return false;
}

// Every name declared at namespace scope in `text`, each with whether it is the file's own (FileLocal).
std::vector<std::pair<std::string, bool>> NamespaceScopeNames(const std::string& text) {
  const std::vector<Tok> t = Scan(text);
  std::vector<std::pair<std::string, bool>> names;
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
      const size_t name = DeclaredNameToken(t, start, i);
      const bool prototype = name != 0 && name + 1 < i && t[name + 1].text == "(";
      const bool local = FileLocal(t, start, i, in_unnamed(), prototype);
      for (const std::string& n : prototype ? std::vector<std::string>{DeclaredName(t, start, i)} : DeclaratorNames(t, start, i))
        names.push_back({n, local});
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
    names.push_back({DeclaredName(t, start, i), FileLocal(t, start, i, in_unnamed(), false)});
    i = Match(t, i);
    if (runs_to_semicolon)
      while (i + 1 < t.size() && t[i].text != ";") i = t[i + 1].text == "{" ? Match(t, i + 1) : i + 1;
    start = i + 1;
  }
  std::erase_if(names, [](const auto& n) { return n.first.empty(); });
  return names;
}

}  // namespace

std::set<std::string> FileLocalNames(const std::string& text) {
  std::set<std::string> names;
  for (const auto& [name, local] : NamespaceScopeNames(text))
    if (local) names.insert(name);
  return names;
}

std::vector<std::vector<std::pair<std::string, std::string>>> FileLocalRenames(const std::vector<std::string>& texts,
                                                                               const std::vector<std::string>& tags) {
  std::vector<std::vector<std::pair<std::string, std::string>>> renames(texts.size());
  std::vector<std::set<std::string>> local(texts.size()), shared(texts.size());  // each file's own, and the rest
  for (size_t i = 0; i < texts.size(); ++i)
    for (const auto& [name, own] : NamespaceScopeNames(texts[i])) (own ? local[i] : shared[i]).insert(name);
  std::set<std::string> taken;
  for (size_t i = 0; i < texts.size(); ++i)
    for (const std::string& name : local[i]) {
      bool clash = !taken.insert(name).second;  // an earlier file's own
      for (size_t j = 0; j < texts.size() && !clash; ++j)
        clash = j != i && shared[j].count(name) && !local[j].count(name);  // another file's global of that name
      if (clash) renames[i].push_back({name, name + "_cuco_" + (i < tags.size() ? tags[i] : "")});
    }
  return renames;
}

}  // namespace cuco::scaffold_internal
