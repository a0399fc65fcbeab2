// The files of a program split over several files, as `cuco init` copies them into the workload
// folder: the other sources given on the command line (compiled and linked with the main file:
// workload.toml [build] sources) and the program's own headers, those its files include with
// `#include "name"` that resolve in the including file's folder (followed transitively). Headers
// found through -I folders elsewhere (a shared utils.h) stay where they are: [build] flags keep
// the -I. Names are relative to the main file's folder, which every file must be in or below.
#pragma once

#include <string>
#include <vector>

#include "util/status.h"

namespace cuco::scaffold_internal {

struct ProgramFile {
  std::string name;  // relative to the main file's folder ("mlp.cu", "include/mlp.h")
  std::string text;
  bool source = false;  // a compiled source (else a header)
};

// Errors name the file: unreadable, or outside the main file's folder.
Result<std::vector<ProgramFile>> CollectProgramFiles(const std::string& main_path,
                                                     const std::vector<std::string>& other_sources);

}  // namespace cuco::scaffold_internal
