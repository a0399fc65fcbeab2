#include "scaffold/region_hoist.h"

#include <set>
#include <vector>

#include "scaffold/tokens.h"

namespace cuco::scaffold_internal {
namespace {

// Words that start a statement that declares nothing, or a declaration that cannot be split.
bool NotAPlainType(const std::string& word) {
  static const std::set<std::string> kWords = {
      "return", "delete", "goto",   "throw",     "using",  "typedef",  "else",     "case",        "default",
      "do",     "break",  "continue", "co_return", "co_yield", "auto", "const",   "constexpr",   "static",
      "extern", "register", "thread_local", "volatile", "new", "sizeof", "struct", "class", "enum", "union"};
  return kWords.count(word) > 0;
}

// The token of the declared name when tokens [s, e] (e: the `;`) declare one variable with a plain
// type; 0 otherwise. *eq: its `=`, or e when it has no initialiser.
size_t PlainDeclaredVariable(const std::vector<Tok>& t, size_t s, size_t e, size_t* eq) {
  size_t k = s;
  while (k < e && (t[k].ident || t[k].text == ":" || t[k].text == "*")) ++k;
  // (`= 4;`: the scan keeps no numbers, so the `=` may be the last token before the `;`.)
  if (k != e && !(t[k].text == "=" && (k + 1 == e || t[k + 1].text != "="))) return 0;
  if (k < s + 2 || !t[k - 1].ident) return 0;  // a type and a name at least
  int idents = 0;
  for (size_t i = s; i < k; ++i) {
    if (t[i].ident && NotAPlainType(t[i].text)) return 0;
    idents += t[i].ident ? 1 : 0;
  }
  if (idents < 2 || t[k - 2].text == ":") return 0;  // `a::b = c;` assigns
  for (size_t i = k; i < e; ++i) {  // `float a = 1, b = 2;` declares two (InitialisedNames)
    if (t[i].text == "(" || t[i].text == "[" || t[i].text == "{") i = Match(t, i);
    if (i < e && t[i].text == ",") return 0;
  }
  *eq = k;
  return k - 1;
}

// Several variables of a plain type, each initialised with `=` (`float alpha = 1.0f, beta = 1.0f;`):
// for each, its `*`s and name as written ("*p"), and its assignment ("p = x + 4"). Empty otherwise.
struct Initialised {
  std::string declarator, assignment;
  size_t name = 0;
};
std::vector<Initialised> InitialisedNames(const std::string& text, const std::vector<Tok>& t, size_t s, size_t e,
                                          std::string* type) {
  size_t k = s;
  while (k < e && (t[k].ident || t[k].text == ":")) ++k;  // the type, up to the first declarator's `*` or name
  if (k < s + 1 || k >= e) return {};
  for (size_t i = s; i < k; ++i)
    if (t[i].ident && NotAPlainType(t[i].text)) return {};
  size_t first = k;
  if (t[k - 1].ident && t[k].text == "=") first = k - 1;  // the type's last identifier is the first name
  *type = text.substr(t[s].begin, t[first].begin - t[s].begin);
  std::vector<Initialised> out;
  for (size_t d = first; d < e;) {
    size_t name = d;
    while (name < e && t[name].text == "*") ++name;
    if (name + 1 >= e || !t[name].ident || t[name + 1].text != "=") return {};
    size_t end = name + 2;
    while (end < e && t[end].text != ",") end = (t[end].text == "(" || t[end].text == "[" || t[end].text == "{") ? Match(t, end) + 1 : end + 1;
    if (end > e) return {};
    out.push_back({text.substr(t[d].begin, t[name].end - t[d].begin),
                   text.substr(t[name].begin, (end < e ? t[end].begin : t[e].begin) - t[name].begin), name});
    d = end + 1;
  }
  return out.size() < 2 ? std::vector<Initialised>{} : out;
}

// The names when tokens [s, e] (e: the `;`) declare several variables with a plain type and no
// initialiser (`cudaEvent_t a, b;`, `float *x, *y;`); empty otherwise.
std::vector<size_t> DeclaredNames(const std::vector<Tok>& t, size_t s, size_t e) {
  std::vector<size_t> names;
  if (e < s + 4 || !t[s].ident || NotAPlainType(t[s].text)) return {};
  for (size_t k = s; k < e; ++k) {
    if (t[k].ident && NotAPlainType(t[k].text)) return {};
    if (!(t[k].ident || t[k].text == ":" || t[k].text == "*" || t[k].text == ",")) return {};
    if ((t[k + 1].text == "," || k + 1 == e) && t[k].ident) names.push_back(k);
  }
  if (names.size() < 2 || names.front() == s) return {};  // `a, b;` is no declaration
  return names;
}

}  // namespace

HoistedRegion HoistDeclarations(const std::string& region, const std::string& after) {
  HoistedRegion out{"", region, ""};
  std::set<std::string> used_after;
  for (const Tok& tok : Scan(after))
    if (tok.ident) used_after.insert(tok.text);
  const std::vector<Tok> t = Scan(region);
  struct Edit {
    size_t begin, end;
    std::string text;
  };
  std::vector<Edit> edits;
  for (size_t s = 0; s < t.size();) {
    const size_t e = StatementEnd(t, s);
    if (e >= t.size()) break;
    size_t eq = 0;
    const size_t name = t[e].text == ";" ? PlainDeclaredVariable(t, s, e, &eq) : 0;
    if (name != 0 && used_after.count(t[name].text) > 0) {
      const std::string type = region.substr(t[s].begin, t[name].begin - t[s].begin);
      out.declarations += type + t[name].text + "{};\n  ";
      edits.push_back(eq == e ? Edit{t[s].begin, t[e].end, ""} : Edit{t[s].begin, t[name].begin, ""});
    } else if (std::string type; name == 0 && t[e].text == ";" && !InitialisedNames(region, t, s, e, &type).empty()) {
      // several names, each initialised: each declared in front, the statement their assignments
      const std::vector<Initialised> names = InitialisedNames(region, t, s, e, &type);
      bool used = false;
      for (const Initialised& n : names) used = used || used_after.count(t[n.name].text) > 0;
      if (used) {
        std::string assignments;
        for (const Initialised& n : names) {
          out.declarations += type + n.declarator + "{};\n  ";
          assignments += (assignments.empty() ? "" : ", ") + n.assignment;
        }
        edits.push_back(Edit{t[s].begin, t[e].begin, assignments});
      }
    } else if (name == 0 && t[e].text == ";") {  // several names, none initialised: moved as written
      const std::vector<size_t> names = DeclaredNames(t, s, e);
      bool used = false;
      for (size_t n : names) used = used || used_after.count(t[n].text) > 0;
      if (used) {
        out.declarations += region.substr(t[s].begin, t[e].end - t[s].begin) + "\n  ";
        edits.push_back(Edit{t[s].begin, t[e].end, ""});
      } else if (const size_t any = DeclaredNameToken(t, s, e); any != 0 && used_after.count(t[any].text) && out.kept.empty()) {
        out.kept = t[any].text;
      }
    } else if (const size_t any = DeclaredNameToken(t, s, e); any != 0 && used_after.count(t[any].text) && out.kept.empty()) {
      out.kept = t[any].text;
    }
    s = e + 1;
  }
  for (auto it = edits.rbegin(); it != edits.rend(); ++it) out.region.replace(it->begin, it->end - it->begin, it->text);
  return out;
}

}  // namespace cuco::scaffold_internal
