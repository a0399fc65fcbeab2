// Why the iteration has no output main can name, where no buffer main binds was found at all: the
// buffer its NCCL calls write, followed up through the helpers' parameters to where it is made.
#pragma once

#include <string>

#include "analyze/analysis.h"

namespace cuco::scaffold_internal {

struct UnnamedOutputWhy {
  std::string clause;   // for the skeleton's reason; "" when there is none
  std::string made_in;  // the function whose local (or member, or global) the buffer is; "" when not found
};

// For the first NCCL call that writes a buffer in a function other than `loop_fn` (which the iteration
// reaches): where that buffer comes from, each parameter followed to the one call that passes it
// (`buff[i]` in RunTest is RunTests's local `buff`), as a clause for the skeleton's reason:
// "its NCCL calls write `buff[i]` (ncclBcast in RunTest, t.cu:70), RunTests's `buff` (t.cu:124), a
// local of RunTests (or a member or a global there), which main never names".
UnnamedOutputWhy UnnamedOutput(const Analysis& a, const std::string& loop_fn);

// Where the iteration's result reaches `loop_fn` only in host memory the harness cannot bind (no
// std::vector, no array of a known size: host_buffers.h), followed up through the helpers' calls
// as HostCopiesOfIteration does: "its result reaches main only in host memory: cudaMemcpy in
// cg_solve (cg.cu:773) copies it into `x`, main's `x` (main.cu:204), which is neither ..." with what
// to change; "" when there is no such copy.
std::string HostOnlyResult(const Analysis& a, const std::string& loop_fn, const std::string& loop_file, int loop_line,
                           int loop_end_line);

}  // namespace cuco::scaffold_internal
