// The GPU-state readings of rank<R>.json as evidence: parsing, what counts as a change, and whose
// doing each change is.
#include "evaluate/gpu_state_check.h"

#include <gtest/gtest.h>

#include "util/testutil.h"

namespace cuco {
namespace {

using testutil::Has;

nlohmann::json Processes(int n) {
  nlohmann::json p = nlohmann::json::array();
  for (int i = 0; i < n; ++i) p.push_back({{"pid", 4000 + i}, {"used_bytes", 1 << 20}, {"name", ""}});
  return p;
}

nlohmann::json Reading(double kernel_ms = 0.150, int sms = 132, int others = 0) {
  return {{"samples", 11},         {"canary_kernel_ms", kernel_ms}, {"canary_kernel_spread", 0.02},
          {"canary_copy_ms", 0.040}, {"canary_copy_spread", 0.03},   {"sm_count", sms},
          {"mem_total_bytes", 85899345920LL}, {"nvml", true},       {"sm_clock_mhz", 1980},
          {"app_sm_clock_mhz", 1980}, {"app_mem_clock_mhz", 2619},   {"compute_mode", 0},
          {"persistence_mode", 1},  {"processes", Processes(1 + others)}, {"other_processes", others},
          {"error", nullptr}};
}

nlohmann::json Rank(const nlohmann::json& before, const nlohmann::json& after, bool mps = true) {
  return {{"rank", 0}, {"mps", mps}, {"pci_bus_id", "0000:18:00.0"}, {"gpu_state", {{"before", before}, {"after", after}}}};
}

TEST(GpuReading, ParsesTheSupervisorsFieldsAndRefusesFailedReadings) {
  const GpuReading r = ParseGpuReading(Reading());
  EXPECT_TRUE(r.present);
  EXPECT_DOUBLE_EQ(r.kernel_ms, 0.150);
  EXPECT_EQ(r.sm_count, 132);
  EXPECT_EQ(r.mem_total, 85899345920LL);
  EXPECT_EQ(r.sm_clock_mhz, 1980);
  EXPECT_EQ(r.processes, 1);
  nlohmann::json failed = Reading();
  failed["error"] = "canary kernel: cudaErrorIllegalAddress";
  EXPECT_FALSE(ParseGpuReading(failed).present);
  EXPECT_FALSE(ParseGpuReading(nullptr).present);
  EXPECT_FALSE(ParseGpuReading("forged").present);
}

TEST(GpuReading, NoiseAndFasterReadingsAreNoChange) {
  const GpuReading base = ParseGpuReading(Reading(0.150));
  EXPECT_FALSE(CompareGpuReadings(base, ParseGpuReading(Reading(0.180))).changed()) << "20% is within the 25% floor";
  EXPECT_FALSE(CompareGpuReadings(base, ParseGpuReading(Reading(0.100))).changed()) << "faster is never sabotage";
  EXPECT_DOUBLE_EQ(CanaryTolerance(0.01), 0.25);
  EXPECT_DOUBLE_EQ(CanaryTolerance(0.10), 0.40);
}

TEST(GpuReading, AnMpsCapShowsAsFewerSmsAndASlowerCanary) {
  const GpuStateChange c = CompareGpuReadings(ParseGpuReading(Reading(0.150, 132)), ParseGpuReading(Reading(2.9, 7)));
  ASSERT_EQ(c.candidate.size(), 1u);
  EXPECT_TRUE(Has(c.candidate[0], "132 -> 7")) << c.Text();
  ASSERT_EQ(c.canary.size(), 1u);
  EXPECT_TRUE(Has(c.canary[0], "19.33x slower")) << c.Text();
  EXPECT_TRUE(c.machine.empty());
}

TEST(GpuReading, ASlowerCanaryReadAgainSaysHowOften) {
  nlohmann::json later = Reading(2.9, 7);
  later["reads"] = 4;  // the supervisor read it again three times (gpu_state_settle.h): a change that lasts
  const GpuStateChange c = CompareGpuReadings(ParseGpuReading(Reading(0.150, 132)), ParseGpuReading(later));
  ASSERT_EQ(c.canary.size(), 1u);
  EXPECT_TRUE(Has(c.canary[0], "still after 4 readings")) << c.Text();
  EXPECT_FALSE(Has(CompareGpuReadings(ParseGpuReading(Reading(0.150)), ParseGpuReading(Reading(2.9))).Text(), "readings"));
}

TEST(GpuReading, ASlowerKernelTheClockExplainsIsNoChange) {
  nlohmann::json hot = Reading(0.200);
  hot["sm_clock_mhz"] = 1485;  // 0.200 ms at 1485 MHz is 0.150 ms at 1980 MHz
  EXPECT_FALSE(CompareGpuReadings(ParseGpuReading(Reading(0.150)), ParseGpuReading(hot)).changed());
}

TEST(GpuReading, OtherProcessesAndModesAreTheMachines) {
  nlohmann::json later = Reading(0.150, 132, 1);
  later["compute_mode"] = 3;
  const GpuStateChange c = CompareGpuReadings(ParseGpuReading(Reading()), ParseGpuReading(later));
  EXPECT_TRUE(c.candidate.empty());
  ASSERT_EQ(c.machine.size(), 2u) << c.Text();
  EXPECT_TRUE(Has(c.Text(), "processes on the GPU 1 -> 2"));
  EXPECT_TRUE(Has(c.Text(), "compute mode 0 -> 3"));
}

TEST(GpuStateVerdict, AChangeAfterTheCandidateRanIsItsDoing) {
  std::vector<GpuReading> baseline;
  const nlohmann::json verify = nlohmann::json::array({Rank(Reading(), Reading())});
  GpuStateVerdict v = JudgeGpuState("verify", verify, true, &baseline, {});
  EXPECT_EQ(v.blame, GpuStateBlame::kNone) << v.reason;
  ASSERT_EQ(baseline.size(), 1u);
  EXPECT_TRUE(baseline[0].present);
  // The bench stage's supervisor, a new MPS client, gets the cap the candidate's verify run set.
  const nlohmann::json bench = nlohmann::json::array({Rank(Reading(2.9, 7), Reading(2.9, 7))});
  v = JudgeGpuState("bench", bench, true, &baseline, {});
  EXPECT_EQ(v.blame, GpuStateBlame::kCandidate);
  EXPECT_TRUE(Has(v.reason, "start of the bench stage")) << v.reason;
  EXPECT_TRUE(Has(v.reason, "132 -> 7")) << v.reason;
}

TEST(GpuStateVerdict, AKernelLeftRunningSlowsTheAfterReading) {
  std::vector<GpuReading> baseline;
  const GpuStateVerdict v =
      JudgeGpuState("verify", nlohmann::json::array({Rank(Reading(0.150), Reading(0.600))}), true, &baseline, {});
  EXPECT_EQ(v.blame, GpuStateBlame::kCandidate);
  EXPECT_TRUE(Has(v.reason, "after the candidate's verify run")) << v.reason;
  EXPECT_TRUE(Has(v.reason, "canary kernel 4.00x slower")) << v.reason;
}

TEST(GpuStateVerdict, AnotherProcessIsTheMachinesEvenWhenTheCanaryIsSlow) {
  std::vector<GpuReading> baseline;
  const GpuStateVerdict v = JudgeGpuState(
      "verify", nlohmann::json::array({Rank(Reading(0.150), Reading(0.600, 132, 1))}), true, &baseline, {});
  EXPECT_EQ(v.blame, GpuStateBlame::kInfrastructure);
  EXPECT_TRUE(Has(v.reason, "another process is using it")) << v.reason;
}

TEST(GpuStateVerdict, AGpuThatDiffersBeforeTheCandidateRanIsTheMachines) {
  std::vector<GpuReading> baseline;
  const std::vector<GpuReading> reference = {ParseGpuReading(Reading(0.150))};
  const GpuStateVerdict v =
      JudgeGpuState("verify", nlohmann::json::array({Rank(Reading(0.450), Reading(0.450))}), true, &baseline, reference);
  EXPECT_EQ(v.blame, GpuStateBlame::kInfrastructure) << v.reason;
  EXPECT_TRUE(Has(v.reason, "before the candidate ran")) << v.reason;
  EXPECT_EQ(v.suspect_ranks, std::vector<int>{0});
}

TEST(GpuStateVerdict, ASupervisorThatDidNotSeeCucosDaemonIsTheMachines) {
  std::vector<GpuReading> baseline;
  const GpuStateVerdict v =
      JudgeGpuState("verify", nlohmann::json::array({Rank(Reading(), Reading(), false)}), true, &baseline, {});
  EXPECT_EQ(v.blame, GpuStateBlame::kInfrastructure);
  EXPECT_TRUE(Has(v.reason, "did not see an MPS daemon")) << v.reason;
}

TEST(GpuStateVerdict, RanksWithoutReadingsJudgeNothing) {
  std::vector<GpuReading> baseline;
  const nlohmann::json ranks = nlohmann::json::array({{{"rank", 0}, {"mps", true}}});
  EXPECT_EQ(JudgeGpuState("verify", ranks, true, &baseline, {}).blame, GpuStateBlame::kNone);
  EXPECT_EQ(JudgeGpuState("verify", nullptr, true, &baseline, {}).blame, GpuStateBlame::kNone);
}

}  // namespace
}  // namespace cuco
