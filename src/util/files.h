// Small file-system helpers with Status errors.
#pragma once

#include <filesystem>
#include <string>

#include "util/status.h"

namespace cuco {

// The whole file as bytes.
Result<std::string> ReadFile(const std::filesystem::path& path);
// Writes through a temporary file and rename(), so readers never see half a file.
Status WriteFileAtomic(const std::filesystem::path& path, const std::string& data);
// Creates the directory and its parents if missing.
Status MakeDirs(const std::filesystem::path& dir);
// The path as the file system resolves it: absolute, no `.` or `..`, symlinks followed as far as it
// exists; where the file system cannot say, absolute and lexically normal. Two spellings of one file
// resolve alike, so this is the key for "the same file".
std::filesystem::path ResolvedPath(const std::filesystem::path& path);
// What `-include name` names for a compiler run in `dir` (gcc's and nvcc's rule): dir/name, absolute
// and lexically normal, where that file exists; else `name` as written, a header the compiler looks
// for along its include search (`-include cstdio`). An absolute name is itself.
std::string PreIncludedFile(const std::string& name, const std::filesystem::path& dir);
// Whether the name ends as C++ or CUDA source or a header of one does (.h .hpp .cuh .cu .cc .cpp .inl).
bool IsSourceFile(const std::filesystem::path& path);

}  // namespace cuco
