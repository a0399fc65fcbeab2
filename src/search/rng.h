// Rng: the search's randomness. SplitMix64, so a seed gives the same numbers on every
// platform and standard library (std distributions differ between them). Every random choice
// of the search draws from an Rng seeded by DeriveSeed(run seed, what, where...), never from a
// shared stream, so a resumed run makes the same choices as an uninterrupted one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <utility>
#include <vector>

namespace cuco {

class Rng {
 public:
  explicit Rng(uint64_t seed) : s_(seed) {}
  uint64_t Next();
  double Uniform();              // [0, 1)
  size_t Below(size_t n);        // [0, n); 0 when n == 0
  // An index drawn with probability proportional to weights[i] (>= 0); uniform when all are 0.
  size_t Weighted(const std::vector<double>& weights);
  template <typename T>
  void Shuffle(std::vector<T>* v) {
    for (size_t i = v->size(); i > 1; --i) std::swap((*v)[i - 1], (*v)[Below(i)]);
  }

 private:
  uint64_t s_;
};

// A seed for one decision, mixed from the run's seed and the decision's coordinates.
uint64_t DeriveSeed(uint64_t seed, std::initializer_list<uint64_t> parts);

}  // namespace cuco
