// Helpers shared by the fuzz targets (tests/fuzz/fuzz_*.cc).
//
// A target is a function LLVMFuzzerTestOneInput(data, size) that hands the bytes to one of cuco's
// parsers of outside input and checks what must hold for any input (no crash, no exception, no
// sanitizer report; a few targets also check round trips). Built with -fsanitize=fuzzer it is a
// libFuzzer binary (scripts/fuzz.sh); built with regress_main.cc it replays files (ctest
// fuzz_regress_<name>).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace cuco::fuzz {

// The input split at NUL bytes into at least `parts` pieces (missing ones empty, extra NULs kept
// in the last piece). Multi-part targets read e.g. "seed\0candidate".
inline std::vector<std::string> SplitInput(const uint8_t* data, size_t size, size_t parts) {
  std::vector<std::string> out;
  std::string cur;
  for (size_t i = 0; i < size; ++i) {
    if (data[i] == 0 && out.size() + 1 < parts) {
      out.push_back(cur);
      cur.clear();
    } else {
      cur += static_cast<char>(data[i]);
    }
  }
  out.push_back(cur);
  while (out.size() < parts) out.emplace_back();
  return out;
}

// A property every input must keep was broken: report and abort (libFuzzer keeps the input).
[[noreturn]] inline void Broken(const char* what, const std::string& detail = "") {
  std::fprintf(stderr, "fuzz property broken: %s\n%s\n", what, detail.c_str());
  std::abort();
}

}  // namespace cuco::fuzz
