#include "scaffold/file_local_names.h"

#include <map>

#include "scaffold/tokens.h"

namespace cuco::scaffold_internal {
namespace {

// The name a declaration of tokens [from, to) declares: the last identifier before its first `(`,
// `=`, `[`, `{`, `;` or `:` (the function's or variable's name); "" for none, an operator's or a type's
// alone (`static struct X;`).
std::string DeclaredName(const std::vector<Tok>& t, size_t from, size_t to) {
  std::string name;
  int angle = 0;  // template arguments of the declared type
  for (size_t i = from; i < to; ++i) {
    const std::string& s = t[i].text;
    if (s == "<") ++angle;
    if (s == ">" && angle > 0) --angle;
    if (angle > 0) continue;
    if (s == "(" || s == "=" || s == "[" || s == "{" || s == ";" || (s == ":" && !(i + 1 < to && t[i + 1].text == ":") &&
                                                                       !(i > from && t[i - 1].text == ":")))
      break;
    if (s == "operator") return "";
    if (t[i].ident) name = s;
  }
  return name;
}

// Whether the declaration of tokens [from, to) (at namespace scope) has internal linkage: it starts
// `static` (after `inline`, `constexpr`, `__host__` or `__device__`), or `in_unnamed` holds.
bool FileLocal(const std::vector<Tok>& t, size_t from, size_t to, bool in_unnamed) {
  if (from >= to) return false;
  if (in_unnamed) return t[from].text != "using" && t[from].text != "typedef" && t[from].text != "template";
  for (size_t i = from; i < to && t[i].ident; ++i) {
    if (t[i].text == "static") return true;
    if (t[i].text != "inline" && t[i].text != "constexpr" && t[i].text != "__host__" && t[i].text != "__device__" &&
        t[i].text != "__forceinline__")
      return false;
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
      if (FileLocal(t, start, i, in_unnamed())) names.insert(DeclaredName(t, start, i));
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
    if (FileLocal(t, start, i, in_unnamed())) names.insert(DeclaredName(t, start, i + 1));
    const bool runs_to_semicolon = [&] {
      for (size_t k = start; k < i; ++k)
        if (t[k].text == "=" || t[k].text == "struct" || t[k].text == "class" || t[k].text == "enum" ||
            t[k].text == "union")
          return true;
      return false;
    }();
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

std::string RenameFileLocal(const std::string& text, const std::vector<std::pair<std::string, std::string>>& renames) {
  if (renames.empty()) return text;
  std::map<std::string, std::string> to(renames.begin(), renames.end());
  const std::vector<Tok> t = Scan(text);
  std::string out;
  size_t at = 0;
  for (size_t i = 0; i < t.size(); ++i) {
    const auto it = t[i].ident ? to.find(t[i].text) : to.end();
    if (it == to.end() || FollowsMemberAccess(t, i)) continue;
    out += text.substr(at, t[i].begin - at) + it->second;
    at = t[i].end;
  }
  return out + text.substr(at);
}

}  // namespace cuco::scaffold_internal
