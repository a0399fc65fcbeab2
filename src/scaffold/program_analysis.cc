#include "scaffold/program_analysis.h"

#include <algorithm>
#include <regex>

#include <fmt/format.h>

#include "evaluate/builder.h"
#include "toolchain/nvcc_includes.h"
#include "util/files.h"
#include "util/source_text.h"

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

std::string MainFileFirst(std::vector<std::string>* paths) {
  // A definition: `main(...)` then its body, not a call nor a member (`app.main(`).
  static const std::regex defines_main(R"((^|[^\w.>:])main\s*\([^;{()]*\)\s*\{)");
  auto defines = [&](const std::string& path) {
    Result<std::string> text = ReadFile(path);
    return text.ok() && std::regex_search(BlankComments(*text), defines_main);
  };
  if (paths->size() < 2 || defines(paths->front())) return "";
  std::vector<size_t> with_main;
  for (size_t i = 1; i < paths->size(); ++i)
    if (defines((*paths)[i])) with_main.push_back(i);
  if (with_main.size() != 1) return "";
  std::rotate(paths->begin(), paths->begin() + static_cast<long>(with_main[0]), paths->begin() + static_cast<long>(with_main[0]) + 1);
  return fmt::format("{} defines no main; {}, which does, is taken as the program's main file", (*paths)[1], paths->front());
}

}  // namespace cuco
