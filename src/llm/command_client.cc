#include "llm/command_client.h"

#include <unistd.h>

#include <cstdio>
#include <filesystem>

#include "launch/subprocess.h"
#include "util/files.h"

namespace cuco {
namespace {

namespace fs = std::filesystem;

// The last `max_chars` characters of `s`, marked when shortened.
std::string Tail(const std::string& s, size_t max_chars = 2000) {
  if (s.size() <= max_chars) return s;
  return "[...]" + s.substr(s.size() - max_chars);
}

std::string Seconds(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", s);
  return buf;
}

// A fresh private directory, removed when this goes out of scope.
class TempDir {
 public:
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "cuco-llm-XXXXXX").string();
    if (::mkdtemp(tmpl.data()) != nullptr) path_ = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    if (!path_.empty()) fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

}  // namespace

std::string CommandClient::Describe() const {
  return "command `" + endpoint_.command + "`" + (endpoint_.model.empty() ? "" : " model " + endpoint_.model) +
         " (tokens and cost not measured)";
}

Result<ChatResponse> CommandClient::Complete(const ChatRequest& request) {
  const std::string prefix = "llm endpoint '" + endpoint_.name + "': ";
  if (request.messages.empty()) return Status::InvalidArgument(prefix + "a chat request needs at least one message");
  TempDir dir;
  if (dir.path().empty()) return Status::IOError(prefix + "cannot create a temporary directory");

  ProcessSpec spec;
  spec.argv = {"/bin/sh", "-c", endpoint_.command};
  spec.stdin_data = FormatTranscript(request.messages);
  spec.env_set["CUCO_LLM_MODEL"] = request.model.empty() ? endpoint_.model : request.model;
  spec.stdout_path = (dir.path() / "stdout").string();
  spec.stderr_path = (dir.path() / "stderr").string();
  ProcessOutcome run = RunProcess(spec, endpoint_.timeout_s);
  Result<std::string> out = ReadFile(spec.stdout_path);
  Result<std::string> err = ReadFile(spec.stderr_path);
  std::string err_tail = err.ok() ? Tail(*err) : "";
  std::string what = prefix + "command `" + endpoint_.command + "` ";

  if (!run.started) return Status::Unavailable(what + "did not start: " + run.start_error);
  if (run.timed_out)
    return Status::IOError(what + "timed out after " + Seconds(endpoint_.timeout_s) +
                           "s; stderr: " + (err_tail.empty() ? "(empty)" : err_tail));
  if (!run.ok()) {
    std::string msg = what + "failed (" + run.Describe() + "); stderr: " + (err_tail.empty() ? "(empty)" : err_tail);
    bool missing = run.signal == 0 && (run.exit_code == 126 || run.exit_code == 127);
    return missing ? Status::Unavailable(msg) : Status::IOError(msg);
  }
  if (!out.ok()) return Status::IOError(what + "output unreadable: " + out.status().message());
  if (out->find_first_not_of(" \t\r\n") == std::string::npos)
    return Status::IOError(what + "printed no answer; stderr: " + (err_tail.empty() ? "(empty)" : err_tail));

  ChatResponse r;
  r.text = std::move(out).value();
  r.model = spec.env_set["CUCO_LLM_MODEL"];
  r.finish_reason = "exit 0";
  r.seconds = run.wall_s;
  if (request.on_delta) request.on_delta(r.text, 1);
  return r;
}

}  // namespace cuco
