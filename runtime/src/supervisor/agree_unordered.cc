#include "supervisor/agree_unordered.h"

#include <cmath>
#include <cstring>

#include <cuco/program/impl/output_order.h>

namespace cuco::supervisor {
namespace {

// IEEE half bits to double.
double HalfValue(uint16_t h) {
  const int sign = h >> 15, exp = (h >> 10) & 0x1f, frac = h & 0x3ff;
  double v;
  if (exp == 0) v = std::ldexp(frac, -24);
  else if (exp == 31) v = frac ? NAN : INFINITY;
  else v = std::ldexp(1024 + frac, exp - 25);
  return sign ? -v : v;
}

std::vector<double> Values(const std::vector<unsigned char>& bytes, cuco_frozen::DType t) {
  const size_t w = cuco_frozen::dtype_bytes(t);
  std::vector<double> v;
  v.reserve(bytes.size() / w);
  for (size_t i = 0; i + w <= bytes.size(); i += w) v.push_back(HostValue(bytes.data() + i, t));
  cuco_program::ref::SortValues(&v);
  return v;
}

}  // namespace

double HostValue(const unsigned char* p, cuco_frozen::DType t) {
  switch (t) {
    case cuco_frozen::DType::kBF16: {
      uint16_t b;
      std::memcpy(&b, p, 2);
      const uint32_t f = static_cast<uint32_t>(b) << 16;
      float v;
      std::memcpy(&v, &f, 4);
      return v;
    }
    case cuco_frozen::DType::kF16: { uint16_t b; std::memcpy(&b, p, 2); return HalfValue(b); }
    case cuco_frozen::DType::kF32: { float v; std::memcpy(&v, p, 4); return v; }
    case cuco_frozen::DType::kF64: { double v; std::memcpy(&v, p, 8); return v; }
    case cuco_frozen::DType::kI32: { int32_t v; std::memcpy(&v, p, 4); return v; }
    case cuco_frozen::DType::kI64: { int64_t v; std::memcpy(&v, p, 8); return static_cast<double>(v); }
    case cuco_frozen::DType::kU8: return *p;
  }
  return *p;
}

AgreeFigures AgreeUnordered(const std::vector<unsigned char>& a, const std::vector<unsigned char>& b, cuco_frozen::DType t) {
  const std::vector<double> x = Values(a, t), y = Values(b, t);
  AgreeFigures f;
  f.elements = static_cast<int64_t>(x.size());
  if (x.size() != y.size()) {
    f.max_abs = INFINITY;
    f.mismatches = f.elements;
    return f;
  }
  for (size_t i = 0; i < x.size(); ++i) {
    if (x[i] == y[i] || (std::isnan(x[i]) && std::isnan(y[i]))) continue;
    ++f.mismatches;
    const double d = std::fabs(x[i] - y[i]);
    f.max_abs = std::isfinite(d) ? std::max(f.max_abs, d) : INFINITY;
  }
  return f;
}

}  // namespace cuco::supervisor
