// runtime/src/supervisor/agree_unordered.h: the fresh-buffers agreement (two runs of the candidate
// on the same inputs) of an output the reference compares without its order
// (cuco_frozen::CheckResult::unordered_outputs: tokens packed at slots an atomicAdd hands out).
// Both runs' values are decoded and sorted, then compared element by element. Plain C++.
#pragma once

#include <cstdint>
#include <vector>

#include <cuco/workload_spec.h>

#include "supervisor/rank_backend.h"

namespace cuco::supervisor {

// `a` and `b`: the same output of two runs, as bytes. max_abs: the largest difference between the
// sorted values (+inf where one side is not finite and the other differs); mismatches: the sorted
// values that differ.
AgreeFigures AgreeUnordered(const std::vector<unsigned char>& a, const std::vector<unsigned char>& b, cuco_frozen::DType t);

}  // namespace cuco::supervisor
