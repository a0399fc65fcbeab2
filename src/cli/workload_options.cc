#include "cli/workload_options.h"


namespace cuco {

void AddWorldSizeOption(CLI::App* cmd, int* world_size, const std::string& description) {
  cmd->add_option("--world-size", *world_size, description)->check(CLI::Range(1, 4096));
}

}  // namespace cuco
