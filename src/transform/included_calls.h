// Included calls (transform/ internal): the NCCL communication of the files a program's seed keeps
// beside it as they are (the program's own headers and included sources, which the harness copies
// into its folder). Generation 0 routes those calls through the backend knob
// (cuco/program/impl/included_calls.h); this finds them.
#pragma once

#include <string>
#include <vector>

namespace cuco::transform_internal {

// A file the seed includes, transitively (util/own_includes.h: resolved in the including file's
// folder or in the include folders of `build_flags`, the workload's, relative to the seed's folder,
// that lie inside it: analyze/compile_flags.h reads them), in the order found.
struct IncludedFile {
  std::string file;  // relative to the seed's folder
  std::string text;
};
std::vector<IncludedFile> IncludedFiles(const std::string& seed_path, const std::vector<std::string>& build_flags);

struct IncludedCall {
  std::string file;  // relative to the seed's folder
  int line = 0;
  std::string name;  // one of HostCommunicationApis()
};

// The communication calls of `files` (IncludedFiles' answer), in the order found.
std::vector<IncludedCall> IncludedCommunication(const std::vector<IncludedFile>& files);

// "ncclSend at util/nccl_utils.h:33, ncclRecv at util/nccl_utils.h:34" (the first `max`, then
// ", and N more").
std::string IncludedCallList(const std::vector<IncludedCall>& calls, size_t max = 3);

}  // namespace cuco::transform_internal
