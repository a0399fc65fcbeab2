// cuco/impl/random.h: the counter-based generator behind inputs and poison.
//
// Every value is a pure function of (seed, tensor id, rank, element index), so the reference can
// regenerate any input element of any rank without reading the candidate's buffers, and the harness
// can recompute any element's poison. The mixer is SplitMix64's finaliser (Steele, Lea, Flood 2014):
// element i of a stream is mix64(key + (i + 1) * golden), i.e. the SplitMix64 sequence started at
// `key`, which passes BigCrush; keys of different (seed, tensor, rank) are themselves mixed.
#pragma once

#include <cstdint>

#include <cuda_bf16.h>
#include <cuda_runtime.h>

namespace cuco_frozen {

constexpr uint64_t kGolden = 0x9E3779B97F4A7C15ull;

__host__ __device__ __forceinline__ uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// The key of one stream: tensor ids are per workload (inputs) or 0x10000 + buffer index (poison).
__host__ __device__ __forceinline__ uint64_t stream_key(uint64_t seed, uint64_t tensor, uint64_t rank) {
  return mix64(seed ^ mix64((tensor << 32) ^ rank ^ 0xC0C0C0C0DEADBEEFull) ^ mix64(rank + kGolden));
}

// 64 random bits for element `index` of the stream `key`.
__host__ __device__ __forceinline__ uint64_t element_bits(uint64_t key, uint64_t index) {
  return mix64(key + (index + 1) * kGolden);
}

// Uniform in [-1, 1), a multiple of 2^-31 rounded to float.
__host__ __device__ __forceinline__ float uniform_pm1(uint64_t key, uint64_t index) {
  const int32_t v = static_cast<int32_t>(element_bits(key, index) >> 32);
  return static_cast<float>(v) * 4.656612873077392578125e-10f;  // 2^-31, exact
}

// x rounded to bf16 (round to nearest even) and back: the value a bf16 buffer holds.
__device__ __forceinline__ float bf16_round(float x) { return __bfloat162float(__float2bfloat16_rn(x)); }

// The poison bit pattern of element `index` of an output buffer whose elements are `bytes` wide.
__host__ __device__ __forceinline__ uint64_t poison_bits(uint64_t key, uint64_t index, int bytes) {
  const uint64_t b = element_bits(key, index);
  return bytes >= 8 ? b : (b >> (64 - 8 * bytes));
}

constexpr uint64_t kPoisonTensorBase = 0x10000;

}  // namespace cuco_frozen
