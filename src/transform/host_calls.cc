#include "transform/host_calls.h"

#include <algorithm>
#include <cctype>
#include <utility>

#include "util/source_text.h"
#include "workload/evolve_blocks.h"

namespace cuco {
namespace {


// Line ranges strictly inside EVOLVE blocks (1-based, inclusive); empty when none or malformed.
std::vector<std::pair<int, int>> BlockInteriors(const std::string& code) {
  std::vector<std::pair<int, int>> out;
  auto split = SplitEvolveBlocks(code, "code", /*require_blocks=*/false);
  if (!split.ok()) return out;
  for (const EvolveBlock& b : split->blocks) out.emplace_back(b.start_line + 1, b.end_line - 1);
  return out;
}

}  // namespace

const std::vector<std::string>& HostCommunicationApis() {
  static const std::vector<std::string> v = {"ncclAllReduce", "ncclAllGather", "ncclReduceScatter", "ncclBroadcast",
                                             "ncclBcast",     "ncclReduce",    "ncclAlltoAll",      "ncclGather",
                                             "ncclScatter",   "ncclSend",      "ncclRecv"};
  return v;
}

const std::vector<std::string>& DeviceSetupApis() {
  static const std::vector<std::string> v = {"ncclMemAlloc",    "ncclCommWindowRegister", "ncclDevCommCreate",
                                             "alloc_symmetric", "create_dev_comm",        "alloc_peers"};
  return v;
}

std::vector<CallSite> FindCalls(const std::string& code, const std::vector<std::string>& names,
                                bool inside_blocks_only) {
  std::vector<CallSite> out;
  std::vector<std::pair<int, int>> interiors;
  if (inside_blocks_only) {
    interiors = BlockInteriors(code);
    if (interiors.empty()) return out;
  }
  const std::string t = BlankCommentsAndLiterals(code);
  int line = 1;
  for (size_t i = 0; i < t.size();) {
    const char c = t[i];
    if (c == '\n') {
      ++line;
      ++i;
      continue;
    }
    if (!IsCIdentStart(c) || (i > 0 && IsCIdentChar(t[i - 1]))) {
      ++i;
      continue;
    }
    size_t e = i;
    while (e < t.size() && IsCIdentChar(t[e])) ++e;
    const std::string word = t.substr(i, e - i);
    size_t p = e;  // newlines skipped here are counted when the scan reaches them
    while (p < t.size() && std::isspace(static_cast<unsigned char>(t[p]))) ++p;
    if (p < t.size() && t[p] == '(' && std::find(names.begin(), names.end(), word) != names.end()) {
      bool keep = !inside_blocks_only;
      for (const auto& [from, to] : interiors) keep = keep || (line >= from && line <= to);
      if (keep) out.push_back({word, line});
    }
    i = e;
  }
  return out;
}

std::string CallListText(const std::vector<CallSite>& calls, size_t max) {
  std::string s;
  for (size_t i = 0; i < calls.size() && i < max; ++i)
    s += (i ? ", " : "") + calls[i].name + " at line " + std::to_string(calls[i].line);
  if (calls.size() > max) s += ", and " + std::to_string(calls.size() - max) + " more";
  return s;
}

}  // namespace cuco
