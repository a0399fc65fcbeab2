// The out-of-line parts of cuco/cpu_harness.h's types, for both sides of a CPU workload: the
// supervisor (which also links the reference) and the candidate runtime.
#include <cstdio>
#include <cstdlib>

#include "cuco/cpu_harness.h"

namespace cuco::cpu {

int64_t Sizes::get(const char* name) const {
  auto it = values_.find(name);
  if (it == values_.end()) {
    std::fprintf(stderr, "cuco: size '%s' is not defined for this workload\n", name);
    std::exit(2);
  }
  return it->second;
}

const Buffer& IO::in(const char* name) const {
  auto it = inputs.find(name);
  if (it == inputs.end()) {
    std::fprintf(stderr, "cuco: no input buffer '%s'\n", name);
    std::exit(2);
  }
  return it->second;
}

const Buffer& IO::out(const char* name) const {
  auto it = outputs.find(name);
  if (it == outputs.end()) {
    std::fprintf(stderr, "cuco: no output buffer '%s'\n", name);
    std::exit(2);
  }
  return it->second;
}

}  // namespace cuco::cpu
