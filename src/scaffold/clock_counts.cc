#include "scaffold/clock_counts.h"

#include <fmt/format.h>

#include <map>
#include <set>

#include "scaffold/main_rewrite.h"
#include "scaffold/tokens.h"

namespace cuco::scaffold_internal {
namespace {

const std::set<std::string> kClockReads = {"now", "clock_gettime", "gettimeofday", "MPI_Wtime", "omp_get_wtime"};

bool CallAt(const std::vector<Tok>& t, size_t i) { return t[i].ident && i + 1 < t.size() && t[i + 1].text == "("; }

// The functions `code` defines whose bodies read a clock.
std::set<std::string> ClockReaders(const std::vector<Tok>& t) {
  std::set<std::string> readers;
  for (size_t i = 0; i + 1 < t.size(); ++i) {
    if (!CallAt(t, i)) continue;
    const size_t close = Match(t, i + 1);
    if (close + 1 >= t.size() || t[close + 1].text != "{") continue;
    const size_t last = Match(t, close + 1);
    for (size_t k = close + 1; k < last && k < t.size(); ++k)
      if (CallAt(t, k) && kClockReads.count(t[k].text)) {
        readers.insert(t[i].text);
        break;
      }
  }
  return readers;
}

// Whether tokens [s, e) declare an integer (`const int reps`, `size_t n`), not a floating time.
bool IntegerType(const std::vector<Tok>& t, size_t s, size_t e) {
  static const std::set<std::string> ints = {"int", "long", "short", "unsigned", "size_t", "ssize_t", "int32_t",
                                             "int64_t", "uint32_t", "uint64_t"};
  bool any = false;
  for (size_t k = s; k < e; ++k) {
    if (t[k].text == "double" || t[k].text == "float" || t[k].text == "auto") return false;
    any |= ints.count(t[k].text) > 0;
  }
  return any;
}

struct Time {
  std::string from;  // the time it is set from ("" for a clock read itself)
  int line = 0;
};

}  // namespace

std::vector<std::string> ClockDerivedCounts(const std::string& file, const std::string& code, const std::string& loop_fn,
                                            int loop_line, const std::string& iteration) {
  size_t fb = 0, fe = 0;
  if (!DefinitionLines(code, loop_fn, &fb, &fe)) return {};
  const std::vector<Tok> all = Scan(code);
  const std::set<std::string> readers = ClockReaders(all);
  std::map<std::string, Time> times;
  std::map<std::string, int> counts;  // integer times: the line setting them
  std::set<std::string> integers;     // the integers declared so far
  // Each statement (up to a `;`, `{` or `}`) of the function before the loop, in order.
  size_t s = 0;
  while (s < all.size() && all[s].begin < fb) ++s;
  for (size_t i = s; i < all.size() && all[i].end <= fe && all[i].line < loop_line; ++i) {
    const std::string& x = all[i].text;
    if (x != ";" && x != "{" && x != "}") continue;
    const size_t b = s;
    s = i + 1;
    if (b >= i) continue;
    for (size_t k = b; k + 3 < i; ++k)  // cudaEventElapsedTime(&ms, start, stop)
      if (all[k].text == "cudaEventElapsedTime" && all[k + 1].text == "(" && all[k + 2].text == "&" && all[k + 3].ident)
        times[all[k + 3].text] = {"", all[k].line};
    // The name set: a declaration's, or `name =` (not `==`).
    size_t name = DeclaredNameToken(all, b, i);
    if (name == 0 && all[b].ident && b + 1 < i && all[b + 1].text == "=" && !(b + 2 < i && all[b + 2].text == "="))
      name = b;
    if (name > b && IntegerType(all, b, name)) integers.insert(all[name].text);
    if (name == 0 || name + 1 >= i || all[name + 1].text != "=") continue;
    std::string from;
    bool timed = false;
    for (size_t k = name + 2; k < i && !timed; ++k) {
      if (CallAt(all, k) && (kClockReads.count(all[k].text) || readers.count(all[k].text))) timed = true;
      if (all[k].ident && times.count(all[k].text) && !FollowsMemberAccess(all, k)) timed = true, from = all[k].text;
    }
    if (!timed) continue;
    times[all[name].text] = {from, all[name].line};
    if (integers.count(all[name].text)) counts[all[name].text] = all[name].line;
  }
  std::vector<std::string> out;
  const std::vector<Tok> served = Scan(iteration);
  std::set<std::string> named;
  for (size_t k = 0; k < served.size(); ++k)
    if (served[k].ident && !FollowsMemberAccess(served, k)) named.insert(served[k].text);
  for (const auto& [count, line] : counts) {
    if (!named.count(count)) continue;
    const Time& t = times[count];
    const std::string source = t.from.empty() ? "a clock read"
                                              : fmt::format("`{}`, {}:{}", t.from, file, times[t.from].line);
    out.push_back(fmt::format("`{}` ({}:{}), which the iteration reads, is set from a time the program measures ({}): "
                              "the harness runs the set-up for each candidate, so each candidate's iteration would do "
                              "the work its own speed chose; set it from a fixed number (a size or an option) so that "
                              "candidates do the same work",
                              count, file, line, source));
  }
  return out;
}

}  // namespace cuco::scaffold_internal
