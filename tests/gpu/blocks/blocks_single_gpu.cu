// GPU tests of the co-design blocks that need only one GPU (runtime/include/cuco/codesign/):
// the transfer kernel (every issuer x scope, aligned and unaligned sizes, three epochs so the
// arrival counters roll over), flag waits from another stream (spin and cuStreamWaitValue32),
// copy-engine copies with signals, signal_scoped at thread / warp / CTA / grid scope, and the
// cuBLASLt GEMM block (chunks, strided batches, fused accumulate) against a simple reference.
// Every test draws fresh random data (seeded from the clock) and checks every element.
// Then it times the GEMM shapes the two GEMM workloads' generation 0 uses, for the record.
//
// Build and run (GPU machine): tests/gpu/run_blocks_single_gpu.sh
#include <cuco/harness.h>
#include <cuco/codesign.h>

#include <cuda_bf16.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "candidate/context_state.h"  // a RankContext for the stream memory operations
#include "gpu_check.h"

namespace cd = cuco::codesign;

namespace {

// The harness's context, for ctx.write_value32 / ctx.wait_value32 (WaitMode::kStreamWaitValue):
// the candidate runtime's own RankContext over a state with no communicator.
cuco::RankContext& test_ctx() {
  static cuco_harness::ContextState state;
  static cuco::RankContext ctx(&state, 0, 1, 0, 1, 0, 0, nullptr, nullptr);
  return ctx;
}

__device__ uint64_t mix(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  return x ^ (x >> 33);
}

__global__ void fill_bytes(unsigned char* p, size_t n, uint64_t seed) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n; i += static_cast<size_t>(gridDim.x) * blockDim.x)
    p[i] = static_cast<unsigned char>(mix(seed + i));
}

__global__ void fill_bf16(__nv_bfloat16* p, size_t n, uint64_t seed, float scale) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n; i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    const float u = static_cast<float>(mix(seed + i) >> 40) / static_cast<float>(1ULL << 24) * 2.0f - 1.0f;
    p[i] = __float2bfloat16_rn(u * scale);
  }
}

__global__ void count_diff(const unsigned char* a, const unsigned char* b, size_t n, unsigned long long* diff) {
  unsigned long long d = 0;
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n; i += static_cast<size_t>(gridDim.x) * blockDim.x)
    d += a[i] != b[i];
  if (d) atomicAdd(diff, d);
}

// Reference D = A B (+ C) in fp32 from bf16, row-major; one thread per output element.
__global__ void ref_gemm(const __nv_bfloat16* A, const __nv_bfloat16* B, const __nv_bfloat16* C, float* D, int64_t m,
                         int64_t n, int64_t k) {
  const int64_t i = blockIdx.y, j = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (i >= m || j >= n) return;
  float acc = 0;
  for (int64_t t = 0; t < k; ++t) acc += __bfloat162float(A[i * k + t]) * __bfloat162float(B[t * n + j]);
  if (C) acc += __bfloat162float(C[i * n + j]);
  D[i * n + j] = acc;
}

__global__ void gemm_error(const __nv_bfloat16* got, const float* ref, size_t n, double* sums) {
  double d2 = 0, r2 = 0;
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n; i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    const double g = __bfloat162float(got[i]), r = ref[i];
    d2 += isfinite(g) ? (g - r) * (g - r) : 1e30;
    r2 += r * r;
  }
  atomicAdd(&sums[0], d2);
  atomicAdd(&sums[1], r2);
}

uint64_t fresh_seed() {
  return static_cast<uint64_t>(std::chrono::high_resolution_clock::now().time_since_epoch().count()) * 0x9E3779B97F4A7C15ULL;
}

unsigned long long diff_bytes(const void* a, const void* b, size_t n) {
  unsigned long long* d = nullptr;
  REQUIRE_CUDA(cudaMalloc(&d, sizeof *d));
  REQUIRE_CUDA(cudaMemset(d, 0, sizeof *d));
  count_diff<<<256, 256>>>(static_cast<const unsigned char*>(a), static_cast<const unsigned char*>(b), n, d);
  unsigned long long h = 0;
  REQUIRE_CUDA(cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost));
  REQUIRE_CUDA(cudaFree(d));
  return h;
}

