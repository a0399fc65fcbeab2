// cuco/program/impl/part_knob.h: the part knob of cuco/program/codesign.h, for the program's own
// overlap bound max(T_compute, T_comm). "compute": the program with its communication skipped (every
// cuco_program::comm:: call returns at once); "comm": with the GEMMs cuco stands in for skipped
// (cuco_program::overlap::Sgemm, Hgemm, GemmEx, LtMatmul return at once); "none" (and any other
// value): the program. The two parts are timed, never verified (their outputs are not the
// program's): workload.toml's [[variants]] compute_alone and comm_alone, which `cuco bench` runs.
// Shared by the candidate file and cuco's program units (one object in the executable).
#pragma once

#include <cstring>

namespace cuco_program {
namespace candidate_detail {

struct PartKnob {
  const char* value = nullptr;  // as set_part kept it (a static initialiser may call nothing else)
  bool Is(const char* v) const { return value != nullptr && std::strcmp(value, v) == 0; }
};
inline PartKnob& Part() {
  static PartKnob knob;
  return knob;
}
inline bool SkipCommunication() { return Part().Is("compute"); }
inline bool SkipGemms() { return Part().Is("comm"); }

}  // namespace candidate_detail

// Sets the part knob; returns true. Called from a static initialiser of generation 0.
inline bool set_part(const char* value) {
  candidate_detail::Part().value = value;
  return true;
}

}  // namespace cuco_program
