// The benchmark helper of this habit (written here, not copied): it calls the body it is handed for
// a warm-up, then times each further call with the host's clock.
#pragma once
#include <chrono>
#include <vector>

struct BenchStats {
  double mean_ms = 0;
};

template <typename Body>
BenchStats run_benchmark(int warmup, int iters, Body&& body) {
  for (int i = 0; i < warmup; ++i) body();
  std::vector<double> samples;
  for (int i = 0; i < iters; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    body();
    samples.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  BenchStats s;
  for (double v : samples) s.mean_ms += v / samples.size();
  return s;
}
