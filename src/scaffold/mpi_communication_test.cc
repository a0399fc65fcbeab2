#include "scaffold/mpi_communication.h"

#include <fstream>

#include <gtest/gtest.h>

#include "launch/test_util.h"

namespace cuco::scaffold_internal {
namespace {

class MpiCommunicationTest : public ::testing::Test {
 protected:
  Analysis Analyze(const std::string& name, const std::string& text) {
    path_ = dir_.path(name);
    std::ofstream(path_) << text;
    Result<Analysis> a = AnalyzeFile(path_);
    EXPECT_TRUE(a.ok()) << a.status().ToString();
    return a.ok() ? *a : Analysis{};
  }
  launch_test::TempDir dir_;
  std::string path_;
};

// A CUDA-aware ping-pong (olcf-tutorials' MPI_ping_pong): MPI_Send/MPI_Recv of a cudaMalloc'd
// buffer. The refusal names the first call on device memory, its allocation, the other calls, and
// the NCCL call to write instead.
TEST_F(MpiCommunicationTest, DeviceMemoryHandedToMpiIsNamedWithItsNcclCall) {
  const Analysis a = Analyze("pp.cu", R"(#include <mpi.h>
#include <cuda_runtime.h>
int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  double* d_A;
  cudaMalloc(&d_A, 1024 * sizeof(double));
  MPI_Status stat;
  for (int i = 0; i < 50; ++i) {
    if (rank == 0) {
      MPI_Send(d_A, 1024, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD);
      MPI_Recv(d_A, 1024, MPI_DOUBLE, 1, 1, MPI_COMM_WORLD, &stat);
    } else {
      MPI_Recv(d_A, 1024, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, &stat);
      MPI_Send(d_A, 1024, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD);
    }
  }
  MPI_Finalize();
  return 0;
}
)");
  const std::vector<MpiDataCall> calls = FindMpiDataCalls(a);
  ASSERT_EQ(calls.size(), 4u);
  EXPECT_EQ(calls[0].api, "MPI_Send");
  EXPECT_EQ(calls[0].line, 12);
  EXPECT_EQ(calls[0].buffer, "d_A");
  EXPECT_EQ(calls[0].device_alloc, path_ + ":8 (cudaMalloc of `d_A`)");
  const std::string m = NoNcclMessage(a, "pp.cu");
  EXPECT_EQ(m.rfind("pp.cu: no NCCL call found; cuco init scaffolds multi-GPU programs that communicate through NCCL, "
                    "and this one communicates through MPI on device memory (CUDA-aware MPI): `MPI_Send` at " + path_ +
                        ":12 moves `d_A`, allocated on the GPU at " + path_ + ":8 (cudaMalloc of `d_A`); its other MPI "
                        "calls that move data: `MPI_Recv` at " + path_ + ":13, ",
                    0),
            0u)
      << m;
  EXPECT_NE(m.find("MPI_Send becomes ncclSend), then run cuco init again"), std::string::npos) << m;
}

// MPI on host scalars only (a residual's MPI_Allreduce): named, without a claim about device memory.
TEST_F(MpiCommunicationTest, HostMpiIsNamedWithoutADeviceClaim) {
  const Analysis a = Analyze("host.cu", R"(#include <mpi.h>
int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  double local = 1, global = 0;
  MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
)");
  const std::vector<MpiDataCall> calls = FindMpiDataCalls(a);
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0].buffer, "&local");
  EXPECT_EQ(calls[0].device_alloc, "");
  const std::string m = NoNcclMessage(a, "host.cu");
  EXPECT_NE(m.find("this one moves its data through MPI: `MPI_Allreduce` at " + path_ + ":5, on memory the analysis "
                   "does not know to be the GPU's"),
            std::string::npos)
      << m;
  EXPECT_NE(m.find("MPI_Allreduce becomes ncclAllReduce"), std::string::npos) << m;
}

// A call this build skips (`#ifdef USE_CUDA_AWARE` undefined) is no call of the program; a buffer
// its own function allocates on the host is not taken for another function's device one of the
// same name.
TEST_F(MpiCommunicationTest, SkippedCodeAndAnotherFunctionsAllocationAreLeftOut) {
  const Analysis a = Analyze("mixed.cu", R"(#include <mpi.h>
#include <cuda_runtime.h>
void setup() {
  float* buf;
  cudaMalloc(&buf, 4096);
}
int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  float* buf;
  cudaMallocHost(&buf, 4096);
#ifdef USE_CUDA_AWARE
  MPI_Bcast(buf, 1024, MPI_FLOAT, 0, MPI_COMM_WORLD);
#endif
  MPI_Allreduce(MPI_IN_PLACE, buf, 1024, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
)");
  const std::vector<MpiDataCall> calls = FindMpiDataCalls(a);
  ASSERT_EQ(calls.size(), 1u) << NoNcclMessage(a, "mixed.cu");
  EXPECT_EQ(calls[0].api, "MPI_Allreduce");
  EXPECT_EQ(calls[0].buffer, "buf");
  EXPECT_EQ(calls[0].device_alloc, "");
}

// No MPI either: the plain refusal.
TEST_F(MpiCommunicationTest, NoCommunicationAtAllKeepsThePlainRefusal) {
  const Analysis a = Analyze("plain.cu", "__global__ void k(float* x) { x[0] = 1; }\nint main() { return 0; }\n");
  EXPECT_TRUE(FindMpiDataCalls(a).empty());
  EXPECT_EQ(NoNcclMessage(a, "plain.cu"), "plain.cu: no NCCL call found; cuco init scaffolds multi-GPU programs that "
                                          "communicate through NCCL (`cuco analyze plain.cu` shows what was found)");
}

}  // namespace
}  // namespace cuco::scaffold_internal
