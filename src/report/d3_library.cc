#include "report/d3_library.h"

#include <cstdlib>
#include <filesystem>

#include "util/files.h"

namespace cuco {

Result<std::string> FindD3() {
  const char* env = std::getenv("CUCO_D3_JS");
  const std::string path = env && *env ? env : kD3DefaultPath;
  if (!std::filesystem::is_regular_file(path))
    return Status::NotFound("D3 not found at " + path + (env && *env ? " ($CUCO_D3_JS)" : "") +
                            ": install the Debian package node-d3 (apt-get install node-d3)");
  return path;
}

Result<std::string> ReadD3() {
  auto path = FindD3();
  if (!path.ok()) return path.status();
  return ReadFile(*path);
}

}  // namespace cuco
