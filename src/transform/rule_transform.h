// The rule-based fast path (offline, no LLM): a harness-mode CUDA seed -> generation 0 in which
// every host NCCL call inside the EVOLVE blocks is its device-initiated equivalent from
// runtime/include/cuco/codesign/collectives.h (LSA loads/stores over NVLink), still in the seed's
// order on the seed's streams: correctness first, overlap is the search's job.
//
// The rewrite is textual and small, so a user can read the diff:
//   ncclAllGather(...) -> cuco_dc.all_gather(...)  (same arguments, same ncclResult_t), likewise
//     ReduceScatter, AllReduce, Broadcast, Bcast, Reduce, AlltoAll, Gather, Scatter, Send, Recv,
//     GroupStart, GroupEnd;
//   cudaMalloc of a buffer that peers read (a collective's send buffer) -> cuco_dc.malloc
//     (symmetric memory); every cudaFree -> cuco_dc.free; X.alloc_symmetric(...) ->
//     cuco_dc.alloc_symmetric(X, ...) (so the object knows the buffer);
//   added: the object `cuco_dc` at the top of the first block, its collective init (device
//   communicator, mailbox, kernels loaded, a first barrier: the warm-up) at the top of
//   cuco_candidate_setup, and bind(io) at the top of cuco_candidate_run.
// Frozen code is never touched: a host NCCL call outside the blocks, a seed without blocks or
// without `#include <cuco/codesign.h>` in its frozen includes is an error naming file and line.
// A seed made of the user's program (cuco init) has rules of its own: program_transform.h.
#pragma once

#include <string>
#include <vector>

#include "util/status.h"

namespace cuco {

struct RuleTransformOptions {
  int mailbox_mib = 256;  // per peer, for send/recv (only allocated when the seed uses them)
  // A program seed's build flags (workload.toml's, relative to the seed's folder): its include
  // folders are where the files it includes resolve (transform/included_calls.h).
  std::vector<std::string> build_flags;
};

struct RuleRewrite {
  int line = 0;       // 1-based line in the seed
  std::string from;   // e.g. "ncclAllGather"
  std::string to;     // e.g. "cuco_dc.all_gather"
};

struct RuleTransformResult {
  std::string code;                    // generation 0 (whole file)
  std::vector<RuleRewrite> rewrites;   // in seed order
  std::vector<std::string> inserted;   // what was added, one line each ("setup: cuco_dc.init ...")
  std::vector<std::string> warnings;   // "seed.cu:73: ..." things to check on GPU
  int collectives = 0;                 // NCCL communication calls replaced
  std::string knobs_toml;              // [[knobs]] tables generation 0 marks and the workload must declare
                                       // ("" when the workload declares them itself)
};

// Transforms `seed` (the text of `seed_path`). Errors name `seed_path` and a line.
Result<RuleTransformResult> RuleTransform(const std::string& seed, const std::string& seed_path,
                                          const RuleTransformOptions& options = {});

// A readable account of a result (for the CLI and the stored attempt's feedback).
std::string FormatRuleTransform(const RuleTransformResult& r, const std::string& seed_path);

}  // namespace cuco
