// Fuzz target: run configs (ParseRunConfig). A config that parses must survive its own round
// trip: RunConfigToToml of it parses again and writes the same TOML.
#include "fuzz_input.h"
#include "search/run_config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  auto c = cuco::ParseRunConfig(text, "/fuzz/run.toml");
  if (!c.ok()) return 0;
  const std::string toml = cuco::RunConfigToToml(*c);
  auto again = cuco::ParseRunConfig(toml, "/fuzz/written.toml");
  if (!again.ok()) cuco::fuzz::Broken("RunConfigToToml wrote a config that does not parse", again.status().message() + "\n" + toml);
  if (cuco::RunConfigToToml(*again) != toml) cuco::fuzz::Broken("the run config round trip changed it", toml);
  (void)cuco::SizeSettings(*c);
  return 0;
}
