#include "store/run_dir.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "util/files.h"

namespace cuco {

Status PrepareRunDir(const std::filesystem::path& dir) {
  const auto refuse = [&](const std::string& why) {
    return Status::InvalidArgument(dir.string() + ": cannot create the run directory: " + why +
                                   " (choose another --run-dir)");
  };
  std::error_code ec;
  if (std::filesystem::exists(dir, ec) && !std::filesystem::is_directory(dir, ec)) return refuse("it is a file");
  std::filesystem::create_directories(dir, ec);
  if (ec) return refuse(ec.message());
  if (::access(dir.c_str(), W_OK | X_OK) != 0) return refuse(std::strerror(errno));
  return Status::Ok();
}

}  // namespace cuco
