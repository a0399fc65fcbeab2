// The APIs cuco analyze knows (NCCL, CUDA runtime, cuBLAS/cuBLASLt, MPI) and how each call's
// arguments are read: which are the send and receive buffers, the count, the communicator, the
// stream, what the call assigns. A table of facts, no logic; analysis.cc classifies calls by it.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace cuco::analyze_internal {

// How each API's arguments are read. -1: absent; "last" stream is handled by index.
struct ApiSpec {
  ApiSpec(const char* k = "") : kind(k) {}  // NOLINT: implicit by design
  const char* kind;
  int send = -1, recv = -1, count = -1, datatype = -1, op = -1, root = -1, peer = -1, comm = -1, stream = -1;
  int assigns = -1, buffer = -1;
  int direction = -1;  // a copy's cudaMemcpyKind
  std::vector<int> reads, writes;
};

// Every known API by name (built once).
const std::map<std::string, ApiSpec>& Specs();

}  // namespace cuco::analyze_internal
