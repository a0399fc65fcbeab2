#include "cli/program_flags.h"

#include <filesystem>
#include <set>

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

std::string AddCommandSources(const CompileFlags& flags, std::vector<std::string>* files) {
  namespace fs = std::filesystem;
  std::error_code ec;
  auto same = [&](const std::string& path) { return fs::weakly_canonical(path, ec).string(); };
  std::set<std::string> given;
  for (const std::string& f : *files) given.insert(same(f));
  const fs::path cwd = fs::current_path(ec);
  std::vector<std::string> added;
  for (const std::string& source : flags.sources) {
    if (!fs::is_regular_file(source, ec) || !given.insert(same(source)).second) continue;
    const fs::path relative = fs::path(source).lexically_relative(cwd);
    const bool under = !relative.empty() && *relative.begin() != "..";
    files->push_back(under ? relative.string() : source);
    added.push_back(files->back());
  }
  if (added.empty()) return "";
  std::string said = added.size() == 1 ? "the compile command's other source is the program's too: "
                                       : "the compile command's other sources are the program's too: ";
  for (size_t i = 0; i < added.size(); ++i) said += (i == 0 ? "" : ", ") + added[i];
  return said;
}

}  // namespace cuco
