// The token scan cuco init reads a program's C++ with (main_rewrite.h, loop_choice.h): identifiers
// and single punctuation characters, with comments, string and character literals, numbers and
// preprocessor lines skipped; offsets are bytes of the text scanned, lines 1-based.
#pragma once

#include <set>
#include <string>
#include <utility>
#include <vector>

namespace cuco::scaffold_internal {

struct Tok {
  std::string text;  // identifier, or one punctuation character
  size_t begin = 0, end = 0;
  int line = 0;
  bool ident = false;
};

std::vector<Tok> Scan(const std::string& s);

// Index of the token closing the bracket ( { [ opened at `open` (same kind), or t.size().
size_t Match(const std::vector<Tok>& t, size_t open);

// The index of the first token of the statement (or block header) holding token `p`: the one after
// the `;`, `{` or `}` before it, and never before `floor`.
size_t StatementStart(const std::vector<Tok>& t, size_t p, size_t floor = 0);

// The index of the last token of the statement starting at `i` (a block, for/while/if/do with
// their bodies and else, or up to its `;`); t.size() when it does not end.
size_t StatementEnd(const std::vector<Tok>& t, size_t i);

// Whether the statement at `i` is a loop: `for (...)`, `while (...)`, or `do` with its body and
// `while (...);` after it.
bool IsLoopAt(const std::vector<Tok>& t, size_t i);

// The first and the last token of the body of the loop at `loop` (IsLoopAt): after a `for`/`while`
// header, or between `do` and its `while`.
size_t LoopBodyFirst(const std::vector<Tok>& t, size_t loop);
size_t LoopBodyLast(const std::vector<Tok>& t, size_t loop);

// The `(` of the loop's condition: a `for`/`while` header, or the `while (` after a `do` loop's body.
size_t LoopConditionOpen(const std::vector<Tok>& t, size_t loop);

// Whether `word`, followed by `(`, is a keyword's parenthesis rather than a call (`if (`, `sizeof (`).
bool KeywordBeforeParen(const std::string& word);

// Whether token `i` follows `.` or `->` (adjacent characters): a member of some object.
bool FollowsMemberAccess(const std::vector<Tok>& t, size_t i);

// A function's definition in `t`: `name (` ... `)` `{`; the token of its name (its body's `{` in
// *body), or t.size(). A member (`a.name(`, `p->name(`, `C::name(`) is not it; a return type ending
// in `>` (`std::vector<T> name(`) is. Where no such function is defined, a member function defined
// out of its class is (`bool Solver<T>::name(int n) const {`: the first).
size_t FunctionDefinition(const std::vector<Tok>& t, const std::string& name, size_t* body);

// The index of the object token `i` is a member of (`object.name`, `object->name`), when that token
// is an identifier; t.size() otherwise.
size_t MemberObject(const std::vector<Tok>& t, size_t i);

// Whether tokens [from, to] call one of `names` (`name(` or `name<`). An entry "object.method"
// says that object's method reaches none of them, whatever another class's method of that name does
// (`fc1.forward(` then calls nothing of `names`, though "forward" is one).
bool Calls(const std::vector<Tok>& t, size_t from, size_t to, const std::set<std::string>& names);

// The index of the name tokens [s, e) declare, in any form, e being the `;`, `{` or `)` that ends
// the statement (its leading attributes passed: AfterAttributes) (`auto n = ...;`, `const int k = 4;`, `static void f(int);`, `T a(1), b;`: the last
// name before `=`, `(`, `{`, `[`, `;` or `,`, after a type of names, `::`, `*`, `&` and `<...>`); 0
// when they declare nothing (`return x;`, `a = b;`, `a::b = c;`, `f(x);`).
size_t DeclaredNameToken(const std::vector<Tok>& t, size_t s, size_t e);

// The first token at or after `s` (before `e`) past the attribute specifiers that lead a declaration:
// `[[noreturn]]`, `[[nodiscard]]`, `__attribute__((unused))`, `alignas(16)`.
size_t AfterAttributes(const std::vector<Tok>& t, size_t s, size_t e);

// Which tokens RenameTokens renames.
struct RenameScope {
  bool members = true;      // also a member's name (`x.name`, `x->name`)
  bool calls_only = false;  // only a name that `(` follows (`main(`)
};

// `text` with each identifier token of `renames` (not in comments, literals or preprocessor lines)
// replaced, where `scope` allows.
std::string RenameTokens(const std::string& text, const std::vector<std::pair<std::string, std::string>>& renames,
                         RenameScope scope = {});

// `body` (a loop's body, braces included) with each `continue` and `break` of that loop itself (not
// of a loop nested in it, nor a `break` of a switch in it) spelled `return`: served as a function's
// body, the pass ends there (a loop that ends early, a solver's `break` once it converges, ends
// that pass; the harness decides how many passes run). A `break` is `return
// cuco_program::loop_ended()`: the reference hears that the program's loop would end there
// (cuco/program/program.h).
std::string LoopJumpsAsReturn(const std::string& body);

}  // namespace cuco::scaffold_internal
