// Shared by the single-GPU block tests (tests/gpu/blocks/*.cu): checks that end the test at once
// (a CUDA error, a failing cuco::Status) and the PASS / FAIL line of each result check.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>

#include <cuda_runtime.h>

#include <cuco/harness.h>

#define REQUIRE_CUDA(x)                                                                            \
  do {                                                                                             \
    cudaError_t e_ = (x);                                                                          \
    if (e_ != cudaSuccess) {                                                                       \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_));     \
      std::exit(2);                                                                                \
    }                                                                                              \
  } while (0)
#define REQUIRE_OK(x)                                                                              \
  do {                                                                                             \
    cuco::Status s_ = (x);                                                                         \
    if (!s_.ok()) {                                                                                \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, s_.message().c_str());               \
      std::exit(2);                                                                                \
    }                                                                                              \
  } while (0)

// Checks reported so far, and how many failed (a test exits non-zero when any did).
inline int g_checks = 0, g_failures = 0;

inline void report(const std::string& name, bool ok, const std::string& detail = "") {
  std::printf("%s %s%s%s\n", ok ? "PASS" : "FAIL", name.c_str(), detail.empty() ? "" : ": ", detail.c_str());
  ++g_checks;
  if (!ok) ++g_failures;
}