// Transfer kernel: 3 transfers (the first waits for a flag another stream sets), every issuer and
// scope, 3 epochs; a third stream waits for the signals (wait mode) and copies dst out.
void test_transfers(cd::WaitMode mode) {
  const size_t sizes[3] = {(1u << 20) + 48, 1000003, 4096 * 3};
  size_t total = 0;
  for (size_t s : sizes) total += s;
  unsigned char *src, *dst, *out;
  uint32_t *flags, *arrivals, *gate;
  REQUIRE_CUDA(cudaMalloc(&src, total));
  REQUIRE_CUDA(cudaMalloc(&dst, total));
  REQUIRE_CUDA(cudaMalloc(&out, total));
  REQUIRE_CUDA(cudaMalloc(&flags, 3 * 64 * sizeof(uint32_t)));
  REQUIRE_CUDA(cudaMalloc(&arrivals, 3 * sizeof(uint32_t)));
  REQUIRE_CUDA(cudaMalloc(&gate, sizeof(uint32_t)));
  cudaStream_t comm, other, consumer;
  REQUIRE_CUDA(cudaStreamCreateWithFlags(&comm, cudaStreamNonBlocking));
  REQUIRE_CUDA(cudaStreamCreateWithFlags(&other, cudaStreamNonBlocking));
  REQUIRE_CUDA(cudaStreamCreateWithFlags(&consumer, cudaStreamNonBlocking));
  const cd::Issuer issuers[3] = {cd::Issuer::kThread, cd::Issuer::kWarp, cd::Issuer::kCta};
  const char* iname[3] = {"thread", "warp", "cta"};
  const cd::SyncScope scopes[2] = {cd::SyncScope::kGrid, cd::SyncScope::kCta};
  const char* sname[2] = {"grid", "cta"};
  for (int ii = 0; ii < 3; ++ii)
    for (int si = 0; si < 2; ++si)
      for (int ctas : {1, 5, 16}) {
        REQUIRE_CUDA(cudaMemset(flags, 0, 3 * 64 * sizeof(uint32_t)));
        REQUIRE_CUDA(cudaMemset(arrivals, 0, 3 * sizeof(uint32_t)));
        REQUIRE_CUDA(cudaMemset(gate, 0, sizeof(uint32_t)));
        bool ok = true;
        std::string detail;
        for (uint32_t epoch = 1; epoch <= 3; ++epoch) {
          fill_bytes<<<256, 256>>>(src, total, fresh_seed());
          REQUIRE_CUDA(cudaMemset(dst, 0xA5, total));
          REQUIRE_CUDA(cudaMemset(out, 0x5A, total));
          REQUIRE_CUDA(cudaDeviceSynchronize());
          cd::TransferList list;
          list.launch_index = epoch;
          size_t off = 0;
          for (int t = 0; t < 3; ++t) {
            cd::Transfer x;
            x.src = src + off;
            x.dst = dst + off;
            x.bytes = sizes[t];
            if (t == 0) {
              x.wait_flag = gate;
              x.wait_target = epoch;
            }
            x.signal_flag = flags + t * 64;
            x.signal_value = epoch;
            x.arrivals = arrivals + t;
            list.add(x);
            off += sizes[t];
          }
          REQUIRE_OK(cd::launch_transfers(comm, list, issuers[ii], scopes[si], ctas, 256));
          // The gate opens from another stream, after the kernel has started waiting.
          REQUIRE_OK(cd::signal_flag(test_ctx(), other, gate, epoch, mode));
          const int units = si == 0 ? 1 : ctas;
          for (int t = 0; t < 3; ++t) REQUIRE_OK(cd::wait_flags(test_ctx(), consumer, flags + t * 64, units, epoch, mode));
          REQUIRE_CUDA(cudaMemcpyAsync(out, dst, total, cudaMemcpyDeviceToDevice, consumer));
          REQUIRE_CUDA(cudaDeviceSynchronize());
          const unsigned long long d = diff_bytes(src, out, total);
          if (d != 0) {
            ok = false;
            detail = "epoch " + std::to_string(epoch) + ": " + std::to_string(d) + " bytes differ";
          }
        }
        report(std::string("transfer issuer=") + iname[ii] + " scope=" + sname[si] + " ctas=" + std::to_string(ctas) +
                   (mode == cd::WaitMode::kSpinKernel ? " wait=spin" : " wait=wait_value"),
               ok, detail);
      }
  cudaStreamDestroy(comm);
  cudaStreamDestroy(other);
  cudaStreamDestroy(consumer);
  cudaFree(src);
  cudaFree(dst);
  cudaFree(out);
  cudaFree(flags);
  cudaFree(arrivals);
  cudaFree(gate);
}

