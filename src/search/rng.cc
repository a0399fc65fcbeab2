#include "search/rng.h"

namespace cuco {

uint64_t Rng::Next() {
  uint64_t z = (s_ += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

double Rng::Uniform() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }

size_t Rng::Below(size_t n) { return n == 0 ? 0 : static_cast<size_t>(Next() % n); }

size_t Rng::Weighted(const std::vector<double>& weights) {
  double total = 0;
  for (double w : weights) total += w > 0 ? w : 0;
  if (weights.empty()) return 0;
  if (!(total > 0)) return Below(weights.size());
  double x = Uniform() * total;
  for (size_t i = 0; i < weights.size(); ++i) {
    const double w = weights[i] > 0 ? weights[i] : 0;
    if (x < w) return i;
    x -= w;
  }
  for (size_t i = weights.size(); i-- > 0;)
    if (weights[i] > 0) return i;
  return 0;
}

uint64_t DeriveSeed(uint64_t seed, std::initializer_list<uint64_t> parts) {
  Rng r(seed ^ 0x6375636f5f736561ull);
  uint64_t h = r.Next();
  for (uint64_t p : parts) {
    Rng m(h ^ (p + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2)));
    h = m.Next();
  }
  return h;
}

}  // namespace cuco
