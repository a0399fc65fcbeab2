#include "scaffold/stage_loop.h"

#include <gtest/gtest.h>

namespace cuco::scaffold_internal {
namespace {

size_t LoopAt(const std::vector<Tok>& t, int line) {
  for (size_t i = 0; i < t.size(); ++i)
    if (t[i].line == line && t[i].text == "for") return i;
  return t.size();
}

// rz-hpc's summa_gemm.cu, shortened: the panel loop broadcasts from a root its variable picks, and
// the statements before it prime buffer 0 (declarations, the root's copy, the grouped broadcast).
constexpr char kSumma[] = R"(int main() {
  cublasSetStream(h, compute);
  float alpha = 1.0f, beta = 1.0f;
  int current_buf = 0;
  int root_A = 0 % P_c;
  if (rank_col == root_A) {
    cudaMemcpyAsync(d_A_recv[0], d_A_local, bytes, cudaMemcpyDeviceToDevice, comm);
  }
  ncclGroupStart();
  ncclBroadcast(d_A_recv[0], d_A_recv[0], n, ncclFloat, root_A, row_comm, comm);
  ncclGroupEnd();
  cudaEventRecord(comm_done[0], comm);
  MPI_Barrier(cart);
  double start = MPI_Wtime();
  for (int k = 0; k < K_blocks; k++) {
    int next_buf = (current_buf + 1) % 2;
    cublasSgemm(h, N, N, m, n, kb, &alpha, d_A_recv[current_buf], m, b, kb, &beta, c, m);
    if (k + 1 < K_blocks) {
      int next_k = k + 1;
      int next_root_A = next_k % P_c;
      ncclBroadcast(d_A_recv[next_buf], d_A_recv[next_buf], n, ncclFloat, next_root_A, row_comm, comm);
    }
    current_buf = next_buf;
  }
  double ms = MPI_Wtime() - start;
}
)";

TEST(StageLoop, APanelLoopBroadcastingFromTheRootItsVariablePicksIsOneComputation) {
  const std::vector<Tok> t = Scan(kSumma);
  const size_t loop = LoopAt(t, 15);
  ASSERT_LT(loop, t.size());
  EXPECT_EQ(StageVariable(t, loop, StatementEnd(t, loop)), "k");
  const size_t prime = PrimingStart(t, loop, {"ncclBroadcast"});
  EXPECT_EQ(t[prime].line, 3);  // from the declarations it reads, not the handle's set-up
  EXPECT_EQ(t[prime].text, "float");
}

TEST(StageLoop, RepetitionsAndFixedPeersAreNoStages) {
  const std::vector<Tok> reps = Scan(R"(int main() {
  for (int it = 0; it < iters; ++it) {
    float* c = (it & 1) ? pong : ping;
    ncclAllReduce(c, c, n, ncclFloat, ncclSum, comm, s);
    ncclSend(halo, n, ncclFloat, (rank + 1) % size, comm, s);
    ncclBroadcast(x, x, n, ncclFloat, 0, comm, s);
  }
}
)");
  const size_t loop = LoopAt(reps, 2);
  EXPECT_EQ(StageVariable(reps, loop, StatementEnd(reps, loop)), "");
  // Set-up from the host before a loop is no priming.
  const std::vector<Tok> setup = Scan(R"(int main() {
  cudaMemcpy(x, hx, n, cudaMemcpyHostToDevice);
  for (int r = 0; r < size; ++r) ncclBroadcast(x, x, n, ncclFloat, r, comm, s);
}
)");
  const size_t each_root = LoopAt(setup, 3);
  EXPECT_EQ(StageVariable(setup, each_root, StatementEnd(setup, each_root)), "r");
  EXPECT_EQ(PrimingStart(setup, each_root, {"ncclBroadcast"}), each_root);
}

// A GEMM and an all-reduce per block of rows (wffpy/CCFL's host pipeline): each pass works on the
// part of the buffers its variable offsets, so the loop is one computation; a repeat loop, its
// double buffer toggled modulo 2, is not; nor is an element address of a loop-invariant index.
TEST(StageLoop, ALoopOffsettingTheBuffersByItsVariableWalksTheData) {
  const std::vector<Tok> blocks = Scan(R"(void pipeline(float* A, float* C, float* comm_buf, int M, int N, int K) {
  int num_blocks = (M + 255) / 256;
  for (int blk = 0; blk < num_blocks; ++blk) {
    int row_start = blk * 256;
    float* A_blk = A + row_start * K;
    float* C_blk = C + row_start * N;
    gemm(A_blk, C_blk);
    ncclAllReduce(C_blk, C_blk, 256 * N, ncclFloat, ncclSum, comm, s);
  }
}
)");
  const size_t loop = LoopAt(blocks, 3);
  ASSERT_LT(loop, blocks.size());
  EXPECT_EQ(WalkVariable(blocks, loop, StatementEnd(blocks, loop)), "blk");
  const std::vector<Tok> micro = Scan(R"(int main() {
  for (int mb = 0; mb < n_micro; ++mb) ncclSend(&x[mb * size], size, ncclFloat, next, comm, s);
}
)");
  EXPECT_EQ(WalkVariable(micro, LoopAt(micro, 2), StatementEnd(micro, LoopAt(micro, 2))), "mb");
  const std::vector<Tok> reps = Scan(R"(int main() {
  for (int it = 0; it < iters; ++it) {
    int cur = it % 2;
    int off = cur * n;
    float* buf = bufs + off;
    float* row = grid + 1 * nx;
    ncclAllReduce(buf, buf, n, ncclFloat, ncclSum, comm, s);
    ncclSend(&halo[nx], nx, ncclFloat, peer, comm, s);
  }
}
)");
  EXPECT_EQ(WalkVariable(reps, LoopAt(reps, 2), StatementEnd(reps, LoopAt(reps, 2))), "");
}

}  // namespace
}  // namespace cuco::scaffold_internal
