#include "analyze/spaced_launches.h"

#include <gtest/gtest.h>

namespace cuco::analyze_internal {
namespace {

// terryye/cuda_FlashAttention writes its launches `k << <grid, block >> > (args)`: read joined, the
// length and lines unchanged.
TEST(SpacedLaunches, ChevronsApartAreJoinedInPlace) {
  const std::string text = "  init_array << <div_up(n, 256), 256 >> > (M, n, -INFINITY);\n";
  const std::string joined = WithLaunchChevronsJoined(text);
  EXPECT_EQ(joined, "  init_array <<< div_up(n, 256), 256 >>>  (M, n, -INFINITY);\n");
  EXPECT_EQ(joined.size(), text.size());
  const std::string templated = "k<float> << <g, b, 0, s >> >(x);\n";
  EXPECT_EQ(WithLaunchChevronsJoined(templated), "k<float> <<< g, b, 0, s >>> (x);\n");
  const std::string half = "k << <g, b>>>(x);\n";  // only the opening apart
  EXPECT_EQ(WithLaunchChevronsJoined(half), "k <<< g, b>>>(x);\n");
}

// What is no launch stays: a shift, `operator<< <T>`, a stream, chevrons in a comment or a string,
// nested templates closed with `>> >`, spaced chevrons not followed by the arguments' `(`.
TEST(SpacedLaunches, WhatIsNoLaunchStays) {
  for (const std::string& text : {
           std::string("int y = x << 2;\n"),
           std::string("friend std::ostream& operator<< <T>(std::ostream&, const V<T>&);\n"),
           std::string("std::cout << n << std::endl;\n"),
           std::string("// k << <g, b >> > (x);\nconst char* s = \"k << <g, b >> > (x)\";\n"),
           std::string("std::map<int, std::vector<std::vector<int>> > m;\n"),
           std::string("a << <b >> > c;\n"),
       })
    EXPECT_EQ(WithLaunchChevronsJoined(text), text) << text;
}

}  // namespace
}  // namespace cuco::analyze_internal
