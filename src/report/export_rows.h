// `cuco export`: one row per candidate with every stored field, under stable column names
// (docs/report.md lists them). The fixed columns come first in kExportColumns' order, then one
// `knob.<name>` column per knob seen in any candidate's features_json, by name.
// CSV follows RFC 4180 (every field quoted when it holds a comma, quote or line break); JSON is
// an array of objects with numbers as numbers, extra_parent_ids as an array and features,
// metrics as parsed objects.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/run_data.h"

namespace cuco {

inline const std::vector<std::string> kExportColumns = {
    "id",          "parent_id",     "extra_parent_ids", "island",   "generation", "status",
    "reason",      "time_ms",       "speedup",          "mutation_kind", "proposer", "code_hash",
    "run_id",      "created_ms",    "finished_ms",      "feedback", "features_json", "metrics_json",
    "diff_from_parent", "code",     "logs"};

// The column names of a run's export: kExportColumns then knob.<name>...
std::vector<std::string> ExportColumns(const RunData& run);
// One object per candidate, keyed by ExportColumns (knob columns absent from a candidate are null).
nlohmann::json ExportJson(const RunData& run);
std::string ExportCsv(const RunData& run);
// One CSV field, quoted when it must be.
std::string CsvField(const std::string& s);

}  // namespace cuco
