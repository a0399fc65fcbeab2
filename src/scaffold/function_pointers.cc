#include "scaffold/function_pointers.h"

#include <algorithm>

#include "scaffold/tokens.h"

namespace cuco::scaffold_internal {
namespace {

// The data members of each `struct NAME { ... }` / `class NAME { ... }` in `t`, in order: a function
// pointer's (`R (*name)(...)`) or the last name before `;`, `[`, `=` or `,` of each declaration.
// Not Analysis::record_fields: that holds only the records with member functions, from clang's parse
// alone, while a table of function pointers is a plain struct filled by a braced initialiser, its
// element k the k-th field, read from the tokens whether or not clang parsed the file.
std::map<std::string, std::vector<std::string>> RecordFields(const std::vector<Tok>& t) {
  std::map<std::string, std::vector<std::string>> out;
  for (size_t i = 0; i + 2 < t.size(); ++i) {
    if (!t[i].ident || (t[i].text != "struct" && t[i].text != "class") || !t[i + 1].ident || t[i + 2].text != "{")
      continue;
    const size_t close = Match(t, i + 2);
    std::vector<std::string> fields;
    for (size_t s = i + 3; s < close;) {
      const size_t e = StatementEnd(t, s);
      if (e >= close || t[e].text != ";") {  // a method's body, a nested block: no field
        s = e >= close ? close : e + 1;
        continue;
      }
      size_t star = s;
      while (star + 1 < e && !(t[star].text == "(" && t[star + 1].text == "*")) ++star;
      if (star + 2 < e && t[star + 2].ident) {
        fields.push_back(t[star + 2].text);
      } else {
        int depth = 0;
        for (size_t k = s; k < e; ++k) {
          if (t[k].text == "(" || t[k].text == "[" || t[k].text == "<") ++depth;
          if (t[k].text == ")" || t[k].text == "]" || t[k].text == ">") --depth;
          const std::string& next = t[k + 1].text;
          if (depth == 0 && t[k].ident && k > s && (next == ";" || next == "[" || next == "=" || next == ","))
            fields.push_back(t[k].text);
        }
      }
      s = e + 1;
    }
    out[t[i + 1].text] = fields;
  }
  return out;
}

// The record type an initialiser braced at `open` fills: `TYPE name = {`, `TYPE name[] = {`, or an
// element of `TYPE name[] = { {...}, ... }`. "" when none of those.
std::string InitialisedType(const std::vector<Tok>& t, size_t open) {
  if (open >= 1 && t[open - 1].text == "{") return InitialisedType(t, open - 1);  // `{ {`: the first element
  if (open >= 1 && t[open - 1].text == ",") {  // a later element: the `{` of the list holding it
    int depth = 0;
    for (size_t k = open - 1; k-- > 0;) {
      if (t[k].text == "}" || t[k].text == ")") ++depth;
      if (t[k].text == "{" || t[k].text == "(") {
        if (depth == 0) return t[k].text == "{" ? InitialisedType(t, k) : "";
        --depth;
      }
    }
    return "";
  }
  if (open < 2 || t[open - 1].text != "=") return "";
  size_t k = open - 2;
  if (t[k].text == "]") {  // name[...]
    while (k > 0 && t[k].text != "[") --k;
    if (k == 0) return "";
    --k;
  }
  if (k == 0 || !t[k].ident || !t[k - 1].ident) return "";
  return t[k - 1].text;  // `static test_coll tests[]`: test_coll
}

// The index of the element at token `at` in the initialiser braced at `open`, counting top-level commas.
size_t ElementIndex(const std::vector<Tok>& t, size_t open, size_t at) {
  size_t index = 0;
  int depth = 0;
  for (size_t k = open + 1; k < at; ++k) {
    if (t[k].text == "{" || t[k].text == "(" || t[k].text == "[") ++depth;
    if (t[k].text == "}" || t[k].text == ")" || t[k].text == "]") --depth;
    if (depth == 0 && t[k].text == ",") ++index;
  }
  return index;
}

}  // namespace

std::map<std::string, std::vector<std::string>> FunctionPointerTargets(const std::string& code,
                                                                      const std::set<std::string>& functions) {
  const std::vector<Tok> t = Scan(code);
  const std::map<std::string, std::vector<std::string>> fields = RecordFields(t);
  std::map<std::string, std::vector<std::string>> out;
  auto store = [&](const std::string& pointer, const std::string& fn) {
    if (functions.count(pointer)) return;
    std::vector<std::string>& v = out[pointer];
    if (std::find(v.begin(), v.end(), fn) == v.end()) v.push_back(fn);
  };
  for (size_t i = 1; i < t.size(); ++i) {
    if (!t[i].ident || !functions.count(t[i].text)) continue;
    if (i + 1 < t.size() && (t[i + 1].text == "(" || t[i + 1].text == "<")) continue;  // a call
    size_t v = i - 1;
    if (t[v].text == "&") --v;  // `&fn`
    // `p = cond ? f : g`: both stored in p (the `?` and `:` of a ternary right after the `=`).
    for (size_t k = v, depth = 0; k > 0 && (t[v].text == "?" || t[v].text == ":"); --k) {
      if (t[k].text == ")" || t[k].text == "]") ++depth;
      if ((t[k].text == "(" || t[k].text == "[") && depth-- == 0) break;
      if (depth == 0 && (t[k].text == ";" || t[k].text == "{" || t[k].text == "}" || t[k].text == ",")) break;
      if (depth == 0 && t[k].text == "=" && k > 0 && t[k - 1].text != "=" && t[k - 1].text != "!" &&
          t[k - 1].text != "<" && t[k - 1].text != ">" && (k + 1 >= t.size() || t[k + 1].text != "=")) {
        v = k;
        break;
      }
    }
    const std::string& before = t[v].text;
    if (before == "=" && v >= 1 && t[v - 1].ident && !(v >= 2 && (t[v - 2].text == "=" || t[v - 2].text == "!"))) {
      store(t[v - 1].text, t[i].text);  // `x.run = fn`, `.run = fn`, `coll_fn f = fn`
      continue;
    }
    if (before != "{" && before != ",") continue;
    size_t open = v;  // the `{` of the initialiser holding it
    for (int depth = 0; open > 0; --open) {
      if (t[open].text == "}" || t[open].text == ")") ++depth;
      if (t[open].text == "{" || t[open].text == "(") {
        if (depth == 0) break;
        --depth;
      }
    }
    if (t[open].text != "{") continue;
    const auto record = fields.find(InitialisedType(t, open));
    const size_t k = ElementIndex(t, open, i);
    if (record != fields.end() && k < record->second.size()) store(record->second[k], t[i].text);
  }
  return out;
}

}  // namespace cuco::scaffold_internal
