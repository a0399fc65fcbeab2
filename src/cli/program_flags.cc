#include "cli/program_flags.h"

#include <filesystem>

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
              "-D, -U, -std, -include and --default-stream are used, and nvcc's language flags "
              "(--expt-relaxed-constexpr, --extended-lambda) reach the harness's nvcc builds. A flag cuco's "
              "builds decide themselves (-O, -arch, -g) is dropped; any other is named in a TODO.");
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

}  // namespace cuco
