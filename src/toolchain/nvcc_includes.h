// The include folders nvcc adds by itself to every compile: its INCLUDES and SYSTEM_INCLUDES (CUDA
// 13 keeps CUB, Thrust and libcu++ under include/cccl, which nvcc passes as -isystem). A parse of a
// user's program by another front end (libclang, cuco analyze) needs them to find what nvcc finds.
//
// Read from `nvcc --dryrun` (no file is read or written) and cached once per nvcc: the cache file is
// keyed by nvcc's path, size and modification time. Never fails: an nvcc that cannot run, or says
// nothing of its includes, gives none.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace cuco {

// The flags, in nvcc's order, in clang's joined spelling ("-I/usr/local/cuda/include",
// "-isystem/usr/local/cuda/include/cccl"); paths lexically normal. `cache_dir` "" : no cache.
std::vector<std::string> NvccIncludeFlags(const std::string& nvcc, const std::filesystem::path& cache_dir);

// The flags of `nvcc --dryrun`'s output (its `#$ INCLUDES=...` and `#$ SYSTEM_INCLUDES=...` lines).
std::vector<std::string> ParseNvccDryrun(const std::string& text);

}  // namespace cuco
