// cuco analyze: the NCCL calls, kernels, GEMMs, streams and the communication dependency graph of a
// host-driven CUDA+NCCL program (src/analyze/analysis.h).
#include <iostream>

#include "analyze/analysis.h"
#include "cli/commands.h"
#include "cli/program_flags.h"
#include "scaffold/program_analysis.h"

namespace cuco {

void AddAnalyzeCommand(CLI::App& app, int* exit_code) {
  auto* cmd = app.add_subcommand("analyze", "Parse a host-driven CUDA+NCCL program (libclang; stub headers or a lexical "
                                            "scan as fallbacks) and print its NCCL ops, kernels, GEMMs, streams and "
                                            "the producer -> collective -> consumer graph");
  auto files = std::make_shared<std::vector<std::string>>();
  auto json = std::make_shared<bool>(false);
  cmd->add_option("program", *files, "The program's files (.cu, .cc), the one defining main first (else it is found among them)")->required();
  cmd->add_flag("--json", *json, "Print the analysis as JSON (schema cuco.analysis/1)");
  auto flags = AddProgramFlagOptions(cmd);
  cmd->callback([files, json, flags, exit_code] {
    if (const std::string moved = MainFileFirst(files.get()); !moved.empty()) std::cerr << "cuco analyze: " << moved << "\n";
    Result<CompileFlags> f = ResolveProgramFlags(*flags, files->front());
    if (!f.ok()) {
      std::cerr << "cuco analyze: " << f.status().message() << "\n";
      *exit_code = kExitUsage;
      return;
    }
    if (const std::string added = AddCommandSources(*f, files.get()); !added.empty())
      std::cerr << "cuco analyze: " << added << "\n";
    Result<Analysis> a = AnalyzeOnThisMachine(*files, *f, DetectToolchain());
    if (!a.ok()) {
      std::cerr << "cuco analyze: " << a.status().message() << "\n";
      *exit_code = kExitUsage;
      return;
    }
    if (*json) std::cout << AnalysisToJson(*a).dump(2) << "\n";
    else std::cout << FormatAnalysis(*a);
    *exit_code = kExitOk;
  });
}

}  // namespace cuco
