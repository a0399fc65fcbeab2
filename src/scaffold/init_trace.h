// What one pass of `cuco init` decided and why, one line each: `cuco init --explain` prints the
// passes' traces in order (program_harness.h runs them). A pass that stopped init ends with why.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace cuco {

struct InitPassTrace {
  std::string pass;                // "find the loop", "bind the buffers", ...
  std::vector<std::string> lines;  // each decision, with its file:line where it has one
  void Add(std::string line) { lines.push_back(std::move(line)); }
};

}  // namespace cuco
