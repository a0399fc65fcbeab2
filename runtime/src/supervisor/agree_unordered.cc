#include "supervisor/agree_unordered.h"

#include <cmath>
#include <cstring>

#include <cuco/impl/host_value.h>
#include <cuco/program/impl/output_order.h>

namespace cuco::supervisor {
namespace {

std::vector<double> Values(const std::vector<unsigned char>& bytes, cuco_frozen::DType t) {
  const size_t w = cuco_frozen::dtype_bytes(t);
  std::vector<double> v;
  v.reserve(bytes.size() / w);
  for (size_t i = 0; i + w <= bytes.size(); i += w) v.push_back(cuco_frozen::HostValue(bytes.data() + i, t));
  cuco_program::ref::SortValues(&v);
  return v;
}

}  // namespace

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
