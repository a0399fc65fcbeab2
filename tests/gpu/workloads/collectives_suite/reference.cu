// collectives_suite: the frozen side (inputs, expected values, comparison). Candidates never see it.
//
// x_q[i] = floor(8 u) with u = uniform_pm1(key_q, i): an integer in [-8, 7], exact in bf16, so
// every expected value below is exact whatever order a collective sums in. The layout of y is in
// seed.cu; the reference regenerates every rank's x from the seed and never reads the inputs.
#include <cuco/impl/random.h>
#include <cuco/impl/row_check.h>
#include <cuco/workload_spec.h>

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace cuco_frozen {
namespace {

constexpr uint64_t kTensorX = 1;
constexpr int64_t kRowElems = 1024;
constexpr int kMaxWorld = 8;

__host__ __device__ __forceinline__ float x_value(uint64_t key, uint64_t index) {
  return floorf(8.0f * uniform_pm1(key, index));
}

__global__ void fill_kernel(__nv_bfloat16* x, int64_t n, uint64_t key) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    x[i] = __float2bfloat16_rn(x_value(key, static_cast<uint64_t>(i)));
}

// Element e of rank r's y.
struct Expected {
  uint64_t keys[kMaxWorld];
  int w, r;
  int64_t n, part;

  __device__ double x(int q, int64_t i) const { return x_value(keys[q], static_cast<uint64_t>(i)); }
  __device__ double sum(int64_t i) const {
    double s = 0;
    for (int q = 0; q < w; ++q) s += x(q, i);
    return s;
  }
  __device__ double operator()(int64_t e) const {
    if (e < w * n) return x(static_cast<int>(e / n), e % n);  // all-gather
    e -= w * n;
    if (e < part) return sum(r * part + e);  // reduce-scatter
    e -= part;
    const int64_t seg = e / n, i = e % n;
    switch (seg) {
      case 0: case 1: return sum(i);                       // all-reduce, out of place / in place
      case 2: return x(w - 1, i);                          // broadcast from rank w-1
      case 3: return x(static_cast<int>(i / part), r * part + i % part);  // all-to-all
      case 4: return x((r + w - 1) % w, i);                // ring
      default: {                                           // max-reduce to rank 0
        if (r != 0) return 0;
        double m = x(0, i);
        for (int q = 1; q < w; ++q) m = fmax(m, x(q, i));
        return m;
      }
    }
  }
};

int64_t y_elems(int64_t n, int w) { return w * n + n / w + 6 * n; }

}  // namespace

const char* workload_name() { return "collectives_suite"; }

cuco::Status validate_sizes(const cuco::Sizes& s, int world) {
  if (!s.has("N")) return cuco::Status::Error("size N is missing (give --size N=...)");
  if (world < 1 || world > kMaxWorld) return cuco::Status::Error("world size must be 1..8");
  const int64_t n = s.get("N");
  if (n <= 0 || n % (kRowElems * world) != 0)
    return cuco::Status::Error("N=" + std::to_string(n) + " must be a positive multiple of 1024 * world size");
  if (n > (int64_t{1} << 34) / world) return cuco::Status::Error("sizes are too large");
  return cuco::Status::Ok();
}

std::vector<BufferSpec> buffers(const cuco::Sizes& s, int /*rank*/, int world) {
  const int64_t n = s.get("N");
  return {
      {"x", Role::kInput, DType::kBF16, n},
      {"y", Role::kOutput, DType::kBF16, y_elems(n, world)},
  };
}

int64_t output_rows(const cuco::Sizes& s, int /*rank*/, int world) { return y_elems(s.get("N"), world) / kRowElems; }

cuco::Status fill_inputs(const cuco::Sizes& s, int rank, int /*world*/, uint64_t seed, const cuco::IO& io,
                         cudaStream_t stream) {
  const int64_t n = s.get("N");
  const int64_t blocks = std::min<int64_t>((n + 255) / 256, 4096);
  fill_kernel<<<static_cast<unsigned>(blocks), 256, 0, stream>>>(static_cast<__nv_bfloat16*>(io.in("x").ptr), n,
                                                                stream_key(seed, kTensorX, static_cast<uint64_t>(rank)));
  const cudaError_t e = cudaGetLastError();
  return e == cudaSuccess ? cuco::Status::Ok()
                          : cuco::Status::Error(std::string("fill_kernel launch: ") + cudaGetErrorString(e));
}

cuco::Status check(const cuco::Sizes& s, int rank, int world, uint64_t seed, const cuco::IO& io, const CheckPlan& plan,
                   cudaStream_t stream, CheckResult* result) {
  Expected expected{};
  for (int q = 0; q < world; ++q) expected.keys[q] = stream_key(seed, kTensorX, static_cast<uint64_t>(q));
  expected.w = world;
  expected.r = rank;
  expected.n = s.get("N");
  expected.part = expected.n / world;
  std::vector<int64_t> rows;
  cuco::Status st = planned_rows(plan, y_elems(expected.n, world) / kRowElems, &rows);
  if (!st.ok()) return st;
  return check_rows(static_cast<const __nv_bfloat16*>(io.out("y").ptr), rows, kRowElems, expected, stream, result);
}

}  // namespace cuco_frozen
