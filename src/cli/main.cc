// cuco: compute/communication co-design for multi-GPU CUDA programs.
// A thin main: each subcommand lives in its own cmd_*.cc.
#include <cstdio>
#include <string>

#include "cli/commands.h"
#include "cli/program_flags.h"
#include "cli/did_you_mean.h"

int main(int argc, char** argv) {
  CLI::App app{"cuco: turns host-driven CUDA+NCCL programs into verified, faster kernels that overlap "
               "communication with computation"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "cuco 0.1.0");
  int exit_code = cuco::kExitOk;
  cuco::AddDoctorCommand(app, &exit_code);
  cuco::AddEvalCommand(app, &exit_code);
  cuco::AddEvolveCommand(app, &exit_code);
  cuco::AddBenchCommand(app, &exit_code);
  cuco::AddAnalyzeCommand(app, &exit_code);
  cuco::AddInitCommand(app, &exit_code);
  cuco::AddTransformCommand(app, &exit_code);
  cuco::AddRunCommand(app, &exit_code);
  cuco::AddShowCommand(app, &exit_code);
  cuco::AddDiffCommand(app, &exit_code);
  cuco::AddBestCommand(app, &exit_code);
  cuco::AddExportCommand(app, &exit_code);
  cuco::AddLsCommand(app, &exit_code);
  cuco::AddReportCommand(app, &exit_code);
  cuco::AddServeCommand(app, &exit_code);
  cuco::TakeTrailingCompileCommand(&argc, argv);
  if (std::string unknown = cuco::UnknownCommandMessage(app, argc, argv); !unknown.empty()) {
    std::fprintf(stderr, "%s\n", unknown.c_str());
    return cuco::kExitUsage;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::string message = cuco::UnknownFlagMessage(app, argc, argv);
    if (message.empty()) message = cuco::ParseErrorMessage(app, argc, argv, e);
    std::fprintf(stderr, "%s\n", message.c_str());
    return cuco::kExitUsage;
  }
  return exit_code;
}
