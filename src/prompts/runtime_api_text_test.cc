#include "prompts/runtime_api_text.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "util/files.h"
#include "util/testutil.h"

namespace cuco {
using testutil::Has;
namespace {

TEST(CandidateContract, FromTheRealHarnessHeader) {
  auto text = ReadFile(std::filesystem::path(CUCO_SOURCE_DIR) / "runtime" / "include" / "cuco" / "harness.h");
  ASSERT_TRUE(text.ok());
  const std::string c = CandidateContractText(*text);
  for (const char* part : {"Life of a candidate process", "cuco::Status cuco_candidate_setup(cuco::RankContext& ctx",
                           "cuco_candidate_run", "cuco_candidate_teardown", "cudaStream_t side_stream(int i, int priority = 0);",
                           "void record_event(int i, cudaStream_t stream);", "Status alloc_symmetric(size_t bytes, Buffer* out);",
                           "Status create_dev_comm(", "const Buffer& out(const char* name) const;",
                           "int64_t get(const char* name) const;", "#define CUCO_CUDA_CHECK(expr)",
                           "const cudaStream_t stream;  // enqueue every iteration here"})
    EXPECT_TRUE(Has(c, part)) << part << "\n" << c;
  EXPECT_FALSE(Has(c, "namespace cuco_harness")) << c;
  EXPECT_FALSE(Has(c, "Harness side")) << c;
  EXPECT_FALSE(Has(c, "bool add(")) << c;
  EXPECT_FALSE(Has(c, "ContextState")) << c;
  EXPECT_FALSE(Has(c, "status_detail")) << c;
  EXPECT_LT(c.size(), 12000u);

  auto loaded = LoadCandidateContract("cuda");
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  EXPECT_TRUE(Has(*loaded, "cuco_candidate_run"));
  auto cpu = LoadCandidateContract("cpu");
  ASSERT_TRUE(cpu.ok()) << cpu.status().ToString();
  EXPECT_TRUE(Has(*cpu, "cuco::cpu")) << *cpu;
}

}  // namespace
}  // namespace cuco
