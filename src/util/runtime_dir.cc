#include "util/runtime_dir.h"

#include <cstdlib>

namespace cuco {
namespace fs = std::filesystem;

fs::path RuntimeDir() {
  if (const char* e = std::getenv("CUCO_RUNTIME_DIR"); e != nullptr && *e != '\0') return e;
  auto is_runtime = [](const fs::path& p) {
    std::error_code ec;
    return fs::exists(p / "include" / "cuco" / "harness.h", ec);
  };
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  for (fs::path d = exe.parent_path(); !ec && !d.empty() && d != d.root_path(); d = d.parent_path())
    if (is_runtime(d / "runtime")) return d / "runtime";
  return SourceDir() / "runtime";
}

fs::path SourceDir() { return CUCO_SOURCE_DIR; }

}  // namespace cuco