// Transfer offsets: src and dst at every pair of misalignments modulo 16 (the same: head and tail
// bytewise around 16-byte vectors; different: all bytewise), each issuer, 5 CTAs; every byte checked
// and the bytes around the destination untouched.
void test_transfer_offsets() {
  const size_t n = (1u << 20) + 7, pad = 64;
  unsigned char *src, *dst, *ref;
  REQUIRE_CUDA(cudaMalloc(&src, n + pad));
  REQUIRE_CUDA(cudaMalloc(&dst, n + pad));
  REQUIRE_CUDA(cudaMalloc(&ref, n + pad));
  const cd::Issuer issuers[3] = {cd::Issuer::kThread, cd::Issuer::kWarp, cd::Issuer::kCta};
  bool ok = true;
  std::string detail;
  for (int so : {0, 1, 3, 8, 15})
    for (int dof : {0, 1, 3, 8, 15})
      for (cd::Issuer is : issuers) {
        fill_bytes<<<256, 256>>>(src, n + pad, fresh_seed());
        REQUIRE_CUDA(cudaMemset(dst, 0xA5, n + pad));
        REQUIRE_CUDA(cudaMemset(ref, 0xA5, n + pad));
        REQUIRE_CUDA(cudaMemcpy(ref + dof, src + so, n, cudaMemcpyDeviceToDevice));
        cd::TransferList list;
        cd::Transfer x;
        x.src = src + so;
        x.dst = dst + dof;
        x.bytes = n;
        list.add(x);
        REQUIRE_OK(cd::launch_transfers(nullptr, list, is, cd::SyncScope::kGrid, 5, 256));
        REQUIRE_CUDA(cudaDeviceSynchronize());
        const unsigned long long d = diff_bytes(dst, ref, n + pad);
        if (d != 0 && ok) {
          ok = false;
          detail = "src+" + std::to_string(so) + " dst+" + std::to_string(dof) + " issuer " +
                   std::to_string(static_cast<int>(is)) + ": " + std::to_string(d) + " bytes differ";
        }
      }
  report("transfer offsets (src and dst misaligned by 0/1/3/8/15 bytes, every issuer)", ok, detail);
  cudaFree(src);
  cudaFree(dst);
  cudaFree(ref);
}

