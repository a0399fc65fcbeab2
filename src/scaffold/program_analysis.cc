#include "scaffold/program_analysis.h"

#include <algorithm>

#include "evaluate/builder.h"
#include "toolchain/nvcc_includes.h"

namespace cuco {

Result<Analysis> AnalyzeOnThisMachine(const std::vector<std::string>& paths, const CompileFlags& flags, const Toolchain& tc) {
  AnalyzeOptions opts;
  auto add = [&](const std::string& d) {
    if (!d.empty() && std::find(opts.include_dirs.begin(), opts.include_dirs.end(), d) == opts.include_dirs.end())
      opts.include_dirs.push_back(d);
  };
  if (!tc.cuda_home.empty()) add(tc.cuda_home + "/include");
  // What nvcc adds by itself (CUDA 13: CUB and Thrust under include/cccl), asked once per nvcc.
  for (const std::string& f : NvccIncludeFlags(tc.nvcc, DefaultCacheDir()))
    add(f.substr(f.rfind("-isystem", 0) == 0 ? 8 : 2));
  if (tc.nccl.found && !tc.nccl.include_dir.empty()) add(tc.nccl.include_dir);
  for (const auto& d : DefaultIncludeDirs()) add(d);
  opts.program_flags = flags.flags;
  if (flags.nvcc) opts.program_flags.insert(opts.program_flags.begin(), "-D__NVCC__");
  opts.own_include_dirs = flags.own_include_dirs;
  return AnalyzeProgram(paths, opts);
}

}  // namespace cuco
