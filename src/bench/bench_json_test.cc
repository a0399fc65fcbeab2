#include "bench/bench_json.h"

#include <gtest/gtest.h>

namespace cuco {
namespace {

TEST(BenchJson, ReadsBothSchemasWithATableAndNothingElse) {
  auto now = BenchSchemaOf({{"schema", kBenchSchema}, {"table", nlohmann::json::object()}}, "b.json");
  ASSERT_TRUE(now.ok());
  EXPECT_EQ(*now, "cuco-bench/2");
  EXPECT_TRUE(BenchSchemaOf({{"schema", "cuco-bench/1"}, {"table", nlohmann::json::object()}}, "b.json").ok());
  auto tableless = BenchSchemaOf({{"schema", kBenchSchema}}, "b.json");
  ASSERT_FALSE(tableless.ok());
  EXPECT_EQ(tableless.status().message(), "b.json: not a `cuco bench` JSON (schema cuco-bench/2 or /1)");
  EXPECT_FALSE(BenchSchemaOf(nlohmann::json::array(), "b.json").ok());
  EXPECT_FALSE(BenchSchemaOf({{"schema", "cuco-bench/3"}, {"table", 1}}, "b.json").ok());
}

}  // namespace
}  // namespace cuco
