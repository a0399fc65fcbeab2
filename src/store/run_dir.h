// The run directory a command writes (--run-dir, or its default): created up front, so that a
// folder cuco cannot create or write is bad input (exit 2) naming the folder, not an I/O failure
// half-way through.
#pragma once

#include <filesystem>

#include "util/status.h"

namespace cuco {

// Creates `dir` (and its parents) and checks that this process can write it. kInvalidArgument
// "<dir>: cannot create the run directory: <why> (choose another --run-dir)" otherwise.
Status PrepareRunDir(const std::filesystem::path& dir);

}  // namespace cuco
