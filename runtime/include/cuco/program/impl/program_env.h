// cuco/program/impl/program_env.h: cuco_program::program_getenv, the same on both sides.
#pragma once

#include <cstdlib>
#include <cstring>
#include <map>
#include <string>

#include <cuco/program/program.h>

namespace cuco_program {

inline const char* program_getenv(const char* name) {
  static const char* const kRank[] = {"RANK", "OMPI_COMM_WORLD_RANK", "PMI_RANK", "SLURM_PROCID", "CUCO_RANK",
                                      "LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_RANK", "SLURM_LOCALID", "CUCO_LOCAL_RANK"};
  static const char* const kWorld[] = {"WORLD_SIZE", "OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_NTASKS", "CUCO_WORLD_SIZE",
                                       "LOCAL_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_SIZE", "CUCO_LOCAL_WORLD_SIZE"};
  thread_local std::map<std::string, std::string> answers;
  for (const char* k : kRank)
    if (std::strcmp(name, k) == 0) return (answers[name] = std::to_string(rank())).c_str();
  for (const char* k : kWorld)
    if (std::strcmp(name, k) == 0) return (answers[name] = std::to_string(world())).c_str();
  return std::getenv(name);
}

}  // namespace cuco_program
