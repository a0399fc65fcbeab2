#include "cli/program_flags.h"

#include <filesystem>

#include "toolchain/toolchain.h"

namespace cuco {

std::shared_ptr<ProgramFlagOptions> AddProgramFlagOptions(CLI::App* cmd) {
  auto o = std::make_shared<ProgramFlagOptions>();
  cmd->add_option("-I,--include-dir", o->include_dirs, "An include folder of your program (repeatable), as for nvcc");
  cmd->add_option("-D,--define", o->defines, "A macro your program is built with, NAME or NAME=VALUE (repeatable)");
  cmd->add_option("--std", o->std, "The C++ standard your program is built with (c++17, c++20)");
  cmd->add_option("--compile-commands", o->compile_commands,
                  "A compile_commands.json (or its folder) holding your program's compile command");
  cmd->add_option("compile", o->command,
                  "After `--`: the command you build the program with (nvcc -I../common main.cu ...); its -I, -D, "
                  "-U, -std and -include are used");
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
  if (!o.command.empty()) {
    Result<CompileFlags> c = FlagsFromCommand(o.command, cwd);
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

Result<Analysis> AnalyzeOnThisMachine(const std::string& path, const CompileFlags& flags) {
  AnalyzeOptions opts;
  Toolchain tc = DetectToolchain();
  if (!tc.cuda_home.empty()) opts.include_dirs.push_back(tc.cuda_home + "/include");
  if (tc.nccl.found && !tc.nccl.include_dir.empty()) opts.include_dirs.push_back(tc.nccl.include_dir);
  for (const auto& d : DefaultIncludeDirs()) opts.include_dirs.push_back(d);
  opts.program_flags = flags.flags;
  return AnalyzeFile(path, opts);
}

}  // namespace cuco
