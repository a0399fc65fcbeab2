// Fuzz target: the judge's reading of the ranks' metrics JSON (JudgeMetricsTexts). The input is
// one metrics text per rank, NUL-separated (up to 4 ranks); a first byte >= 0x80 is not text but
// picks the expectations (stage, timing, timing-only, a missing rank). Any text must give a
// verdict, never a crash.
#include "evaluate/judge.h"
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const unsigned char pick = size && data[0] >= 0x80 ? data[0] : 0;
  if (pick) ++data, --size;
  auto parts = cuco::fuzz::SplitInput(data, size, 4);
  while (parts.size() > 1 && parts.back().empty()) parts.pop_back();
  std::vector<cuco::RankMetricsText> ranks;
  for (size_t r = 0; r < parts.size(); ++r) ranks.push_back({parts[r], "rank" + std::to_string(r) + ".json"});
  cuco::StageExpectations expect;
  expect.world_size = static_cast<int>(parts.size()) + (pick & 1);  // sometimes a rank wrote nothing
  expect.nonce = "n0nce";
  expect.stage = (pick & 2) ? "bench" : "verify";
  expect.expect_timing = (pick & 4) != 0;
  expect.timing_only = (pick & 8) != 0;
  expect.min_checks = (pick & 16) ? 0 : 1;
  cuco::StageVerdict v = cuco::JudgeMetricsTexts(ranks, expect, cuco::Tolerance{1e-3, 1e-2});
  if (v.status != cuco::EvalStatus::kOk && v.status != cuco::EvalStatus::kTimed && v.reason.empty())
    cuco::fuzz::Broken("a failing verdict without a reason");
  (void)v.ranks.dump();
  return 0;
}
