// Test helper of report_test: a real run directory (a SQLite store written through
// CandidateStore) holding a small search: a seed, knob children on two islands, a crossover,
// failures of several kinds, a migration in the search state, and hostile text in code and logs.
#pragma once

#include <filesystem>
#include <string>

namespace cuco::report_test {

class TestRun {
 public:
  TestRun();  // writes the run under a fresh temporary directory
  ~TestRun();
  const std::string& dir() const { return dir_; }

 private:
  std::string dir_;
};

}  // namespace cuco::report_test
