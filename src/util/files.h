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

}  // namespace cuco