// fp8_blocks.h: wire rows unpacked equal the packer's own round trip bit for bit, every block's
// scale is its amax / 448, and every element is within half an e4m3 step (2^-4 relative) of x.
void test_fp8_rows() {
  const int64_t rows = 333, h = 7168, wire = cd::wire_row_bytes(h);
  std::vector<__nv_bfloat16> hx(static_cast<size_t>(rows * h));
  uint64_t z = fresh_seed();
  for (auto& v : hx) {
    z = z * 6364136223846793005ULL + 1442695040888963407ULL;
    const double u = static_cast<double>(z >> 11) / 9007199254740992.0;  // [0, 1)
    v = __float2bfloat16(static_cast<float>((2 * u - 1) * ((z >> 7) % 5 == 0 ? 40.0 : 1.0)));
  }
  for (int64_t i = 0; i < h; ++i) hx[static_cast<size_t>(5 * h + i)] = __float2bfloat16(0.0f);  // an all-zero row
  __nv_bfloat16 *x, *rt, *back;
  uint8_t* w;
  REQUIRE_CUDA(cudaMalloc(&x, hx.size() * 2));
  REQUIRE_CUDA(cudaMalloc(&rt, hx.size() * 2));
  REQUIRE_CUDA(cudaMalloc(&back, hx.size() * 2));
  REQUIRE_CUDA(cudaMalloc(&w, static_cast<size_t>(rows * wire)));
  REQUIRE_CUDA(cudaMemcpy(x, hx.data(), hx.size() * 2, cudaMemcpyHostToDevice));
  REQUIRE_CUDA(cd::fp8_pack_rows(nullptr, x, rows, h, w, rt));
  REQUIRE_CUDA(cd::fp8_unpack_rows(nullptr, w, rows, h, back));
  REQUIRE_CUDA(cudaDeviceSynchronize());
  std::vector<__nv_bfloat16> hrt(hx.size()), hback(hx.size());
  std::vector<uint8_t> hw(static_cast<size_t>(rows * wire));
  REQUIRE_CUDA(cudaMemcpy(hrt.data(), rt, hx.size() * 2, cudaMemcpyDeviceToHost));
  REQUIRE_CUDA(cudaMemcpy(hback.data(), back, hx.size() * 2, cudaMemcpyDeviceToHost));
  REQUIRE_CUDA(cudaMemcpy(hw.data(), w, hw.size(), cudaMemcpyDeviceToHost));
  bool ok = true;
  std::string detail;
  for (int64_t r = 0; r < rows && ok; ++r)
    for (int64_t b = 0; b < h / cd::kFp8Block && ok; ++b) {
      float amax = 0;
      for (int j = 0; j < cd::kFp8Block; ++j)
        amax = std::max(amax, std::fabs(__bfloat162float(hx[static_cast<size_t>(r * h + b * cd::kFp8Block + j)])));
      float scale = 0;
      std::memcpy(&scale, &hw[static_cast<size_t>(r * wire + h + 4 * b)], 4);
      if (scale != cd::fp8_block_scale(amax)) {
        ok = false;
        detail = "row " + std::to_string(r) + " block " + std::to_string(b) + ": scale " + std::to_string(scale);
      }
      for (int j = 0; j < cd::kFp8Block && ok; ++j) {
        const size_t i = static_cast<size_t>(r * h + b * cd::kFp8Block + j);
        const float xv = __bfloat162float(hx[i]), rv = __bfloat162float(hrt[i]);
        if (std::memcmp(&hrt[i], &hback[i], 2) != 0 || std::fabs(rv - xv) > std::fabs(xv) * 0.0625f + 1e-30f + scale * 0.001f) {
          ok = false;
          detail = "element " + std::to_string(i) + ": x " + std::to_string(xv) + ", round trip " + std::to_string(rv) +
                   ", unpacked " + std::to_string(__bfloat162float(hback[i]));
        }
      }
    }
  report("fp8 wire rows (pack, unpack, round trip, scales; 333 x 7168)", ok, detail);
  cudaFree(x);
  cudaFree(rt);
  cudaFree(back);
  cudaFree(w);
}

void test_copy_engine(cd::WaitMode mode) {
  const size_t n = (64u << 20) + 16;
  unsigned char *src, *dst, *out;
  uint32_t* flag;
  REQUIRE_CUDA(cudaMalloc(&src, n));
  REQUIRE_CUDA(cudaMalloc(&dst, n));
  REQUIRE_CUDA(cudaMalloc(&out, n));
  REQUIRE_CUDA(cudaMalloc(&flag, sizeof(uint32_t)));
  REQUIRE_CUDA(cudaMemset(flag, 0, sizeof(uint32_t)));
  cudaStream_t a, b;
  REQUIRE_CUDA(cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking));
  REQUIRE_CUDA(cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking));
  bool ok = true;
  for (uint32_t epoch = 1; epoch <= 3; ++epoch) {
    fill_bytes<<<512, 256>>>(src, n, fresh_seed());
    REQUIRE_CUDA(cudaMemset(out, 0, n));
    REQUIRE_CUDA(cudaDeviceSynchronize());
    REQUIRE_OK(cd::wait_flag(test_ctx(), b, flag, epoch, mode));  // enqueued before the copy exists
    REQUIRE_CUDA(cudaMemcpyAsync(out, dst, n, cudaMemcpyDeviceToDevice, b));
    REQUIRE_OK(cd::ce_copy_signal(test_ctx(), a, dst, src, n, flag, epoch, mode));
    REQUIRE_CUDA(cudaDeviceSynchronize());
    ok &= diff_bytes(src, out, n) == 0;
  }
  report(std::string("copy engine + flag, wait=") + (mode == cd::WaitMode::kSpinKernel ? "spin" : "wait_value"), ok);
  cudaStreamDestroy(a);
  cudaStreamDestroy(b);
  cudaFree(src);
  cudaFree(dst);
  cudaFree(out);
  cudaFree(flag);
}

