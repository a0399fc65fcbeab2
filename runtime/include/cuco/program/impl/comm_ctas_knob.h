// cuco/program/impl/comm_ctas_knob.h: the comm_ctas knob of cuco/program/codesign.h, a partition of
// the GPU's SMs between the program's GEMMs and cuco's device collectives (backend "lsa"). "all"
// (the default): a collective's kernels take up to two blocks per SM; "64", "32", "16": at most that
// many blocks, so that a collective overlapping a GEMM (the chunks knob) leaves it the other SMs, at
// the cost of slower communication. Shared by the candidate file and cuco's program units (one object
// in the executable).
#pragma once

#include <cstdlib>
#include <cstring>

namespace cuco_program {
namespace candidate_detail {

struct CommCtasKnob {
  const char* value = nullptr;  // as set_comm_ctas kept it (a static initialiser may call nothing else)
};
inline CommCtasKnob& CommCtas() {
  static CommCtasKnob knob;
  return knob;
}
// The device collectives' block budget: 0 for "all" (or no knob), the count for a positive number,
// -1 for anything else.
inline int CommBlockBudget() {
  const char* v = CommCtas().value;
  if (v == nullptr || std::strcmp(v, "all") == 0) return 0;
  char* end = nullptr;
  const long n = std::strtol(v, &end, 10);
  return end != v && *end == '\0' && n > 0 && n <= 4096 ? static_cast<int>(n) : -1;
}

}  // namespace candidate_detail

// Sets the comm_ctas knob; returns true. Called from a static initialiser of generation 0.
inline bool set_comm_ctas(const char* value) {
  candidate_detail::CommCtas().value = value;
  return true;
}

}  // namespace cuco_program
