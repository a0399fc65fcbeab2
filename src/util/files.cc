#include "util/files.h"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <fstream>
#include <sstream>

namespace cuco {

Result<std::string> ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::NotFound(path.string() + ": cannot open for reading");
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return Status::IOError(path.string() + ": read failed");
  return ss.str();
}

Status WriteFileAtomic(const std::filesystem::path& path, const std::string& data) {
  std::filesystem::path tmp = path;
  tmp += ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) return Status::IOError(tmp.string() + ": cannot open for writing");
    out << data;
    out.flush();
    if (!out) return Status::IOError(tmp.string() + ": write failed");
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) return Status::IOError(path.string() + ": rename failed: " + ec.message());
  return Status::Ok();
}

Status MakeDirs(const std::filesystem::path& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return Status::IOError(dir.string() + ": cannot create directory: " + ec.message());
  return Status::Ok();
}

std::filesystem::path ResolvedPath(const std::filesystem::path& path) {
  std::error_code ec;
  const std::filesystem::path resolved = std::filesystem::weakly_canonical(std::filesystem::absolute(path, ec), ec);
  return ec ? std::filesystem::absolute(path, ec).lexically_normal() : resolved;
}

std::string PreIncludedFile(const std::string& name, const std::filesystem::path& dir) {
  if (name.empty() || std::filesystem::path(name).is_absolute()) return name;
  const std::filesystem::path in_dir = (dir / name).lexically_normal();
  std::error_code ec;
  return std::filesystem::exists(in_dir, ec) ? in_dir.string() : name;
}

bool IsSourceFile(const std::filesystem::path& path) {
  static const std::array<std::string, 7> kSource = {".h", ".hpp", ".cuh", ".cu", ".cc", ".cpp", ".inl"};
  const std::string ext = path.extension().string();
  return std::find(kSource.begin(), kSource.end(), ext) != kSource.end();
}

}  // namespace cuco