// Each unit of scope S writes its slice, then signals; a consumer kernel waits for every unit's
// flag and copies everything.
template <cd::SyncScope S>
__global__ void produce(const uint32_t* src, uint32_t* dst, size_t n, uint32_t* flags, uint32_t epoch, uint32_t* arrivals) {
  const size_t threads = static_cast<size_t>(gridDim.x) * blockDim.x;
  const size_t t = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  for (size_t i = t; i < n; i += threads) dst[i] = src[i];
  size_t unit = 0;
  if constexpr (S == cd::SyncScope::kThread) unit = t;
  if constexpr (S == cd::SyncScope::kWarp) unit = t / 32;
  if constexpr (S == cd::SyncScope::kCta) unit = blockIdx.x;
  cd::signal_scoped<S>(flags + unit, epoch, arrivals, epoch);
}

__global__ void consume(const uint32_t* dst, uint32_t* out, size_t n, const uint32_t* flags, int units, uint32_t epoch) {
  if (threadIdx.x == 0)
    for (int u = 0; u < units; ++u) cd::flag_wait(flags + u, epoch);
  __syncthreads();
  for (size_t i = threadIdx.x; i < n; i += blockDim.x) out[i] = dst[i];
}

template <cd::SyncScope S>
void test_scope(const char* name) {
  const size_t n = 1 << 20;
  const int ctas = 8, threads = 256;
  const int units = S == cd::SyncScope::kThread ? ctas * threads : S == cd::SyncScope::kWarp ? ctas * threads / 32
                    : S == cd::SyncScope::kCta                   ? ctas
                                                                 : 1;
  uint32_t *src, *dst, *out, *flags, *arrivals;
  REQUIRE_CUDA(cudaMalloc(&src, n * 4));
  REQUIRE_CUDA(cudaMalloc(&dst, n * 4));
  REQUIRE_CUDA(cudaMalloc(&out, n * 4));
  REQUIRE_CUDA(cudaMalloc(&flags, units * 4));
  REQUIRE_CUDA(cudaMalloc(&arrivals, 4));
  REQUIRE_CUDA(cudaMemset(flags, 0, units * 4));
  REQUIRE_CUDA(cudaMemset(arrivals, 0, 4));
  cudaStream_t a, b;
  REQUIRE_CUDA(cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking));
  REQUIRE_CUDA(cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking));
  bool ok = true;
  for (uint32_t epoch = 1; epoch <= 3; ++epoch) {
    fill_bytes<<<256, 256>>>(reinterpret_cast<unsigned char*>(src), n * 4, fresh_seed());
    REQUIRE_CUDA(cudaMemset(dst, 0, n * 4));
    REQUIRE_CUDA(cudaMemset(out, 0, n * 4));
    REQUIRE_CUDA(cudaDeviceSynchronize());
    consume<<<1, 1024, 0, b>>>(dst, out, n, flags, units, epoch);  // starts first and waits
    produce<S><<<ctas, threads, 0, a>>>(src, dst, n, flags, epoch, arrivals);
    REQUIRE_CUDA(cudaDeviceSynchronize());
    ok &= diff_bytes(src, out, n * 4) == 0;
  }
  report(std::string("signal_scoped ") + name, ok);
  cudaStreamDestroy(a);
  cudaStreamDestroy(b);
  cudaFree(src);
  cudaFree(dst);
  cudaFree(out);
  cudaFree(flags);
  cudaFree(arrivals);
}

