// A header's device function calling a device builtin that clang's host-only parse, without CUDA's
// device headers, does not declare: device code, in a header as in the main file, is not analysed.
#pragma once

__device__ inline float warp_sum(float v) {
  for (int lane = 16; lane > 0; lane /= 2) v += __shfl_xor_sync(0xffffffffu, v, lane);
  return v;
}
