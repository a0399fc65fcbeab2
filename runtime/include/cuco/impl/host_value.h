// cuco/impl/host_value.h: one output element, as bytes in host memory, read as a double: what the
// supervisor's unordered agreement (runtime/src/supervisor/agree_unordered.h) and a program's
// reference (cuco/program/reference.h) compare. Halves and bfloat16s are decoded by their bits, so
// no CUDA conversion is needed. Plain C++.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#include <cuco/workload_spec.h>

namespace cuco_frozen {

// IEEE half bits as a double.
inline double HalfBitsValue(uint16_t h) {
  const int sign = h >> 15, exp = (h >> 10) & 0x1f, frac = h & 0x3ff;
  double v;
  if (exp == 0) v = std::ldexp(frac, -24);
  else if (exp == 31) v = frac ? NAN : INFINITY;
  else v = std::ldexp(1024 + frac, exp - 25);
  return sign ? -v : v;
}

// The element of type `t` at `p`.
inline double HostValue(const unsigned char* p, DType t) {
  switch (t) {
    case DType::kBF16: {
      uint16_t b;
      std::memcpy(&b, p, 2);
      const uint32_t f = static_cast<uint32_t>(b) << 16;
      float v;
      std::memcpy(&v, &f, 4);
      return v;
    }
    case DType::kF16: { uint16_t b; std::memcpy(&b, p, 2); return HalfBitsValue(b); }
    case DType::kF32: { float v; std::memcpy(&v, p, 4); return v; }
    case DType::kF64: { double v; std::memcpy(&v, p, 8); return v; }
    case DType::kI32: { int32_t v; std::memcpy(&v, p, 4); return v; }
    case DType::kI64: { int64_t v; std::memcpy(&v, p, 8); return static_cast<double>(v); }
    case DType::kU8: return *p;
  }
  return *p;
}

}  // namespace cuco_frozen
