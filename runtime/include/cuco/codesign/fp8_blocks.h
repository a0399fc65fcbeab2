// cuco/codesign/fp8_blocks.h: e4m3 quantisation of bf16 rows in blocks of 128 elements, one fp32
// scale per block (DeepSeek-V3's fp8 dispatch), and the "wire row" that carries a quantised row.
//
// Contract (the same functions serve frozen references and candidates, so both quantise bit for
// bit alike): for a block b of a row, amax = max |x| over its 128 bf16 values (as floats),
// scale = amax > 0 ? amax / 448 : 1, q = e4m3(x / scale) (round to nearest even, saturating), and
// the dequantised value is bf16(float(q) * scale).
// Wire row of H elements (H a multiple of 128): H bytes of e4m3, then H / 128 fp32 scales, padded
// to a multiple of 16 bytes (wire_row_bytes), so rows move as 16-byte vectors.
#pragma once

#include <cstdint>

#include <cuda_bf16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

namespace cuco {
namespace codesign {

constexpr int kFp8Block = 128;
constexpr float kE4m3Max = 448.0f;

__host__ __device__ constexpr int64_t wire_row_bytes(int64_t h) {
  return (h + 4 * (h / kFp8Block) + 15) / 16 * 16;
}

__host__ __device__ inline float fp8_block_scale(float amax) { return amax > 0.0f ? amax / kE4m3Max : 1.0f; }

__device__ inline uint8_t fp8_quantize(float x, float scale) {
  return static_cast<uint8_t>(__nv_cvt_float_to_fp8(x / scale, __NV_SATFINITE, __NV_E4M3));
}

__device__ inline float fp8_dequantize(uint8_t q, float scale) {
  const __half_raw h = __nv_cvt_fp8_to_halfraw(static_cast<__nv_fp8_storage_t>(q), __NV_E4M3);
  return __half2float(__half(h)) * scale;
}

// The value a quantised-then-dequantised element has as a bf16 GEMM input.
__device__ inline __nv_bfloat16 fp8_round_trip(float x, float scale) {
  return __float2bfloat16_rn(fp8_dequantize(fp8_quantize(x, scale), scale));
}

namespace detail {

// One warp per 128-element block (4 elements a lane): rows [0, rows) of x [rows][h] bf16 into
// wire rows (when wire != null) and dequantised bf16 rows (when round_trip != null).
static __global__ void __launch_bounds__(256) fp8_pack_rows_kernel(const __nv_bfloat16* x, int64_t rows, int64_t h,
                                                                   uint8_t* wire, __nv_bfloat16* round_trip) {
  const int64_t blocks_per_row = h / kFp8Block;
  const int64_t warps = static_cast<int64_t>(gridDim.x) * (blockDim.x / 32);
  const int lane = threadIdx.x & 31;
  const int64_t wire_bytes = wire_row_bytes(h);
  for (int64_t wb = blockIdx.x * static_cast<int64_t>(blockDim.x / 32) + threadIdx.x / 32; wb < rows * blocks_per_row;
       wb += warps) {
    const int64_t row = wb / blocks_per_row, b = wb % blocks_per_row;
    const __nv_bfloat16* src = x + row * h + b * kFp8Block + lane * 4;
    float v[4];
    float amax = 0.0f;
    for (int i = 0; i < 4; ++i) {
      v[i] = __bfloat162float(src[i]);
      amax = fmaxf(amax, fabsf(v[i]));
    }
    for (int o = 16; o > 0; o >>= 1) amax = fmaxf(amax, __shfl_xor_sync(0xffffffffu, amax, o));
    const float scale = fp8_block_scale(amax);
    uint32_t packed = 0;
    for (int i = 0; i < 4; ++i) {
      const uint8_t q = fp8_quantize(v[i], scale);
      packed |= static_cast<uint32_t>(q) << (8 * i);
      if (round_trip) round_trip[row * h + b * kFp8Block + lane * 4 + i] = __float2bfloat16_rn(fp8_dequantize(q, scale));
    }
    if (wire) {
      uint8_t* w = wire + row * wire_bytes;
      reinterpret_cast<uint32_t*>(w + b * kFp8Block)[lane] = packed;
      if (lane == 0) reinterpret_cast<float*>(w + h)[b] = scale;
    }
  }
}

// Wire rows back to bf16: rows [0, rows) of wire (row stride wire_row_bytes(h)) into out [rows][h].
static __global__ void __launch_bounds__(256) fp8_unpack_rows_kernel(const uint8_t* wire, int64_t rows, int64_t h,
                                                                     __nv_bfloat16* out) {
  const int64_t wire_bytes = wire_row_bytes(h);
  const int64_t quads = h / 4;  // 4 elements per thread step
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < rows * quads;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t row = i / quads, e0 = (i % quads) * 4;
    const uint8_t* w = wire + row * wire_bytes;
    const uint32_t packed = reinterpret_cast<const uint32_t*>(w)[e0 / 4];
    const float scale = reinterpret_cast<const float*>(w + h)[e0 / kFp8Block];
    for (int k = 0; k < 4; ++k)
      out[row * h + e0 + k] = __float2bfloat16_rn(fp8_dequantize(static_cast<uint8_t>(packed >> (8 * k)), scale));
  }
}

}  // namespace detail

// Quantises rows of x: wire rows into `wire` and/or the dequantised bf16 rows into `round_trip`
// (either may be null). h must be a multiple of 128.
inline cudaError_t fp8_pack_rows(cudaStream_t stream, const __nv_bfloat16* x, int64_t rows, int64_t h, void* wire,
                                 __nv_bfloat16* round_trip) {
  if (rows <= 0) return cudaSuccess;
  const int64_t warps = rows * (h / kFp8Block);
  const unsigned grid = static_cast<unsigned>(warps / 8 + 1 < 65535 ? warps / 8 + 1 : 65535);
  detail::fp8_pack_rows_kernel<<<grid, 256, 0, stream>>>(x, rows, h, static_cast<uint8_t*>(wire), round_trip);
  return cudaGetLastError();
}

// Dequantises `rows` wire rows into bf16 rows.
inline cudaError_t fp8_unpack_rows(cudaStream_t stream, const void* wire, int64_t rows, int64_t h, __nv_bfloat16* out) {
  if (rows <= 0) return cudaSuccess;
  const int64_t n = rows * (h / 4);
  const unsigned grid = static_cast<unsigned>(n / 256 + 1 < 65535 ? n / 256 + 1 : 65535);
  detail::fp8_unpack_rows_kernel<<<grid, 256, 0, stream>>>(static_cast<const uint8_t*>(wire), rows, h, out);
  return cudaGetLastError();
}

}  // namespace codesign
}  // namespace cuco
