#include "cli/program_flags.h"

#include <algorithm>
#include <filesystem>

#include "evaluate/builder.h"
#include "toolchain/nvcc_includes.h"
#include "toolchain/toolchain.h"

namespace cuco {
namespace {
std::vector<std::string>& TrailingCommand() {
  static std::vector<std::string> words;
  return words;
}
}  // namespace

void TakeTrailingCompileCommand(int* argc, char** argv) {
  if (*argc < 2) return;
  const std::string cmd = argv[1];
  if (cmd != "analyze" && cmd != "init" && cmd != "run") return;
  for (int i = 2; i < *argc; ++i) {
    if (std::string(argv[i]) != "--") continue;
    for (int j = i + 1; j < *argc; ++j) TrailingCommand().push_back(argv[j]);
    *argc = i;
    return;
  }
}

std::shared_ptr<ProgramFlagOptions> AddProgramFlagOptions(CLI::App* cmd) {
  auto o = std::make_shared<ProgramFlagOptions>();
  cmd->add_option("-I,--include-dir", o->include_dirs, "An include folder of your program (repeatable), as for nvcc");
  cmd->add_option("-D,--define", o->defines, "A macro your program is built with, NAME or NAME=VALUE (repeatable)");
  cmd->add_option("--std", o->std, "The C++ standard your program is built with (c++17, c++20)");
  cmd->add_option("--compile-commands", o->compile_commands,
                  "A compile_commands.json (or its folder) holding your program's compile command");
  cmd->footer("After `--`: the command you build the program with (-- nvcc -I../common main.cu -o prog); its -I, "
              "-D, -U, -std, -include and --default-stream are used.");
  return o;
}

Result<CompileFlags> ResolveProgramFlags(const ProgramFlagOptions& o, const std::string& program) {
  std::vector<std::string> argv = {"-"};
  for (const auto& d : o.include_dirs) argv.push_back("-I" + d);
  for (const auto& d : o.defines) argv.push_back("-D" + d);
  if (!o.std.empty()) argv.push_back("-std=" + o.std);
  const std::string cwd = std::filesystem::current_path().string();
  Result<CompileFlags> direct = FlagsFromCommand(argv, cwd);
  if (!direct.ok()) return direct.status();
  CompileFlags all = *direct;
  const std::vector<std::string>& command = o.command.empty() ? TrailingCommand() : o.command;
  if (!command.empty()) {
    Result<CompileFlags> c = FlagsFromCommand(command, cwd);
    if (!c.ok()) return Status::InvalidArgument("the compile command after `--`: " + c.status().message());
    all = MergeFlags(all, *c);
  }
  if (!o.compile_commands.empty()) {
    Result<CompileFlags> c = FlagsFromCompileCommands(o.compile_commands, program);
    if (!c.ok()) return c.status();
    all = MergeFlags(all, *c);
  }
  return all;
}

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
  return AnalyzeProgram(paths, opts);
}

}  // namespace cuco
