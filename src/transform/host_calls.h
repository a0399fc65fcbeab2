// Host calls: which communication calls a file makes, as the LLM transform's stage checks and
// prompts count them. A call is an identifier followed by '(' (after blanks), outside comments
// and string/character literals; no parsing beyond that. Pure functions of their arguments.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace cuco {

// The host communication calls stage B replaces (ncclAllReduce, ncclAllGather, ncclReduceScatter,
// ncclBroadcast, ncclBcast, ncclReduce, ncclAlltoAll, ncclGather, ncclScatter, ncclSend, ncclRecv).
const std::vector<std::string>& HostCommunicationApis();
// The device-side set-up stage A adds (ncclMemAlloc, ncclCommWindowRegister, ncclDevCommCreate,
// and the harness's alloc_symmetric / create_dev_comm and cuco/codesign's alloc_peers).
const std::vector<std::string>& DeviceSetupApis();

struct CallSite {
  std::string name;
  int line = 0;  // 1-based
};
// Calls of `names` in `code`: an identifier among them followed by '(' (after blanks), outside
// comments and string/character literals. With inside_blocks_only, only calls on lines strictly
// inside EVOLVE blocks (none when the markers are malformed or absent).
std::vector<CallSite> FindCalls(const std::string& code, const std::vector<std::string>& names,
                                bool inside_blocks_only = false);

// "ncclAllReduce at line 12, ncclSend at line 20" for the first `max` calls, then ", and N more".
std::string CallListText(const std::vector<CallSite>& calls, size_t max = 8);

}  // namespace cuco
