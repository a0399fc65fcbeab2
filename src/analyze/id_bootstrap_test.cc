#include "analyze/id_bootstrap.h"

#include <gtest/gtest.h>

namespace cuco::analyze_internal {
namespace {

RawCall Call(const std::string& callee, std::vector<std::string> args, int line, int file = 0) {
  RawCall c;
  c.callee = callee;
  c.args = std::move(args);
  c.line = line;
  c.file_index = file;
  return c;
}

// An id set in the environment and used by nothing else: a warning naming the setenv. The same id
// also broadcast, written to a file or given to a helper: handed on, no warning.
TEST(IdOnlyInOwnEnvironment, SetenvAloneIsNoTransport) {
  const std::vector<std::string> files = {"/src/main.cpp", "/src/nccl_utils.cpp"};
  std::vector<RawCall> calls = {
      Call("ncclCheck", {"ncclGetUniqueId(&id)", "\"get unique id\""}, 17, 1),
      Call("ncclGetUniqueId", {"&id"}, 17, 1),
      Call("setenv", {"\"NCCL_UNIQUE_ID\"", "(const char*)&id", "1"}, 19, 1),
      Call("getenv", {"\"NCCL_UNIQUE_ID\""}, 23, 1),
      Call("ncclCommInitRank", {"&ctx.comm", "ctx.world_size", "id", "ctx.rank"}, 30, 1),
      Call("printf", {"\"%zu\"", "sizeof(id)"}, 31, 1),
  };
  const std::vector<std::string> w = IdOnlyInOwnEnvironment(calls, files);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0].rfind("nccl_utils.cpp:19: the ncclUniqueId `id` is handed on only through setenv", 0), 0u) << w[0];

  for (const RawCall& transport : {Call("MPI_Bcast", {"&id", "sizeof(id)", "MPI_BYTE", "0", "MPI_COMM_WORLD"}, 20),
                                   Call("fwrite", {"&id", "sizeof id", "1", "f"}, 20),
                                   Call("share_id", {"id"}, 20)}) {
    std::vector<RawCall> more = calls;
    more.push_back(transport);
    EXPECT_TRUE(IdOnlyInOwnEnvironment(more, files).empty()) << transport.callee;
  }
  // A member id, and a name that only begins like the id's: still only the environment.
  const std::vector<RawCall> member = {Call("ncclGetUniqueId", {"&ctx.uid"}, 5), Call("putenv", {"ctx.uid.internal"}, 6),
                                       Call("MPI_Bcast", {"&ctx.uid2", "128", "MPI_BYTE", "0", "c"}, 7)};
  ASSERT_EQ(IdOnlyInOwnEnvironment(member, files).size(), 1u);
  EXPECT_NE(IdOnlyInOwnEnvironment(member, files)[0].find("main.cpp:6:"), std::string::npos);
  // No setenv at all: nothing to say here (how else the id travels is not this check's).
  EXPECT_TRUE(IdOnlyInOwnEnvironment({Call("ncclGetUniqueId", {"&id"}, 5)}, files).empty());
}

}  // namespace
}  // namespace cuco::analyze_internal
