// Wall-clock time as stored in records (unix milliseconds).
#pragma once

#include <cstdint>

namespace cuco {

int64_t NowMs();

}  // namespace cuco
