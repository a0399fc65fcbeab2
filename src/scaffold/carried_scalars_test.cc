#include "scaffold/carried_scalars.h"

#include <gtest/gtest.h>

namespace cuco::scaffold_internal {
namespace {

// The loop's tokens [first, last] in `code`: from its `for`/`while` to the closing brace of its body.
std::vector<std::string> Carried(const std::string& code, const std::set<std::string>& skip = {}) {
  const std::vector<Tok> t = Scan(code);
  size_t body_open = 0, first = 0;
  while (t[body_open].text != "{") ++body_open;
  for (size_t i = body_open; i < t.size(); ++i)
    if (t[i].text == "for" || t[i].text == "while") first = i;  // the last loop
  size_t brace = first;
  while (t[brace].text != "{") ++brace;
  return CarriedScalars(t, body_open, first, Match(t, brace), {}, skip);
}

// A CG keeps rs_old for the next pass; alpha and pAp are the pass's own; x is a pointer.
TEST(CarriedScalars, ACgsResidualKeptForTheNextPass) {
  const std::string cg =
      "void solve(double* x, int n) {\n"
      "  double b_norm = 1.0, *p = x, hist[4];\n  double rs_old;\n  MPI_Allreduce(&a, &rs_old, 1, MPI_DOUBLE, MPI_SUM, c);\n"
      "  int iter;\n"
      "  for (iter = 0; iter < n; iter++) {\n"
      "    double pAp = dot(p, Ap);\n"
      "    double alpha = rs_old / pAp;\n"
      "    double rs_new = dot(r, r);\n"
      "    if (sqrt(rs_new) / b_norm < 1e-8) break;\n"
      "    rs_old = rs_new;\n"
      "  }\n"
      "}\n";
  EXPECT_EQ(Carried(cg), std::vector<std::string>{"rs_old"});  // iter: set first by the loop's header
}

TEST(CarriedScalars, AStepCounterAndAnAddressHandedOn) {
  const std::string adam =
      "int main() {\n"
      "  int step = 0;\n  float loss = 0.0f, lr = 0.1f;\n  const int n = 4;\n"
      "  for (int i = 0; i < 10; ++i) {\n"
      "    ++step;\n    adam<<<1, 1>>>(w, g, lr, step);\n"
      "    MPI_Allreduce(&loss, &total, 1, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);\n"
      "    loss = 0.0f;\n"
      "  }\n"
      "}\n";
  // step: read-modify first; loss: its address handed on first; lr, n: never changed; i: the loop's own.
  EXPECT_EQ(Carried(adam), (std::vector<std::string>{"step", "loss"}));
  EXPECT_EQ(Carried(adam, {"step"}), std::vector<std::string>{"loss"});
}

TEST(CarriedScalars, NotWhatTheLoopDeclaresAgainNorOutOfScope) {
  const std::string code =
      "int main() {\n"
      "  double x = 1.0;\n  { double y = 2.0; }\n"
      "  for (int k = 0; k < 3; ++k) { }\n"
      "  while (run) {\n"
      "    double x = 0.0;\n    x += 1.0;\n    y += x;\n"
      "  }\n"
      "}\n";
  EXPECT_TRUE(Carried(code).empty());  // x declared again inside; y's block ends before the loop; k a header's
}

// The other spellings of an arithmetic type: `std::size_t`, `static`, a typedef or using alias of
// the file's, `auto` initialised by a number; not `auto` of anything else, nor `static` of a pointer.
TEST(CarriedScalars, QualifiedStaticAliasedAndAutoTypes) {
  const std::string code =
      "typedef double real_t;\nusing index_t = std::size_t;\n"
      "int main() {\n"
      "  std::size_t bytes = 0;\n  static int calls = 0;\n  real_t err = 1.0, tol = 1e-6;\n  index_t it = 0;\n"
      "  auto sum = 0.0, *q = p;\n  auto begin = clock();\n  static float* buf = nullptr;\n"
      "  for (int i = 0; i < 10; ++i) {\n"
      "    bytes += 64;\n    ++calls;\n    err = err / 2 + tol;\n    it++;\n    sum += err;\n"
      "    begin = clock();\n    buf = next(buf);\n"
      "  }\n"
      "}\n";
  // begin: assigned before it is read; buf: a pointer; tol: never changed; q: auto of no number.
  EXPECT_EQ(Carried(code), (std::vector<std::string>{"bytes", "calls", "err", "it", "sum"}));
}

// A flag set under a condition and read after it (eumaster's CG: `if (converged) { stop = true; }`
// then `if (stop) break;`): a pass that does not set it reads the last pass's value, so it is
// carried; a value set unconditionally first is the pass's own, also inside a plain block.
TEST(CarriedScalars, AWriteUnderAConditionMayNotHappen) {
  const std::string code =
      "int main() {\n"
      "  bool stop = false;\n  double t = 0.0, best = 1.0;\n  int k = 0;\n"
      "  for (int it = 0; it < n; ++it) {\n"
      "    if (rank == 0) {\n      if (err < tol) { stop = true; }\n    }\n"
      "    if (stop) break;\n"
      "    { t = now(); }\n    use(t);\n"
      "    if (err < best) best = err;\n    use(best);\n"
      "    switch (it) {\n      case 1: k = it;\n    }\n    use(k);\n"
      "  }\n"
      "}\n";
  EXPECT_EQ(Carried(code), (std::vector<std::string>{"stop", "best", "k"}));  // t: assigned first, always
}

}  // namespace
}  // namespace cuco::scaffold_internal
