#include "supervisor/gpu_state_settle.h"

#include <gtest/gtest.h>

namespace cuco::supervisor {
namespace {

GpuReading Reading(double kernel_ms, double copy_ms) {
  GpuReading r;
  r.taken = true;
  r.kernel_ms = kernel_ms;
  r.copy_ms = copy_ms;
  return r;
}

TEST(GpuStateSettle, ASlowerCanaryIsReadAgain) {
  // Stop 90's Game of Life: the copy read 0.052 -> 0.066 ms right after the candidate ended.
  EXPECT_TRUE(ReadAgain(Reading(0.157, 0.0522), Reading(0.185, 0.0664)));
  EXPECT_TRUE(ReadAgain(Reading(0.157, 0.0522), Reading(0.180, 0.0522)));  // the kernel alone
}

TEST(GpuStateSettle, WithinTheSlackOrFasterIsKept) {
  EXPECT_FALSE(ReadAgain(Reading(0.157, 0.0522), Reading(0.160, 0.0560)));
  EXPECT_FALSE(ReadAgain(Reading(0.157, 0.0522), Reading(0.100, 0.0300)));
}

TEST(GpuStateSettle, AnUnknownOrFailedReadingAsksForNothing) {
  GpuReading failed = Reading(0.5, 0.5);
  failed.error = "canary kernel: cudaErrorIllegalAddress";
  EXPECT_FALSE(ReadAgain(Reading(0.157, 0.0522), failed));
  EXPECT_FALSE(ReadAgain(Reading(NAN, NAN), Reading(0.5, 0.5)));
  EXPECT_FALSE(ReadAgain(GpuReading{}, Reading(0.5, 0.5)));
}

}  // namespace
}  // namespace cuco::supervisor