// GEMM block vs the reference: 4 chunks of m/4 rows, fused C on the last two; a strided batch.
void test_gemm(cublasLtHandle_t h) {
  const int64_t m = 512, n = 768, k = 1024;
  __nv_bfloat16 *A, *B, *C, *D;
  float* R;
  double* sums;
  REQUIRE_CUDA(cudaMalloc(&A, m * k * 2));
  REQUIRE_CUDA(cudaMalloc(&B, k * n * 2));
  REQUIRE_CUDA(cudaMalloc(&C, m * n * 2));
  REQUIRE_CUDA(cudaMalloc(&D, m * n * 2));
  REQUIRE_CUDA(cudaMalloc(&R, m * n * 4));
  REQUIRE_CUDA(cudaMalloc(&sums, 16));
  fill_bf16<<<256, 256>>>(A, m * k, fresh_seed(), 1.0f);
  fill_bf16<<<256, 256>>>(B, k * n, fresh_seed(), std::sqrt(3.0f / k));
  fill_bf16<<<256, 256>>>(C, m * n, fresh_seed(), 1.0f);
  REQUIRE_CUDA(cudaMemset(D, 0xFF, m * n * 2));
  cd::RowMajorGemm g;
  REQUIRE_OK(g.init(h, n, k, k, n, n, 32 << 20));
  const int64_t rows = m / 4;
  for (int c = 0; c < 4; ++c)
    REQUIRE_OK(g.run(0, A + c * rows * k, B, D + c * rows * n, rows, c >= 2 ? C + c * rows * n : nullptr));
  // Reference: chunks 0-1 without C, 2-3 with C.
  ref_gemm<<<dim3((n + 255) / 256, m / 2), 256>>>(A, B, nullptr, R, m / 2, n, k);
  ref_gemm<<<dim3((n + 255) / 256, m / 2), 256>>>(A + (m / 2) * k, B, C + (m / 2) * n, R + (m / 2) * n, m / 2, n, k);
  REQUIRE_CUDA(cudaMemset(sums, 0, 16));
  gemm_error<<<256, 256>>>(D, R, m * n, sums);
  double hs[2];
  REQUIRE_CUDA(cudaMemcpy(hs, sums, 16, cudaMemcpyDeviceToHost));
  double rel = std::sqrt(hs[0] / hs[1]);
  report("gemm chunks + fused C", rel < 0.005, "rel_l2 " + std::to_string(rel));
  // Strided batch: 2 blocks of m/2 rows in one call, no C.
  REQUIRE_CUDA(cudaMemset(D, 0xFF, m * n * 2));
  REQUIRE_OK(g.run(0, A, B, D, m / 2, nullptr, 2, (m / 2) * k, (m / 2) * n));
  ref_gemm<<<dim3((n + 255) / 256, m), 256>>>(A, B, nullptr, R, m, n, k);
  REQUIRE_CUDA(cudaMemset(sums, 0, 16));
  gemm_error<<<256, 256>>>(D, R, m * n, sums);
  REQUIRE_CUDA(cudaMemcpy(hs, sums, 16, cudaMemcpyDeviceToHost));
  rel = std::sqrt(hs[0] / hs[1]);
  report("gemm strided batch", rel < 0.005, "rel_l2 " + std::to_string(rel));
  g.destroy();
  // Timed algorithm choice (set_algorithm_search): prepare() picks among 8; the plan it keeps
  // must compute the same product (chunks 0-1 without C, 2-3 with C, as above).
  cd::RowMajorGemm t;
  REQUIRE_OK(t.init(h, n, k, k, n, n, 32 << 20));
  t.set_algorithm_search(8);
  REQUIRE_OK(t.prepare(rows, false));
  REQUIRE_OK(t.prepare(rows, true));
  REQUIRE_CUDA(cudaMemset(D, 0xFF, m * n * 2));
  for (int c = 0; c < 4; ++c)
    REQUIRE_OK(t.run(0, A + c * rows * k, B, D + c * rows * n, rows, c >= 2 ? C + c * rows * n : nullptr));
  ref_gemm<<<dim3((n + 255) / 256, m / 2), 256>>>(A, B, nullptr, R, m / 2, n, k);
  ref_gemm<<<dim3((n + 255) / 256, m / 2), 256>>>(A + (m / 2) * k, B, C + (m / 2) * n, R + (m / 2) * n, m / 2, n, k);
  REQUIRE_CUDA(cudaMemset(sums, 0, 16));
  gemm_error<<<256, 256>>>(D, R, m * n, sums);
  REQUIRE_CUDA(cudaMemcpy(hs, sums, 16, cudaMemcpyDeviceToHost));
  rel = std::sqrt(hs[0] / hs[1]);
  report("gemm timed algorithm choice", rel < 0.005 && t.chosen_algorithm(rows, false) >= 0 && t.chosen_algorithm(rows, true) >= 0,
         "rel_l2 " + std::to_string(rel) + ", chose algorithms " + std::to_string(t.chosen_algorithm(rows, false)) + " and " +
             std::to_string(t.chosen_algorithm(rows, true)));
  t.destroy();
  cudaFree(A);
  cudaFree(B);
  cudaFree(C);
  cudaFree(D);
  cudaFree(R);
  cudaFree(sums);
}

