#include "toolchain/command.h"
#include "util/source_text.h"

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <sstream>

namespace cuco::toolchain_internal {
namespace {

bool IsExecutableFile(const std::string& path) {
  struct stat st;
  return !path.empty() && ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

std::string ShellQuote(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

}  // namespace

std::string FindProgram(const std::string& name) {
  if (name.empty()) return "";
  if (name.find('/') != std::string::npos) {
    if (!IsExecutableFile(name)) return "";
    if (name[0] == '/') return name;
    char cwd[4096];
    if (::getcwd(cwd, sizeof(cwd)) == nullptr) return name;
    return std::string(cwd) + "/" + name;
  }
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path != nullptr ? path : "/usr/local/bin:/usr/bin:/bin");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    if (dir.empty() || dir[0] != '/') continue;  // relative PATH entries would depend on the cwd
    std::string candidate = dir + "/" + name;
    if (IsExecutableFile(candidate)) return candidate;
  }
  return "";
}

CommandOutput RunCommand(const std::vector<std::string>& argv, int timeout_s) {
  CommandOutput result;
  if (argv.empty()) return result;
  std::string cmd;
  static const std::string timeout_prog = FindProgram("timeout");
  if (!timeout_prog.empty()) {
    cmd = ShellQuote(timeout_prog) + " -k 2 " + std::to_string(timeout_s) + " ";
  }
  for (const std::string& arg : argv) cmd += ShellQuote(arg) + " ";
  cmd += "</dev/null 2>&1";
  FILE* pipe = ::popen(cmd.c_str(), "re");  // close-on-exec: parallel probes must not inherit each other's pipes
  if (pipe == nullptr) return result;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof(buf), pipe)) > 0) result.output.append(buf, n);
  int status = ::pclose(pipe);
  if (status != -1 && WIFEXITED(status)) {
    result.exit_code = WEXITSTATUS(status);
  } else if (status != -1 && WIFSIGNALED(status)) {
    result.exit_code = 128 + WTERMSIG(status);
  }
  return result;
}

std::string FirstLine(const std::string& text) {
  std::stringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    line = Trim(line);
    if (!line.empty()) return line;
  }
  return "";
}

std::string Getenv(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr ? v : "";
}

bool IsFile(const std::filesystem::path& p) {
  std::error_code ec;
  return std::filesystem::is_regular_file(p, ec);
}

}  // namespace cuco::toolchain_internal
