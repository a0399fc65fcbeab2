#include "transform/host_calls.h"

#include <gtest/gtest.h>

#include <string>

namespace cuco {
namespace {

TEST(HostCallsTest, FindCallsSkipsCommentsStringsAndFrozenCode) {
  const std::string code =
      "void f() { ncclAllReduce(a, b); }\n"            // 1: frozen
      "// EVOLVE-BLOCK-START\n"                        // 2
      "void g() {\n"                                   // 3
      "  // ncclSend(x)\n"                             // 4
      "  const char* s = \"ncclRecv(y)\"; /* ncclReduce(z) */\n"  // 5
      "  ncclReduceScatter (a, b);\n"                  // 6
      "  ctx.alloc_symmetric(\n 8, &buf);\n"           // 7-8
      "  int ncclSendCount = 1'000;\n"                 // 9: not a call
      "}\n"                                            // 10
      "// EVOLVE-BLOCK-END\n";                         // 11
  auto all = FindCalls(code, HostCommunicationApis());
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].name, "ncclAllReduce");
  EXPECT_EQ(all[0].line, 1);
  EXPECT_EQ(all[1].name, "ncclReduceScatter");
  EXPECT_EQ(all[1].line, 6);
  auto inside = FindCalls(code, HostCommunicationApis(), true);
  ASSERT_EQ(inside.size(), 1u);
  EXPECT_EQ(inside[0].line, 6);
  auto setup = FindCalls(code, DeviceSetupApis());
  ASSERT_EQ(setup.size(), 1u);
  EXPECT_EQ(setup[0].line, 7);
  EXPECT_TRUE(FindCalls("void f() { g(); }\n", HostCommunicationApis(), true).empty());
}

}  // namespace
}  // namespace cuco
