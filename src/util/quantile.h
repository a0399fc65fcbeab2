// The q-quantile of sorted numbers, linear between the two nearest (the median of an even count is
// the mean of the middle two). `sorted` must not be empty.
#pragma once

#include <vector>

namespace cuco {

double Quantile(const std::vector<double>& sorted, double q);

}  // namespace cuco
