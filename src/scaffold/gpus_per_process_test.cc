#include "scaffold/gpus_per_process.h"

#include <gtest/gtest.h>

#include "scaffold/init_pass_test_util.h"
#include "scaffold/program_harness.h"

namespace cuco::scaffold_internal {
namespace {

// NCCL's "multiple devices per process" (its example 3): MPI processes each driving nDev GPUs, a
// communicator per GPU made in a group, the all-reduce of every GPU in a group; `kCount` the count.
std::string SeveralGpusPerProcess(const std::string& count, const std::string& ranks = "nRanks * nDev",
                                  const std::string& rank = "myRank * nDev + i") {
  return R"(#include <nccl.h>
#include <cuda_runtime.h>
#include <mpi.h>
#include <cstdio>
#include <cstdlib>
int main(int argc, char** argv) {
  int size = 1 << 20;
  int myRank, nRanks;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &myRank);
  MPI_Comm_size(MPI_COMM_WORLD, &nRanks);
  int nDev = )" + count + R"(;
  float** sendbuff = (float**)malloc(nDev * sizeof(float*));
  float** recvbuff = (float**)malloc(nDev * sizeof(float*));
  cudaStream_t* s = (cudaStream_t*)malloc(sizeof(cudaStream_t) * nDev);
  for (int i = 0; i < nDev; ++i) {
    cudaSetDevice(myRank * nDev + i);
    cudaMalloc((void**)sendbuff + i, size * sizeof(float));
    cudaMalloc((void**)recvbuff + i, size * sizeof(float));
    cudaStreamCreate(s + i);
  }
  ncclUniqueId id;
  ncclComm_t comms[8];
  if (myRank == 0) ncclGetUniqueId(&id);
  MPI_Bcast((void*)&id, sizeof(id), MPI_BYTE, 0, MPI_COMM_WORLD);
  ncclGroupStart();
  for (int i = 0; i < nDev; i++) {
    cudaSetDevice(myRank * nDev + i);
    ncclCommInitRank(comms + i, )" + ranks + ", id, " + rank + R"();
  }
  ncclGroupEnd();
  ncclGroupStart();
  for (int i = 0; i < nDev; i++)
    ncclAllReduce((const void*)sendbuff[i], (void*)recvbuff[i], size, ncclFloat, ncclSum, comms[i], s[i]);
  ncclGroupEnd();
  for (int i = 0; i < nDev; i++) cudaStreamSynchronize(s[i]);
  printf("[MPI Rank %d] Success \n", myRank);
  MPI_Finalize();
  return 0;
}
)";
}

// The count is found where the program declares it, and the harness is made of the program started
// with one GPU per process: the literal reads 1 (padded: lines and offsets kept), each host array
// of device pointers then holds one, and its entry 0 is bound.
TEST(GpusPerProcess, AFixedCountOfGpusPerMpiProcessIsStartedWithOne) {
  const std::string text = SeveralGpusPerProcess("16");
  auto p = GatherSmallProgram("ex3.cu", text);
  ASSERT_EQ(p->facts.launcher, "mpirun");
  const std::optional<GpusPerProcess> g = FixedGpusPerProcess(p->facts);
  ASSERT_TRUE(g.has_value());
  EXPECT_EQ(g->var, "nDev");
  EXPECT_EQ(g->count, 16);
  EXPECT_EQ(g->line, LineWith(text, "int nDev ="));
  const ProgramFacts one = WithOneGpuPerProcess(p->facts, *g);
  EXPECT_NE(one.raw.find("int nDev = 1 ;"), std::string::npos);
  EXPECT_EQ(one.raw.size(), text.size());
  EXPECT_EQ(one.run_defaults.values.at("nDev"), 1);
  EXPECT_EQ(p->facts.raw, text);  // the program's own text is left as it is

  std::vector<InitPassTrace> trace;
  Result<ProgramHarness> h = MakeProgramHarness(p->facts, {}, &trace);
  ASSERT_TRUE(h.ok()) << h.status().ToString();
  ASSERT_FALSE(h->guesses.empty());
  EXPECT_EQ(h->guesses.front(), OneGpuPerProcessGuess(p->facts, *g));
  EXPECT_NE(h->guesses.front().find("ex3.cu:" + std::to_string(g->line) + ": `nDev = 16` GPUs per process"),
            std::string::npos);
  EXPECT_EQ(h->outputs, (std::vector<std::string>{"recvbuff_0"}));  // recvbuff[0], as the harness names it
  bool seed_pinned = false;
  for (const auto& [name, file] : h->files) seed_pinned |= file.find("int nDev = 1 ;") != std::string::npos;
  EXPECT_TRUE(seed_pinned);
}

// A count the communicator does not number its ranks by (a per-peer or per-layer array length),
// a count of 1, or one read from the command line is no fixed count of GPUs per process.
TEST(GpusPerProcess, OnlyACountNumberingTheRanksIsPinned) {
  auto peers = GatherSmallProgram("peers.cu", SeveralGpusPerProcess("2", "nRanks", "myRank"));
  EXPECT_FALSE(FixedGpusPerProcess(peers->facts).has_value());
  auto one = GatherSmallProgram("one.cu", SeveralGpusPerProcess("1"));
  EXPECT_FALSE(FixedGpusPerProcess(one->facts).has_value());
  auto argv = GatherSmallProgram("argv.cu", SeveralGpusPerProcess("atoi(argv[1])"));
  EXPECT_FALSE(FixedGpusPerProcess(argv->facts).has_value());
}

}  // namespace
}  // namespace cuco::scaffold_internal
