// Fuzz target: workload.toml (ParseWorkload), then the bench-size overrides a user types.
#include "fuzz_input.h"
#include "workload/workload_config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto parts = cuco::fuzz::SplitInput(data, size, 2);  // "workload.toml\0NAME=VALUE"
  auto w = cuco::ParseWorkload(parts[0], "/fuzz/workload.toml");
  if (w.ok() && !parts[1].empty()) {
    cuco::WorkloadConfig copy = *w;
    (void)cuco::OverrideBenchSizes(&copy, {parts[1]});
  }
  return 0;
}
