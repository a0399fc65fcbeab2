// Fuzz target: knob marks (`constexpr T x = v;  // cuco:knob name` inside EVOLVE blocks). The
// marks found are checked against declared knobs built from them, and set to another value.
#include "fuzz_input.h"
#include "workload/knob_marks.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto parts = cuco::fuzz::SplitInput(data, size, 2);  // "file\0value to set"
  const std::string& text = parts[0];
  auto marks = cuco::FindKnobMarks(text, "candidate.cu");
  if (!marks.ok()) {
    (void)cuco::CheckKnobMarks(text, "candidate.cu", {{"tile", {"64", "128"}, "64", "", true}});
    return 0;
  }
  std::vector<cuco::Knob> declared;
  std::map<std::string, std::string> values;
  for (const auto& [name, value] : cuco::KnobValues(*marks)) {
    declared.push_back({name, {value, parts[1]}, value, "", true});
    values[name] = parts[1];
  }
  cuco::Status check = cuco::CheckKnobMarks(text, "candidate.cu", declared);
  if (!check.ok()) cuco::fuzz::Broken("CheckKnobMarks rejected the file's own marks", check.message());
  auto applied = cuco::ApplyKnobs(text, "candidate.cu", values, declared);
  if (applied.ok()) {
    (void)cuco::FindKnobMarks(*applied, "candidate.cu");
    (void)cuco::ApplyKnobs(*applied, "candidate.cu", cuco::KnobValues(*marks), {});
  }
  return 0;
}
