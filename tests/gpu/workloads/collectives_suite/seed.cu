// collectives_suite candidate file: every host NCCL call that `cuco transform` maps to a
// device-initiated equivalent (runtime/include/cuco/codesign/collectives.h), on ctx.stream.
//
// W ranks, rank r holds x (N bf16) and writes y, segment after segment (P = N / W):
//   [0, W N)        all-gather of x
//   +P              reduce-scatter (sum): part r of sum_q x_q
//   +N              all-reduce (sum), out of place
//   +N              all-reduce (sum), in place (x copied there first)
//   +N              broadcast of rank W-1's x
//   +N              all-to-all: part q of it is part r of x_q
//   +N              ring: x of rank r-1 (grouped send to r+1 / recv from r-1)
//   +N              max-reduce to rank 0 (zeros on the other ranks)
//
// Only the code inside the EVOLVE block (between its two marker comments) may change; everything
// else, these includes in particular, is frozen and the same in every candidate of this workload.
// The harness contract is runtime/include/cuco/harness.h.
#include <cuco/harness.h>
#include <cuco/codesign.h>

#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <nccl.h>

#include <cstddef>
#include <cstdint>

// EVOLVE-BLOCK-START
// Baseline: the host NCCL calls in order on ctx.stream.
namespace {

struct State {
  size_t n = 0, part = 0;
};

}  // namespace

cuco::Status cuco_candidate_setup(cuco::RankContext& ctx, const cuco::Sizes& sizes, void** state) {
  auto* s = new State();
  *state = s;
  s->n = static_cast<size_t>(sizes.get("N"));
  s->part = s->n / static_cast<size_t>(ctx.world_size);
  return cuco::Status::Ok();
}

cuco::Status cuco_candidate_run(cuco::RankContext& ctx, void* state, const cuco::IO& io) {
  auto* s = static_cast<State*>(state);
  const int w = ctx.world_size, r = ctx.rank;
  const size_t n = s->n, bytes = n * sizeof(__nv_bfloat16);
  const auto* x = static_cast<const __nv_bfloat16*>(io.in("x").ptr);
  auto* y = static_cast<__nv_bfloat16*>(io.out("y").ptr);
  __nv_bfloat16* seg = y + static_cast<size_t>(w) * n;
  CUCO_NCCL_CHECK(ncclAllGather(x, y, n, ncclBfloat16, ctx.comm, ctx.stream));
  CUCO_NCCL_CHECK(ncclReduceScatter(x, seg, s->part, ncclBfloat16, ncclSum, ctx.comm, ctx.stream));
  seg += s->part;
  CUCO_NCCL_CHECK(ncclAllReduce(x, seg, n, ncclBfloat16, ncclSum, ctx.comm, ctx.stream));
  seg += n;
  CUCO_CUDA_CHECK(cudaMemcpyAsync(seg, x, bytes, cudaMemcpyDeviceToDevice, ctx.stream));
  CUCO_NCCL_CHECK(ncclAllReduce(seg, seg, n, ncclBfloat16, ncclSum, ctx.comm, ctx.stream));
  seg += n;
  CUCO_NCCL_CHECK(ncclBroadcast(x, seg, n, ncclBfloat16, w - 1, ctx.comm, ctx.stream));
  seg += n;
  CUCO_NCCL_CHECK(ncclAlltoAll(x, seg, s->part, ncclBfloat16, ctx.comm, ctx.stream));
  seg += n;
  CUCO_NCCL_CHECK(ncclGroupStart());
  CUCO_NCCL_CHECK(ncclSend(x, n, ncclBfloat16, (r + 1) % w, ctx.comm, ctx.stream));
  CUCO_NCCL_CHECK(ncclRecv(seg, n, ncclBfloat16, (r + w - 1) % w, ctx.comm, ctx.stream));
  CUCO_NCCL_CHECK(ncclGroupEnd());
  seg += n;
  CUCO_CUDA_CHECK(cudaMemsetAsync(seg, 0, bytes, ctx.stream));
  CUCO_NCCL_CHECK(ncclReduce(x, seg, n, ncclBfloat16, ncclMax, 0, ctx.comm, ctx.stream));
  return cuco::Status::Ok();
}

void cuco_candidate_teardown(cuco::RankContext& /*ctx*/, void* state) { delete static_cast<State*>(state); }
// EVOLVE-BLOCK-END