// One timed GEMM configuration: a product of m_total x n x k cut into `chunks` row chunks (each
// chunk with the previous one as fused C when fused_c), planned for sm_target SMs (0: all),
// `algos` cuBLASLt algorithms timed per shape at prepare (1: the heuristic's first).
struct GemmCase {
  const char* what;
  int64_t m, n, k;
  int chunks;
  bool c;
  int sm, algos;
};

// Times every case (CUDA events around one whole product) in 3 interleaved rounds of 10 after 3
// warm-ups each, so that clock and temperature drift spreads over all cases alike; returns each
// case's median of its 30.
std::vector<double> time_gemms(cublasLtHandle_t h, const std::vector<GemmCase>& cases) {
  struct Live {
    cd::RowMajorGemm g;
    __nv_bfloat16 *A = nullptr, *B = nullptr, *D = nullptr;
    std::vector<float> t;
  };
  std::vector<Live> live(cases.size());
  for (size_t i = 0; i < cases.size(); ++i) {
    const GemmCase& s = cases[i];
    Live& l = live[i];
    REQUIRE_CUDA(cudaMalloc(&l.A, s.m * s.k * 2));
    REQUIRE_CUDA(cudaMalloc(&l.B, s.k * s.n * 2));
    REQUIRE_CUDA(cudaMalloc(&l.D, s.m * s.n * 2));
    fill_bf16<<<1024, 256>>>(l.A, s.m * s.k, fresh_seed(), 1.0f);
    fill_bf16<<<1024, 256>>>(l.B, s.k * s.n, fresh_seed(), std::sqrt(3.0f / s.k));
    REQUIRE_OK(l.g.init(h, s.n, s.k, s.k, s.n, s.n, 32 << 20, s.sm));
    l.g.set_algorithm_search(s.algos);
    REQUIRE_OK(l.g.prepare(s.m / s.chunks, false));
    if (s.c && s.chunks > 1) REQUIRE_OK(l.g.prepare(s.m / s.chunks, true));
  }
  auto once = [&](size_t i) {
    const GemmCase& s = cases[i];
    Live& l = live[i];
    const int64_t rows = s.m / s.chunks;
    for (int c = 0; c < s.chunks; ++c)
      REQUIRE_OK(l.g.run(0, l.A + c * rows * s.k, l.B, l.D + c * rows * s.n, rows,
                         s.c && c > 0 ? l.D + (c - 1) * rows * s.n : nullptr));
  };
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  for (int round = 0; round < 3; ++round)
    for (size_t i = 0; i < cases.size(); ++i) {
      for (int w = 0; w < 3; ++w) once(i);
      for (int r = 0; r < 10; ++r) {
        cudaEventRecord(e0);
        once(i);
        cudaEventRecord(e1);
        cudaEventSynchronize(e1);
        float ms = 0;
        cudaEventElapsedTime(&ms, e0, e1);
        live[i].t.push_back(ms);
      }
    }
  std::vector<double> median;
  for (Live& l : live) {
    std::sort(l.t.begin(), l.t.end());
    median.push_back(l.t[l.t.size() / 2]);
    l.g.destroy();
    cudaFree(l.A);
    cudaFree(l.B);
    cudaFree(l.D);
  }
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  return median;
}

}  // namespace

