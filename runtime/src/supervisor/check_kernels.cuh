// The supervisor's device kernels: poisoning outputs, scanning them (poison left, NaN/Inf), and
// comparing two runs bit for bit. They read and write memory the supervisor owns or maps; none of
// them is ever linked into a candidate.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>

#include <cuco/impl/random.h>
#include <cuco/workload_spec.h>

namespace cuco::supervisor {

__device__ __forceinline__ uint64_t load_bits(const void* p, int64_t i, int bytes) {
  switch (bytes) {
    case 1: return static_cast<const uint8_t*>(p)[i];
    case 2: return static_cast<const uint16_t*>(p)[i];
    case 4: return static_cast<const uint32_t*>(p)[i];
    default: return static_cast<const uint64_t*>(p)[i];
  }
}

// Decodes element bits of a floating dtype (see cuco_frozen::DType) to double.
__device__ __forceinline__ double decode(uint64_t bits, int dtype) {
  switch (dtype) {
    case static_cast<int>(cuco_frozen::DType::kBF16): return __uint_as_float(static_cast<uint32_t>(bits) << 16);
    case static_cast<int>(cuco_frozen::DType::kF16):
      return __half2float(__ushort_as_half(static_cast<unsigned short>(bits)));
    case static_cast<int>(cuco_frozen::DType::kF32): return __uint_as_float(static_cast<uint32_t>(bits));
    case static_cast<int>(cuco_frozen::DType::kF64): return __longlong_as_double(static_cast<long long>(bits));
    case static_cast<int>(cuco_frozen::DType::kI32): return static_cast<double>(static_cast<int32_t>(bits));
    case static_cast<int>(cuco_frozen::DType::kI64): return static_cast<double>(static_cast<int64_t>(bits));
    default: return static_cast<double>(bits);
  }
}

// The poison of element i: random bits, made a NaN (random sign and payload) for floating dtypes.
// A floating output that passes is finite, so it never equals its poison: an element still holding
// it was not written. The 2-byte NaN (0x7F80 set, low 7 bits not all zero) is one for bf16 and f16
// alike. Integer outputs keep plain random bits: an honest one matches by chance with probability
// 2^-(8 bytes) per element (ScanFigures::poison_expected).
__host__ __device__ __forceinline__ uint64_t poison_pattern(uint64_t key, uint64_t i, int bytes, int is_float) {
  uint64_t b = cuco_frozen::poison_bits(key, i, bytes);
  if (!is_float) return b;
  uint64_t exponent, mantissa;
  switch (bytes) {
    case 2: exponent = 0x7F80ull, mantissa = 0x007Full; break;
    case 4: exponent = 0x7F800000ull, mantissa = 0x007FFFFFull; break;
    default: exponent = 0x7FF0000000000000ull, mantissa = 0x000FFFFFFFFFFFFFull; break;
  }
  b |= exponent;
  return (b & mantissa) != 0 ? b : b | 1;
}

__global__ void poison_kernel(void* p, int64_t n, int bytes, int is_float, uint64_t key) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const uint64_t b = poison_pattern(key, static_cast<uint64_t>(i), bytes, is_float);
    switch (bytes) {
      case 1: static_cast<uint8_t*>(p)[i] = static_cast<uint8_t>(b); break;
      case 2: static_cast<uint16_t*>(p)[i] = static_cast<uint16_t>(b); break;
      case 4: static_cast<uint32_t*>(p)[i] = static_cast<uint32_t>(b); break;
      default: static_cast<uint64_t*>(p)[i] = b; break;
    }
  }
}

// counters[0] += elements still equal to their poison; counters[1] += other non-finite elements (the
// poison is a NaN: counted once, as poison, where the program itself leaves elements alone).
__global__ void scan_kernel(const void* p, int64_t n, int bytes, int dtype, int is_float, uint64_t key,
                            unsigned long long* counters) {
  unsigned long long poison = 0, nonfinite = 0;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const uint64_t b = load_bits(p, i, bytes);
    const bool poisoned = b == poison_pattern(key, static_cast<uint64_t>(i), bytes, is_float);
    poison += poisoned;
    if (is_float && !poisoned) nonfinite += !isfinite(decode(b, dtype));
  }
  for (int o = 16; o > 0; o >>= 1) {
    poison += __shfl_down_sync(0xffffffffu, poison, o);
    nonfinite += __shfl_down_sync(0xffffffffu, nonfinite, o);
  }
  if ((threadIdx.x & 31) == 0) {
    if (poison) atomicAdd(&counters[0], poison);
    if (nonfinite) atomicAdd(&counters[1], nonfinite);
  }
}

// out[0] = max |a - b| as the bits of a non-negative double (+inf when either side is non-finite
// and the bits differ); out[1] += elements whose bits differ.
__global__ void agree_kernel(const void* a, const void* b, int64_t n, int bytes, int dtype,
                             unsigned long long* out) {
  double m = 0;
  unsigned long long diff = 0;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const uint64_t x = load_bits(a, i, bytes), y = load_bits(b, i, bytes);
    if (x == y) continue;
    ++diff;
    const double d = fabs(decode(x, dtype) - decode(y, dtype));
    m = isfinite(d) ? fmax(m, d) : HUGE_VAL;
  }
  for (int o = 16; o > 0; o >>= 1) {
    m = fmax(m, __shfl_down_sync(0xffffffffu, m, o));
    diff += __shfl_down_sync(0xffffffffu, diff, o);
  }
  if ((threadIdx.x & 31) == 0) {
    if (m > 0) atomicMax(&out[0], static_cast<unsigned long long>(__double_as_longlong(m)));
    if (diff) atomicAdd(&out[1], diff);
  }
}

}  // namespace cuco::supervisor
