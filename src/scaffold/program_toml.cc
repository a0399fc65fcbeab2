#include "scaffold/program_toml.h"

#include <fmt/format.h>

#include "scaffold/generated_text.h"
#include "scaffold/input_files.h"
#include "util/text.h"

namespace cuco::scaffold_internal {

std::string ProgramToml(const ProgramFacts& f) {
  std::string t;
  t += fmt::format("# {}: scaffolded by `cuco init` from {} (program mode, UNTRUSTED: the program checks and\n", f.name, f.file);
  t += "# times itself and cuco reads its output). analysis.txt holds `cuco analyze`; harness/ holds a\n";
  t += "# harness-mode skeleton to fill in for trusted figures and the search.\n";
  t += KeyLine("name = " + TomlQuoted(f.name));
  std::string colls;
  for (size_t i = 0; i < f.collectives.size(); ++i) colls += (i ? ", " : "") + f.collectives[i];
  t += KeyLine("description = " + TomlLiteralOrQuoted(fmt::format("{} run as is: {}. Figures are the program's own output", f.file,
                                                         colls.empty() ? "no collective found" : colls)));
  t += KeyLine("mode = \"program\"", "harness | program");
  t += KeyLine("language = \"cuda\"");
  if (!f.has_main) t += fmt::format("# TODO(cuco init): {} defines no main(); program mode needs a complete program.\n", f.file);
  t += KeyLine("seed = " + TomlLiteralOrQuoted(f.file));
  t += KeyLine(fmt::format("world_size = {}", f.world.size),
               f.world.source.empty() ? "TODO(cuco init): no rank count found in the program; 2 assumed" : f.world.source);
  t += KeyLine(fmt::format("world_sizes = [{}]", f.world.size), "add the other rank counts the program supports");
  if (const std::vector<std::string> reads = AbsoluteInputPaths(f.program_args); !reads.empty())
    t += KeyLine("reads = " + TomlList(reads), "paths the program's arguments name: read-only in its sandbox");
  if (const std::vector<std::string> folders = WrittenFolders(f); !folders.empty())
    t += KeyLine("run_folders = " + TomlList(folders), "folders the program writes into: made, empty, where it runs");
  t += "\n[build]\n";
  t += KeyLine("flags = " + TomlList(f.build_flags), f.build_flags.size() > 1 ? "-O3 and the program's own flags" : "");
  t += KeyLine("libs = " + TomlList(f.libs), "from the program's calls");
  if (!f.build_sources.empty()) t += KeyLine("sources = " + TomlList(f.build_sources), "built and linked with " + f.file);
  t += "\n[program]\n";
  if (f.launcher == "single") {
    t += fmt::format("# {} drives every GPU from one process: it is started once, with world_size GPUs visible.\n", f.file);
  }
  if (f.launcher == "cuco") {
    t += fmt::format("# {}{} does not call MPI_Init, so it runs under cuco's own launcher: one process\n",
                     f.launcher_reads_rank ? "" : "TODO(cuco init): ", f.file);
    t += "# per rank, each with RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE, MASTER_ADDR, MASTER_PORT\n";
    t += "# (torchrun's names), CUCO_RANK, CUCO_WORLD_SIZE, ... and CUCO_RENDEZVOUS_DIR (a fresh folder per\n";
    t += "# run shared by the ranks) in its environment.\n";
    if (!f.env_reads.empty() && !f.launcher_reads_rank) {
      std::string names;
      for (size_t i = 0; i < f.env_reads.size(); ++i) names += (i ? ", " : "") + f.env_reads[i];
      t += fmt::format("# The program reads {}: make it read the CUCO_ variables instead.\n", CommentText(names, 80));
    }
    t += "# The ranks share a private /tmp (CUCO_RENDEZVOUS_DIR) and loopback, so an ncclUniqueId passed\n";
    t += "# through a file there or over TCP on MASTER_ADDR:MASTER_PORT works as it is.\n";
  }
  t += KeyLine("launcher = " + TomlQuoted(f.launcher), f.launcher_source);
  std::string defaults;
  for (const auto& c : f.constants)
    if (c.option) defaults += fmt::format(" {} {}", c.name, c.value);
  std::string args;
  for (const std::string& a : f.program_args) args += (args.empty() ? "" : ", ") + TomlQuoted(a);
  for (const std::string& m : f.arguments_missing) t += "# TODO(cuco init): " + CommentText(m) + "\n";
  t += KeyLine("args = [" + args + "]", f.rank_alone_arguments ? fmt::format("argv[{}], the program's rank, which it reads "
                                                                           "with no default", f.rank_argument)
                                        : !f.program_args.empty() ? "cuco init --args"
                                        : defaults.empty() || !f.arguments_missing.empty() ? "extra arguments to the program"
                                                                : "the program's defaults:" + defaults);
  auto regex_line = [&](const char* key, const std::optional<RegexGuess>& g, const std::string& fallback,
                        const std::string& todo) {
    if (g) {
      std::string c = fmt::format("{}:{}: \"{}\"", f.file, g->line, CommentText(EscapeNewlines(g->shown), 60));
      if (std::string(key) == "time_regex" && g->unit != "ms")
        c = "TODO(cuco init): the group must be milliseconds; " + c;
      t += KeyLine(fmt::format("{} = {}", key, TomlLiteralOrQuoted(g->regex)), c);
    } else if (!fallback.empty()) {
      t += "# " + todo + "\n";
      t += KeyLine(fmt::format("{} = {}", key, TomlLiteralOrQuoted(fallback)));
    }
  };
  regex_line("time_regex", f.time, "Time:\\s*([0-9.eE+-]+)\\s*ms",
             "TODO(cuco init): no timing line found in the program's output formats: make it print \"Time: <ms> ms\"\n"
             "# (the slowest rank's figure is taken) or change this regex (first group = milliseconds).");
  regex_line("pass_regex", f.pass, "PASS",
             "TODO(cuco init): no pass line found in the program's output formats: make it print \"PASS\" when its\n"
             "# own check passes, or change this regex.");
  regex_line("fail_regex", f.fail, "", "");
  t += "\n[limits]\n";
  t += KeyLine("compile_s = 600");
  t += KeyLine("verify_s = 120");
  t += KeyLine("bench_s = 300", "the program's whole run");
  return t;
}

}  // namespace cuco::scaffold_internal
