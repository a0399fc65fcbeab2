#include "util/status.h"

namespace cuco {

Status Status::AtLine(const std::string& path, int line, const std::string& msg) {
  if (line <= 0) return InvalidArgument(path + ": " + msg);
  return InvalidArgument(path + ":" + std::to_string(line) + ": " + msg);
}

std::string Status::ToString() const {
  const char* name = "ok";
  switch (code_) {
    case Code::kOk: return "ok";
    case Code::kInvalidArgument: name = "invalid argument"; break;
    case Code::kNotFound: name = "not found"; break;
    case Code::kIOError: name = "I/O error"; break;
    case Code::kUnavailable: name = "unavailable"; break;
    case Code::kInternal: name = "internal error"; break;
  }
  return std::string(name) + ": " + message_;
}

}  // namespace cuco
