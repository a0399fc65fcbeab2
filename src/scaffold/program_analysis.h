// A user's program analysed on this machine: the include folders the program's own build would see
// (the CUDA toolkit's, what nvcc adds by itself, NCCL's, the system's) before its own flags. What
// `cuco analyze`, `cuco init` and `cuco run <program>` parse the program with.
#pragma once

#include <string>
#include <vector>

#include "analyze/analysis.h"
#include "analyze/compile_flags.h"
#include "toolchain/toolchain.h"
#include "util/status.h"

namespace cuco {

// The analysis of the program's files (main's first): the detected CUDA/NCCL include folders of
// `tc` (the command's toolchain, detected once) plus `flags`.
Result<Analysis> AnalyzeOnThisMachine(const std::vector<std::string>& paths, const CompileFlags& flags, const Toolchain& tc);

// `paths` (the files a user gave `cuco analyze|init|run`) with the one defining `main` moved first, where
// the first defines none and exactly one other does (nccl-tests' `hypercube.cu common.cu`, main in
// common.cu); returns the sentence saying so, or "" when `paths` is left as it is. An unreadable file
// defines nothing here: the analysis names it.
std::string MainFileFirst(std::vector<std::string>* paths);

}  // namespace cuco
