// Fuzz target: `cuco analyze` on arbitrary source text through the lexical scanner (the front end
// used when libclang is absent or fails), and the three renderings of its analysis.
#include "analyze/analysis.h"
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  cuco::AnalyzeOptions options;
  options.allow_clang = false;
  auto a = cuco::AnalyzeText("/fuzz/input.cu", text, options);
  if (!a.ok()) return 0;
  (void)cuco::FormatAnalysis(*a);
  (void)cuco::AnalysisToJson(*a).dump();
  (void)cuco::AnalysisPromptText(*a);
  return 0;
}
