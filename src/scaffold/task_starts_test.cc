#include "scaffold/task_starts.h"

#include <gtest/gtest.h>

#include "scaffold/init_find_loop.h"
#include "scaffold/init_pass_test_util.h"

namespace cuco::scaffold_internal {
namespace {

TEST(TaskStarts, EachWayOfStartingAFunctionAsATask) {
  const std::string text = R"(void f() {
  auto a = std::async(std::launch::async, send_all, buf, n);
  std::thread t(recv_all, buf);
  workers.emplace_back(&send_all, buf);
  pthread_create(&tid, nullptr, recv_all, &args);
  // std::async(send_all) in a comment
  std::thread u(other, buf);
  send_all(buf, n);
})";
  const std::vector<TaskStart> starts = TaskStarts(text, {"send_all", "recv_all"});
  ASSERT_EQ(starts.size(), 4u);
  EXPECT_EQ(starts[0].api, "std::async");
  EXPECT_EQ(starts[0].function, "send_all");
  EXPECT_EQ(text.substr(starts[0].offset, 10), "std::async");
  EXPECT_EQ(starts[1].api, "std::thread");
  EXPECT_EQ(starts[1].function, "recv_all");
  EXPECT_EQ(starts[2].api, "emplace_back");
  EXPECT_EQ(starts[2].function, "send_all");
  EXPECT_EQ(starts[3].api, "pthread_create");
}

TEST(TaskStarts, ACastFunctionPointerAndABraceInitialisedThread) {
  const std::string text = R"(void f() {
  pthread_create(&tid, NULL, (void* (*)(void*))rank_main, (void*)&args[r]);
  std::thread t{worker, r};
  auto w = new std::thread(&worker, 1);
  std::thread u{(other)};
})";
  const std::vector<TaskStart> starts = TaskStarts(text, {"rank_main", "worker"});
  ASSERT_EQ(starts.size(), 3u);
  EXPECT_EQ(starts[0].function, "rank_main");
  EXPECT_EQ(starts[1].function, "worker");
  EXPECT_EQ(starts[1].api, "std::thread");
  EXPECT_EQ(starts[2].function, "worker");
}

TEST(TaskStarts, TheThreadFunctionIsTheFirstStartThatIsNoAsyncTask) {
  const std::string text = R"(int main() {
  auto a = std::async(std::launch::async, prefetch, buf);
  for (int g = 0; g < n; ++g) threads.emplace_back(run_rank, g, &comms[g]);
})";
  EXPECT_EQ(ThreadFunction(text, {"prefetch", "run_rank"}), "run_rank");
  EXPECT_EQ(ThreadFunction(text, {"prefetch"}), "");
  EXPECT_EQ(ThreadFunction("int main() { run_rank(0); }", {"run_rank"}), "");
}

// An MPI program whose timed communication runs in a task std::async starts (found on
// Healthcliff-Ding/cuda-nccl-overlap: its warm-up exchange was served as the program, which "communicates
// once"): refused, naming the task's line, as is the same task started inside main's timed loop.
std::string AsyncProgram(bool inside) {
  const std::string task = "    auto done = std::async(std::launch::async, exchange, buf, n, peer, comm, s);\n";
  return std::string(R"(#include <nccl.h>
#include <cuda_runtime.h>
#include <mpi.h>
#include <future>
void exchange(float* buf, int n, int peer, ncclComm_t comm, cudaStream_t s) {
  for (int i = 0; i < 100; ++i) {
    ncclGroupStart();
    ncclSend(buf, n, ncclFloat, peer, comm, s);
    ncclRecv(buf, n, ncclFloat, peer, comm, s);
    ncclGroupEnd();
  }
  cudaStreamSynchronize(s);
}
__global__ void work(float* y) { y[threadIdx.x] += 1.f; }
int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  ncclUniqueId id;
  if (rank == 0) ncclGetUniqueId(&id);
  MPI_Bcast(&id, sizeof(id), MPI_BYTE, 0, MPI_COMM_WORLD);
  ncclComm_t comm;
  ncclCommInitRank(&comm, size, id, rank);
  const int n = 1 << 20, peer = 1 - rank;
  float *buf, *y;
  cudaMalloc(&buf, n * sizeof(float));
  cudaMalloc(&y, 256 * sizeof(float));
  cudaStream_t s;
  cudaStreamCreate(&s);
  ncclSend(buf, n, ncclFloat, peer, comm, s);
  cudaDeviceSynchronize();
)") + (inside ? "" : task) + "  for (int it = 0; it < 50; ++it) {\n" + (inside ? task : "") +
         R"(    work<<<1, 256>>>(y);
  }
  cudaDeviceSynchronize();
  MPI_Finalize();
  return 0;
}
)";
}

// What FindLoop says of AsyncProgram(inside), which must refuse it.
std::string RefusalOfAsyncProgram(bool inside) {
  auto p = GatherSmallProgram("overlap.cu", AsyncProgram(inside));
  InitPassTrace trace;
  Result<FoundLoop> found = FindLoop(p->facts, {}, &trace);
  EXPECT_FALSE(found.ok()) << found->loop.line;
  return found.ok() ? "" : found.status().message();
}

TEST(TaskStarts, CommunicationInATaskStartedOutsideTheIterationIsRefused) {
  const std::string text = AsyncProgram(false);
  const std::string refusal = RefusalOfAsyncProgram(false);
  EXPECT_NE(refusal.find("overlap.cu:" + std::to_string(LineWith(text, "auto done")) +
                                          ": the communication runs in exchange, which std::async starts here as a task"),
            std::string::npos)
      << refusal;
}

TEST(TaskStarts, ATaskStartedInTheTimedLoopIsNotItsLoopServedAlone) {
  const std::string text = AsyncProgram(true);
  // Not followed yet (a task start is no call): refused, never the task's loop served alone.
  const std::string refusal = RefusalOfAsyncProgram(true);
  EXPECT_NE(refusal.find("overlap.cu:" + std::to_string(LineWith(text, "auto done")) +
                                          ": the communication runs in exchange, which std::async starts here as a "
                                          "task (its loop, overlap.cu:6, would be served alone)"),
            std::string::npos)
      << refusal;
}

}  // namespace
}  // namespace cuco::scaffold_internal
