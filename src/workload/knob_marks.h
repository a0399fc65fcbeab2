// Knob marks: where a candidate file states the value of a design-space knob.
//
// A knob is marked inside an EVOLVE block by a line of the form
//     constexpr <type> <identifier> = <value>;  // cuco:knob <knob-name>
// The search changes a knob by rewriting <value> and nothing else, so a knob change is a
// mechanical, reviewable edit. String values keep their quotes in the code ("ring"); the
// workload.toml values hold them unquoted (ring).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "util/status.h"
#include "workload/workload_config.h"

namespace cuco {

struct KnobMark {
  std::string name;        // the knob's name (after `cuco:knob`)
  int line = 0;            // 1-based line in the file
  std::string value;       // the value as workload.toml writes it (strings unquoted)
  bool quoted = false;     // the code writes it as a string literal
};

// The knob marks of `text` (only inside EVOLVE blocks; a mark outside one, a mark whose line
// has no `= value;`, or a knob marked twice is an error naming path:line).
Result<std::vector<KnobMark>> FindKnobMarks(const std::string& text, const std::string& path);

// name -> value of every mark.
std::map<std::string, std::string> KnobValues(const std::vector<KnobMark>& marks);

// Checks that every declared knob is marked in `text` with an allowed value.
Status CheckKnobMarks(const std::string& text, const std::string& path, const std::vector<Knob>& declared);

// Returns `text` with the given knobs set. Each name must be marked in the text, and, when
// declared, the value must be one of its declared values; otherwise an error naming the knob.
Result<std::string> ApplyKnobs(const std::string& text, const std::string& path,
                               const std::map<std::string, std::string>& values, const std::vector<Knob>& declared);

}  // namespace cuco
