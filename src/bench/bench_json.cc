#include "bench/bench_json.h"

namespace cuco {

Result<std::string> BenchSchemaOf(const nlohmann::json& doc, const std::string& path) {
  const std::string schema = doc.is_object() ? doc.value("schema", "") : "";
  if ((schema != kBenchSchemaV1 && schema != kBenchSchema) || !doc.contains("table"))
    return Status::InvalidArgument(path + ": not a `cuco bench` JSON (schema " + kBenchSchema + " or /1)");
  return schema;
}

}  // namespace cuco
