#include "supervisor/agree_unordered.h"

#include <cmath>
#include <cstring>
#include <vector>

#include <gtest/gtest.h>

#include <cuco/impl/host_value.h>

namespace cuco::supervisor {
namespace {

template <class T>
std::vector<unsigned char> Bytes(const std::vector<T>& v) {
  std::vector<unsigned char> b(v.size() * sizeof(T));
  std::memcpy(b.data(), v.data(), b.size());
  return b;
}

TEST(AgreeUnordered, TheSameValuesInAnotherOrderAgree) {
  const AgreeFigures f = AgreeUnordered(Bytes<int32_t>({7, 3, 5, 1}), Bytes<int32_t>({3, 7, 1, 5}), cuco_frozen::DType::kI32);
  EXPECT_EQ(f.elements, 4);
  EXPECT_EQ(f.mismatches, 0);
  EXPECT_EQ(f.max_abs, 0);
}

TEST(AgreeUnordered, OtherValuesDisagreeByTheirSortedDifference) {
  const AgreeFigures f =
      AgreeUnordered(Bytes<float>({0.5f, 2.0f, -1.0f}), Bytes<float>({2.0f, -1.0f, 0.75f}), cuco_frozen::DType::kF32);
  EXPECT_EQ(f.mismatches, 1);
  EXPECT_DOUBLE_EQ(f.max_abs, 0.25);
  const AgreeFigures g =
      AgreeUnordered(Bytes<float>({1.0f, NAN}), Bytes<float>({1.0f, 2.0f}), cuco_frozen::DType::kF32);
  EXPECT_TRUE(std::isinf(g.max_abs));
}

TEST(AgreeUnordered, HalvesAreDecodedByTheirBits) {
  EXPECT_EQ(cuco_frozen::HostValue(Bytes<uint16_t>({0x3c00}).data(), cuco_frozen::DType::kF16), 1.0);   // f16 1.0
  EXPECT_EQ(cuco_frozen::HostValue(Bytes<uint16_t>({0xc000}).data(), cuco_frozen::DType::kF16), -2.0);  // f16 -2.0
  EXPECT_EQ(cuco_frozen::HostValue(Bytes<uint16_t>({0x0001}).data(), cuco_frozen::DType::kF16), std::ldexp(1.0, -24));
  EXPECT_EQ(cuco_frozen::HostValue(Bytes<uint16_t>({0x3f80}).data(), cuco_frozen::DType::kBF16), 1.0);  // bf16 1.0
  EXPECT_TRUE(std::isinf(cuco_frozen::HostValue(Bytes<uint16_t>({0x7c00}).data(), cuco_frozen::DType::kF16)));
}

}  // namespace
}  // namespace cuco::supervisor
