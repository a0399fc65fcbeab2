// Status: the outcome of an operation that can fail, in the manner of LevelDB.
// A Status is ok or carries a code and a human-readable message. Messages about
// user input name the file and line ("workload.toml:12: ...").
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace cuco {

class Status {
 public:
  enum class Code {
    kOk = 0,
    kInvalidArgument,  // bad user input: a file, a flag, a value
    kNotFound,         // a file, tool or record that does not exist
    kIOError,          // reading, writing or running failed
    kUnavailable,      // a needed tool or device is missing on this machine
    kInternal,         // a bug in cuco
  };

  Status() = default;
  static Status Ok() { return Status(); }
  static Status InvalidArgument(std::string msg) { return Status(Code::kInvalidArgument, std::move(msg)); }
  static Status NotFound(std::string msg) { return Status(Code::kNotFound, std::move(msg)); }
  static Status IOError(std::string msg) { return Status(Code::kIOError, std::move(msg)); }
  static Status Unavailable(std::string msg) { return Status(Code::kUnavailable, std::move(msg)); }
  static Status Internal(std::string msg) { return Status(Code::kInternal, std::move(msg)); }
  // An error in a user's file: "path:line: msg" (line 0 means the whole file).
  static Status AtLine(const std::string& path, int line, const std::string& msg);

  bool ok() const { return code_ == Code::kOk; }
  Code code() const { return code_; }
  const std::string& message() const { return message_; }
  // "ok" or "<code name>: <message>".
  std::string ToString() const;

 private:
  Status(Code code, std::string msg) : code_(code), message_(std::move(msg)) {}
  Code code_ = Code::kOk;
  std::string message_;
};

// Result<T>: a value or the Status saying why there is none.
template <typename T>
class Result {
 public:
  Result(T value) : value_(std::move(value)) {}                      // NOLINT: implicit by design
  Result(Status status) : status_(std::move(status)) {}              // NOLINT: implicit by design
  bool ok() const { return status_.ok(); }
  const Status& status() const { return status_; }
  T& value() & { return *value_; }
  const T& value() const& { return *value_; }
  T&& value() && { return std::move(*value_); }
  T* operator->() { return &*value_; }
  const T* operator->() const { return &*value_; }
  T& operator*() & { return *value_; }
  const T& operator*() const& { return *value_; }

 private:
  Status status_;
  std::optional<T> value_;
};

}  // namespace cuco

// Return early from the enclosing function if `expr` (a Status) is not ok.
#define CUCO_RETURN_IF_ERROR(expr)      \
  do {                                  \
    ::cuco::Status cuco_s_ = (expr);    \
    if (!cuco_s_.ok()) return cuco_s_;  \
  } while (0)
