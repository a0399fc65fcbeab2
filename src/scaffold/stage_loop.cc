#include "scaffold/stage_loop.h"

#include <map>

namespace cuco::scaffold_internal {
namespace {

// The root's or peer's argument of each NCCL call that has one.
const std::map<std::string, size_t>& PartnerArgument() {
  static const std::map<std::string, size_t> at = {{"ncclBroadcast", 4}, {"ncclBcast", 3}, {"ncclReduce", 5},
                                                   {"ncclSend", 3},      {"ncclRecv", 3}};
  return at;
}

// Tokens [first, last] of the `index`-th argument of the call whose `(` is at `open`; false when none.
bool ArgumentTokens(const std::vector<Tok>& t, size_t open, size_t index, size_t* first, size_t* last) {
  const size_t close = Match(t, open);
  size_t arg = 0, from = open + 1;
  for (size_t i = open + 1; i <= close && i < t.size(); ++i) {
    if (t[i].text == "(" || t[i].text == "[" || t[i].text == "{") {
      i = Match(t, i);
      continue;
    }
    if (t[i].text != "," && i != close) continue;
    if (arg == index) {
      *first = from, *last = i - 1;
      return from <= i - 1;
    }
    ++arg, from = i + 1;
  }
  return false;
}

bool Mentions(const std::vector<Tok>& t, size_t first, size_t last, const std::set<std::string>& names) {
  for (size_t i = first; i <= last && i < t.size(); ++i)
    if (t[i].ident && names.count(t[i].text) && !FollowsMemberAccess(t, i)) return true;
  return false;
}

bool HasCallOf(const std::vector<Tok>& t, size_t first, size_t last, const std::vector<std::string>& prefixes) {
  for (size_t i = first; i <= last && i < t.size(); ++i)
    if (t[i].ident)
      for (const std::string& p : prefixes)
        if (t[i].text.rfind(p, 0) == 0) return true;
  return false;
}

// The name the declaration of tokens [first, last] (`int k = ...;`, `float* src = ...;`; last: its
// `;`) initialises with `=`; "" for none.
std::string Declared(const std::vector<Tok>& t, size_t first, size_t last) {
  const size_t name = DeclaredNameToken(t, first, last);
  return name != 0 && t[name + 1].text == "=" ? t[name].text : "";
}

// The variable of the `for` at `loop` (`for (int k = 0; ...`: the identifier before the first `=`),
// "" for none; *header_close gets the `)` closing its header.
std::string LoopVariable(const std::vector<Tok>& t, size_t loop, size_t* header_close) {
  if (loop + 1 >= t.size() || t[loop].text != "for" || t[loop + 1].text != "(") return "";
  *header_close = Match(t, loop + 1);
  for (size_t i = loop + 2; i < *header_close && t[i].text != ";"; ++i)
    if (t[i].text == "=" && t[i - 1].ident) return t[i - 1].text;
  return "";
}

// `var` and what the body [from, last] computes from it (`int next_k = k + 1; int next_root = next_k %
// P_c;`), to a fixed point; never a name of `excluded`, nor so what derives only through one.
std::set<std::string> DerivedFrom(const std::vector<Tok>& t, const std::string& var, size_t from, size_t last,
                                  const std::set<std::string>& excluded = {}) {
  std::set<std::string> derived = {var};
  for (bool grew = true; grew;) {
    grew = false;
    for (size_t i = from; i + 1 <= last; ++i) {
      if (!(t[i].ident && t[i + 1].text == "=" && (i + 2 > last || t[i + 2].text != "=")) || derived.count(t[i].text) ||
          excluded.count(t[i].text) || FollowsMemberAccess(t, i))
        continue;
      size_t end = i + 2;
      while (end <= last && t[end].text != ";") ++end;
      if (Mentions(t, i + 2, end - 1, derived)) derived.insert(t[i].text), grew = true;
    }
  }
  return derived;
}

}  // namespace

std::string WalkVariable(const std::vector<Tok>& t, size_t loop, size_t last) {
  size_t header_close = 0;
  const std::string var = LoopVariable(t, loop, &header_close);
  if (var.empty() || header_close >= last) return "";
  // A toggle (`int cur = it % 2;`) and what derives from it (`int off = cur * n;`) offset a double
  // buffer, not the data.
  std::set<std::string> toggles;
  for (size_t i = header_close + 1; i + 1 <= last; ++i)
    if (t[i].ident && t[i + 1].text == "=" && !FollowsMemberAccess(t, i)) {
      bool modulo = false;
      for (size_t end = i + 2; end <= last && t[end].text != ";"; ++end) modulo = modulo || t[end].text == "%";
      if (modulo) toggles.insert(t[i].text);
    }
  const std::set<std::string> derived = DerivedFrom(t, var, header_close + 1, last, toggles);
  auto offset_by = [&](size_t from, size_t to) {  // tokens [from, to] mention a derived name, no `%`
    bool mod = false;
    for (size_t k = from; k <= to && k < t.size(); ++k) mod = mod || t[k].text == "%";
    return !mod && Mentions(t, from, to, derived);
  };
  for (size_t i = header_close + 1; i + 3 <= last; ++i) {
    // `&x[<offset>]`
    if (t[i].text == "&" && t[i + 1].ident && t[i + 2].text == "[") {
      const size_t close = Match(t, i + 2);
      if (close <= last && offset_by(i + 3, close - 1)) return var;
    }
    // `T* p = x + <offset>;`
    if (t[i].text == "*" && t[i + 1].ident && t[i + 2].text == "=" && t[i + 3].ident && i + 4 <= last &&
        t[i + 4].text == "+") {
      size_t end = i + 5;
      while (end <= last && t[end].text != ";") ++end;
      if (offset_by(i + 5, end - 1)) return var;
    }
  }
  return "";
}

std::string StageVariable(const std::vector<Tok>& t, size_t loop, size_t last) {
  size_t header_close = 0;
  const std::string var = LoopVariable(t, loop, &header_close);
  if (var.empty() || header_close >= last) return "";
  const std::set<std::string> derived = DerivedFrom(t, var, header_close + 1, last);
  for (size_t i = header_close + 1; i + 1 <= last; ++i) {
    const auto it = t[i].ident ? PartnerArgument().find(t[i].text) : PartnerArgument().end();
    if (it == PartnerArgument().end() || t[i + 1].text != "(") continue;
    size_t a = 0, b = 0;
    if (ArgumentTokens(t, i + 1, it->second, &a, &b) && Mentions(t, a, b, derived)) return var;
  }
  return "";
}

size_t PrimingStart(const std::vector<Tok>& t, size_t loop, const std::set<std::string>& names) {
  std::set<std::string> read;  // the identifiers of what is taken
  for (size_t i = loop; i < t.size() && i <= StatementEnd(t, loop); ++i)
    if (t[i].ident) read.insert(t[i].text);
  size_t start = loop, end_tok = loop;
  while (end_tok > 0) {
    size_t last = end_tok - 1, first = 0;
    if (t[last].text == ";") {
      first = StatementStart(t, last);
    } else if (t[last].text == "}") {  // a block: `if (...) { ... }`
      int depth = 0;
      size_t open = last;
      for (; open > 0; --open) {
        if (t[open].text == "}") ++depth;
        if (t[open].text == "{" && --depth == 0) break;
      }
      if (open == 0 || depth != 0) break;
      first = StatementStart(t, open - 1);
      if (t[first].text != "if") break;
    } else {
      break;
    }
    if (first > last || t[first].text == "else") break;
    const bool comm = Calls(t, first, last, names) ||
                      HasCallOf(t, first, last, {"ncclGroupStart", "ncclGroupEnd", "cudaEventRecord", "cudaStreamWaitEvent"});
    const bool copy = HasCallOf(t, first, last, {"cudaMemcpy"}) &&  // on the device: never set-up from the host
                      HasCallOf(t, first, last, {"cudaMemcpyDeviceToDevice", "cudaMemcpyDefault"}) &&
                      !HasCallOf(t, first, last, {"cudaMemcpyHostToDevice", "cudaMemcpyDeviceToHost"}) &&
                      Mentions(t, first, last, read);
    const std::string declared = Declared(t, first, last);
    const bool declaration = !declared.empty() && read.count(declared) &&
                             !HasCallOf(t, first, last, {"cuda", "nccl", "MPI_", "cublas"});
    const bool between = HasCallOf(t, first, last, {"cudaDeviceSynchronize", "cudaStreamSynchronize", "MPI_Barrier",
                                                    "MPI_Wtime", "now", "clock_gettime", "gettimeofday"}) &&
                         !HasCallOf(t, first, last, {"nccl", "cudaMemcpy", "cublas"});
    if (!comm && !copy && !declaration && !between) break;
    if (!between) {
      start = first;
      for (size_t i = first; i <= last; ++i)
        if (t[i].ident) read.insert(t[i].text);
    }
    end_tok = first;
  }
  return start;
}

}  // namespace cuco::scaffold_internal
