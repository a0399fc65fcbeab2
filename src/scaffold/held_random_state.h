// Random generators the iteration draws from, held at their state when the loop starts.
//
// A training program samples its batch on the host each step (`int j = sampler(rng);`): run twice on
// the same inputs, the iteration reads other data each time, and no run can be checked against
// another. cuco init copies each generator the loop draws from before the serve call and assigns the
// copy back at the top of every harness iteration: each iteration draws the same numbers, as the
// loop's first pass did. The C library's generators (`rand()`) restart from a fixed seed.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "scaffold/tokens.h"

namespace cuco::scaffold_internal {

struct HeldRandomState {
  // The generators' names (engines and distributions of <random>: `std::mt19937 rng(42);`,
  // `std::uniform_int_distribution<int> pick(0, n - 1);`, `auto g = std::mt19937_64(seed);`), in the
  // order declared. A std::random_device is left out: it is not a state that can be held.
  std::vector<std::string> generators;
  // The C library's generators the iteration calls without seeding them itself, each with the call
  // that restarts it: "srand(1)" for rand() and "srandom(1)" for random() (the seed each has when
  // never seeded), "srand48(0)" for drand48() and its kin.
  std::vector<std::string> restarts;
  bool empty() const { return generators.empty() && restarts.empty(); }
};

// Of the function whose body opens at token `body_open`, the generators declared before token `first`
// in a block that holds the loop [first, last], and named in the loop or in one of `also` (token
// ranges of the lambdas it calls); and the C library's generators called there.
HeldRandomState RandomStateDrawn(const std::vector<Tok>& t, size_t body_open, size_t first, size_t last,
                                 const std::vector<std::pair<size_t, size_t>>& also = {});

// `body` (a braced block) with each generator assigned its copy taken before the serve call and each
// C generator restarted, first; *before_serve gets the copies' declarations.
std::string HoldRandomState(const HeldRandomState& held, const std::string& body, std::string* before_serve);

// `body` (a braced block) with each of `names` assigned its copy `cuco_held_<name>`, taken before the
// serve call, first (the copies' declarations appended to *before_serve); `body` itself for none.
std::string HoldCopies(const std::vector<std::string>& names, const std::string& body, std::string* before_serve);

}  // namespace cuco::scaffold_internal
