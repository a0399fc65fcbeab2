// block_allgather candidate file: the all-gather test workload of cuco's co-design blocks
// (cuco/codesign.h, runtime/include/cuco/codesign/). seed.cu is the honest host-driven baseline.
//
// W ranks: rank r holds x (N bf16) and must produce y (W N bf16) = x_0 | x_1 | ... | x_{W-1}, every
// rank's x in rank order (rank q's x at elements [q N, (q+1) N) of y). N is a multiple of 1024.
//
// Only the code inside the EVOLVE block (between its two marker comments) may change; everything
// else, these includes in particular, is frozen and the same in every candidate of this workload.
// The harness contract is runtime/include/cuco/harness.h.
#include <cuco/harness.h>
#include <cuco/codesign.h>

#include <cublasLt.h>
#include <cuda/atomic>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <nccl.h>
#include <nccl_device.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

// EVOLVE-BLOCK-START
// Baseline: one ncclAllGather on ctx.stream.
namespace {

struct State {
  int64_t n = 0;  // elements of x on each rank
};

}  // namespace

cuco::Status cuco_candidate_setup(cuco::RankContext& /*ctx*/, const cuco::Sizes& sizes, void** state) {
  auto* s = new State();
  *state = s;
  s->n = sizes.get("N");
  if (s->n <= 0) return cuco::Status::Error("N must be > 0");
  return cuco::Status::Ok();
}

cuco::Status cuco_candidate_run(cuco::RankContext& ctx, void* state, const cuco::IO& io) {
  auto* s = static_cast<State*>(state);
  // Rank q's N elements land at [q N, (q+1) N) of y. Both buffers are harness buffers, registered as
  // symmetric windows, so NCCL may pick its symmetric-memory all-gather.
  CUCO_NCCL_CHECK(ncclAllGather(io.in("x").ptr, io.out("y").ptr, static_cast<size_t>(s->n), ncclBfloat16, ctx.comm,
                                ctx.stream));
  return cuco::Status::Ok();
}

void cuco_candidate_teardown(cuco::RankContext& /*ctx*/, void* state) { delete static_cast<State*>(state); }
// EVOLVE-BLOCK-END
