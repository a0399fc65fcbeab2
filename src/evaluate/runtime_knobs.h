// Runtime knobs: a program candidate's knob values taken out of its code, so that candidates which
// differ only in knob values share one compile (Builder: the knob-free object is compiled once, each
// candidate then compiles only its values and links).
//
// Applies to a candidate of a harness made of a user's program (it includes cuco/program/candidate.h,
// which declares cuco_program::knob_value) whose every `cuco:knob` line reads exactly
//     [static|inline ...] constexpr const char* <identifier> = "<value>";  // cuco:knob <name>
// with <value> of letters, digits and `_.+-` (at most 64), standing as a declaration of its own: in
// code (not in a raw string or a comment), outside every parenthesis (a macro's arguments, which `#`
// could turn into a string that tells the two apart) and not spliced onto the line before (a
// #define's body). Each such line becomes, in place (the
// line count is kept, so the compiler's messages cite the same lines),
//     [static|inline ...] const char* const <identifier> = ::cuco_program::knob_value(<i>);  // cuco:knob <name>
// and the values go into a unit of their own (RuntimeKnobsUnit). The program knobs of
// cuco/program/codesign.h are read at run time only (strcmp), so the candidate does the same either
// way; one that needs a value at compile time (a constant expression) does not compile erased, and
// the builder then compiles its code whole.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace cuco {

struct RuntimeKnobs {
  std::string code;                 // the candidate with every knob value replaced by a knob_value() call
  std::vector<std::string> values;  // knob_value(i) returns values[i]
};

// Nullopt when the candidate is not of that form (not a program candidate, no knob, a knob line
// of any other form, a value outside the allowed characters).
std::optional<RuntimeKnobs> SplitRuntimeKnobs(const std::string& code);

// The C++ unit defining cuco_program::knob_value over `values` (checked by SplitRuntimeKnobs).
std::string RuntimeKnobsUnit(const std::vector<std::string>& values);

}  // namespace cuco
