#include "evaluate/launcher_choice.h"

#include "launch/slurm_launcher.h"

namespace cuco {

Status ChooseLauncher(const std::string& flag, const std::string& configured, const SlurmOptions& slurm,
                      const std::filesystem::path& run_dir, CascadeOptions* opts) {
  opts->launcher = flag.empty() ? configured : flag;
  opts->slurm = slurm;
  if (opts->launcher != "slurm") return Status::Ok();
  Status s = FindSlurmTools();
  if (s.ok()) s = CheckSharedDir(slurm, run_dir.string());
  return s;
}

}  // namespace cuco
