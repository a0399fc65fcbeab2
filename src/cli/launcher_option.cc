// --launcher and the checks of the Slurm launcher (launcher_option.h).
#include "cli/launcher_option.h"

#include <iostream>

#include "cli/exit_code.h"
#include "evaluate/launcher_choice.h"

namespace cuco {

void AddLauncherOption(CLI::App* cmd, std::string* launcher) {
  cmd->add_option("--launcher", *launcher,
                  "Where evaluations run: local, or slurm (Slurm jobs, or steps inside an allocation; docs/cluster.md)")
      ->check(CLI::IsMember({"local", "slurm"}));
}

int ApplyLauncher(const std::string& command, const std::string& flag, const std::string& configured,
                  const SlurmOptions& slurm, const std::filesystem::path& run_dir, CascadeOptions* opts) {
  Status s = ChooseLauncher(flag, configured, slurm, run_dir, opts);
  if (s.ok()) return 0;
  std::cerr << "cuco " << command << ": " << s.message() << "\n";
  return ExitCodeFor(s);
}

}  // namespace cuco
