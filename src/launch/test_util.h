// Helpers for the launch tests.
#pragma once

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "util/files.h"

namespace cuco::launch_test {

// A fresh directory named after the running test, removed afterwards.
class TempDir {
 public:
  TempDir() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = std::filesystem::temp_directory_path() /
           ("cuco_launch_test_" + std::to_string(::getpid()) + "_" + info->test_suite_name() + "_" + info->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  ~TempDir() { std::filesystem::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  std::string dir() const { return dir_.string(); }

 private:
  std::filesystem::path dir_;
};

// Running and not a zombie.
inline bool Alive(pid_t pid) {
  if (pid <= 0 || ::kill(pid, 0) != 0) return false;
  char path[64];
  std::snprintf(path, sizeof(path), "/proc/%d/stat", static_cast<int>(pid));
  auto stat = ReadFile(path);
  if (!stat.ok()) return false;
  size_t rp = stat->rfind(')');
  return rp == std::string::npos || rp + 2 >= stat->size() || (*stat)[rp + 2] != 'Z';
}

// The lines of `text` that are "pid=<n>".
inline std::vector<pid_t> PidsIn(const std::string& text) {
  std::vector<pid_t> pids;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("pid=", 0) == 0) pids.push_back(std::stoi(line.substr(4)));
  }
  return pids;
}

// Our child processes, zombies included (there should be none once a run returns).
inline std::vector<pid_t> OurChildren() {
  std::vector<pid_t> kids;
  for (const auto& e : std::filesystem::directory_iterator("/proc")) {
    std::string name = e.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    auto stat = ReadFile(e.path() / "stat");
    if (!stat.ok()) continue;
    size_t rp = stat->rfind(')');
    if (rp == std::string::npos) continue;
    std::istringstream in(stat->substr(rp + 1));
    std::string state;
    pid_t ppid = 0;
    in >> state >> ppid;
    if (ppid == ::getpid()) kids.push_back(std::stoi(name));
  }
  return kids;
}

inline std::string Slurp(const std::string& path) {
  auto r = ReadFile(path);
  return r.ok() ? *r : std::string();
}

}  // namespace cuco::launch_test
