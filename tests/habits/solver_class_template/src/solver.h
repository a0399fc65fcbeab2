// A solver library's class template (habit of eumaster's LAM: declarations in a header, the methods
// defined in their own .cu and instantiated there for float and double).
#pragma once

#include <cstddef>

template <typename Real>
class JacobiSolver {
 public:
  JacobiSolver(size_t rows_per_rank, int rank, int ranks);
  ~JacobiSolver();
  // Runs `iters` sweeps; the rank's part of the solution is copied to `x_host`.
  bool solve(int iters, Real* x_host);

 private:
  size_t rows_;
  int rank_, ranks_;
  Real* diag_dev_;  // the matrix's diagonal, the class's own
};