int main() {
  int dev = 0, sms = 0;
  REQUIRE_CUDA(cudaSetDevice(dev));
  REQUIRE_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  cudaDeviceProp prop{};
  REQUIRE_CUDA(cudaGetDeviceProperties(&prop, dev));
  std::setvbuf(stdout, nullptr, _IONBF, 0);
  std::printf("device: %s, %d SMs\n", prop.name, sms);
  REQUIRE_OK(cd::preload_transfer_kernels());  // flags.h: lazy loading
  REQUIRE_OK(cd::preload_kernel(consume));
  REQUIRE_OK(cd::preload_kernel(produce<cd::SyncScope::kThread>));
  REQUIRE_OK(cd::preload_kernel(produce<cd::SyncScope::kWarp>));
  REQUIRE_OK(cd::preload_kernel(produce<cd::SyncScope::kCta>));
  REQUIRE_OK(cd::preload_kernel(produce<cd::SyncScope::kGrid>));
  test_transfers(cd::WaitMode::kSpinKernel);
  test_transfers(cd::WaitMode::kStreamWaitValue);
  test_transfer_offsets();
  test_fp8_rows();
  test_copy_engine(cd::WaitMode::kSpinKernel);
  test_copy_engine(cd::WaitMode::kStreamWaitValue);
  test_scope<cd::SyncScope::kThread>("thread");
  test_scope<cd::SyncScope::kWarp>("warp");
  test_scope<cd::SyncScope::kCta>("cta");
  test_scope<cd::SyncScope::kGrid>("grid");
  cublasLtHandle_t h;
  if (cublasLtCreate(&h) != CUBLAS_STATUS_SUCCESS) return 2;
  test_gemm(h);
  std::printf("\nGEMM block timings (median ms of 30, cases interleaved), %s:\n", prop.name);
  std::printf("| shape (rows x N x K) | chunks | fused C | SM target | algorithms timed | ms |\n|---|---|---|---|---|---|\n");
  const std::vector<GemmCase> cases = {
      {"RS W=2 partial, whole", 8192, 8192, 4096, 1, false, 0, 1},
      {"RS W=2 partial, whole", 8192, 8192, 4096, 1, false, 0, 8},
      {"RS W=2 ring, 2 blocks x 4 chunks", 8192, 8192, 4096, 8, true, 0, 1},
      {"RS W=2 ring, 2 blocks x 4 chunks", 8192, 8192, 4096, 8, true, 0, 8},
      {"RS W=2 ring, 2 blocks x 2 chunks", 8192, 8192, 4096, 4, true, 0, 8},
      {"RS W=2 ring, 2 blocks x 1 chunk", 8192, 8192, 4096, 2, true, 0, 8},
      {"RS W=2 ring, 2 blocks x 8 chunks", 8192, 8192, 4096, 16, true, 0, 8},
      {"RS W=2 ring, 4 chunks, SM target -8", 8192, 8192, 4096, 8, true, sms - 8, 1},
      {"AG W=2 full GEMM", 8192, 8192, 8192, 1, false, 0, 1},
      {"AG W=2 full GEMM", 8192, 8192, 8192, 1, false, 0, 8},
      {"AG W=2 own half + 1 chunk (2 x 4096 rows)", 8192, 8192, 8192, 2, false, 0, 1},
      {"AG W=2 own half + 1 chunk (2 x 4096 rows)", 8192, 8192, 8192, 2, false, 0, 8},
      {"AG W=2 own half + 2 chunks (as 4 x 2048 rows)", 8192, 8192, 8192, 4, false, 0, 8},
      {"AG W=2 own half + 4 chunks (as 8 x 1024 rows)", 8192, 8192, 8192, 8, false, 0, 1},
      {"AG W=2 own half + 4 chunks (as 8 x 1024 rows)", 8192, 8192, 8192, 8, false, 0, 8},
      {"AG W=2 SM target -8", 8192, 8192, 8192, 1, false, sms - 8, 1},
  };
  const std::vector<double> ms = time_gemms(h, cases);
  for (size_t i = 0; i < cases.size(); ++i) {
    const GemmCase& s = cases[i];
    std::printf("| %s (%lld x %lld x %lld) | %d | %s | %d | %d | %.4f |\n", s.what, static_cast<long long>(s.m),
                static_cast<long long>(s.n), static_cast<long long>(s.k), s.chunks, s.c ? "yes" : "no", s.sm, s.algos,
                ms[i]);
  }
  cublasLtDestroy(h);
  std::printf("\n%d failure(s)\n", g_failures);
  return g_failures == 0 ? 0 : 1;
}
