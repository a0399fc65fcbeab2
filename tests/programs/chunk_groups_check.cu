// Host-only check of where the chunks knob issues a chunked collective found inside the program's
// NCCL group (cuco/program/impl/chunk_state.h; ctest programs_chunk_groups_check: built with the
// real nvcc, run without a GPU). NCCL launches a group's calls together at its end, every stream
// after all of them, so a chunk's call there waits for the whole GEMM (aicomm_tp_row at chunks 2 on
// 2x H200: 1.00x). Its parts go with the group closed unless the group holds a send or receive so
// far (a send and its receive must stay in one group), and the state starts over with each
// outermost group. And the send/recv bounce's group count (p2p_bounce.h) is the calling thread's:
// where a program runs a thread per GPU, another GPU's thread opening a group must not move it.
//   nvcc -std=c++20 -I runtime/include -I runtime/src chunk_groups_check.cu runtime/src/candidate/rank_context.cu
//        runtime/src/common/driver_api.cu runtime/src/program/p2p_bounce.cu -lnccl -lcuda
#include <cstdio>
#include <thread>

#include <cuco/program/impl/chunk_state.h>
#include <cuco/program/impl/p2p_bounce.h>

namespace {
int failed = 0;
void Expect(bool ok, const char* what) {
  if (!ok) std::printf("FAIL: %s\n", what), ++failed;
}
}  // namespace

int main() {
  namespace ov = cuco_program::overlap;
  Expect(!ov::ChunksOutsideGroup(), "outside every group: no group to close");
  ov::PointToPointInGroup();  // a send outside a group marks nothing
  ov::GroupOpened();
  Expect(ov::ChunksOutsideGroup(), "a group of collectives only: the parts go outside it");
  ov::GroupOpened();
  Expect(ov::GroupDepth() == 2 && ov::ChunksOutsideGroup(), "nested: still outside");
  ov::PointToPointInGroup();
  Expect(!ov::ChunksOutsideGroup(), "a receive in the group: the parts stay inside");
  ov::GroupClosed();
  Expect(!ov::ChunksOutsideGroup(), "the inner group's end keeps the outer group's receive");
  ov::GroupClosed();
  Expect(ov::GroupDepth() == 0 && !ov::ChunksOutsideGroup(), "every group closed");
  ov::GroupOpened();
  Expect(ov::ChunksOutsideGroup(), "a new group starts with no send or receive");
  ov::GroupClosed();
  Expect(cuco_program::p2p::GroupStart() == ncclSuccess && cuco_program::p2p::GroupDepth() == 1, "a group opened here");
  int other_before = -1, other_inside = -1;
  std::thread other([&] {
    other_before = cuco_program::p2p::GroupDepth();
    cuco_program::p2p::GroupStart();
    other_inside = cuco_program::p2p::GroupDepth();
    cuco_program::p2p::GroupEnd();
  });
  other.join();
  Expect(other_before == 0 && other_inside == 1, "another thread counts its own groups");
  Expect(cuco_program::p2p::GroupDepth() == 1, "another thread's group leaves this thread's count as it was");
  Expect(cuco_program::p2p::GroupEnd() == ncclSuccess && cuco_program::p2p::GroupDepth() == 0, "the group closed here");
  if (failed == 0) std::printf("chunk_groups_check: every check holds\n");
  return failed == 0 ? 0 : 1;
}
