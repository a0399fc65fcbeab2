// NoteRead counts by kind and subject; ResetReadCounts starts over.
#include "util/read_trace.h"

#include <gtest/gtest.h>

namespace cuco {
namespace {

TEST(ReadTrace, CountsEachKindAndSubjectApart) {
  ResetReadCounts();
  NoteRead("toolchain");
  NoteRead("workload.toml", "/a/workload.toml");
  NoteRead("workload.toml", "/a/workload.toml");
  NoteRead("workload.toml", "/b/workload.toml");
  EXPECT_EQ(ReadCount("toolchain"), 1);
  EXPECT_EQ(ReadCount("workload.toml", "/a/workload.toml"), 2);
  EXPECT_EQ(ReadCount("workload.toml", "/b/workload.toml"), 1);
  EXPECT_EQ(ReadCount("workload.toml", "/c/workload.toml"), 0);
  ResetReadCounts();
  EXPECT_EQ(ReadCount("toolchain"), 0);
}

}  // namespace
}  // namespace cuco
