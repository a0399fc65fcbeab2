// block_allgather: the frozen side (inputs, reference, comparison). Candidates never see it.
//
// All-gather of one vector per rank. With W ranks, rank r holds
//   x_r: N bf16 (N a multiple of 1024)
// and must produce y (bf16, W N) = x_0 | x_1 | ... | x_{W-1}: element e of y is element e mod N of
// x_{e div N}.
//
// Inputs: x ~ U(-1, 1) rounded to bf16. Every element is a pure function of (seed, tensor, rank,
// index) (cuco/impl/random.h), so the reference regenerates every rank's x from the seed and never
// reads the input buffers.
//
// Checking unit: rows of kRowElems = 1024 consecutive elements of y (W N / 1024 rows on every rank;
// N is a multiple of 1024, so a row never straddles two ranks' slices). One CUDA block per checked
// row; each element is regenerated and compared on the spot, in fp64, with the candidate's output.
// A copy is exact, so the workload's tolerance is 0. Per-block partial sums go to scratch memory
// that is zeroed before it is freed.
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
constexpr int kRefThreads = 256;
constexpr int kMaxGrid = 65535;

__device__ __forceinline__ float x_value(uint64_t key, uint64_t index) { return bf16_round(uniform_pm1(key, index)); }

__global__ void fill_kernel(__nv_bfloat16* x, int64_t n, uint64_t key) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    x[i] = __float2bfloat16_rn(x_value(key, static_cast<uint64_t>(i)));
}

using Partial = CheckPartial;  // cuco/impl/row_check.h: d2, r2, max_abs, nonfinite

// Block b handles checked rows b, b + gridDim.x, ...; its threads stride over the row's elements.
// keys[q]: the x stream of rank q.
__global__ void reference_compare_kernel(const __nv_bfloat16* y, const int64_t* rows, int64_t n_rows,
                                         const uint64_t* keys, int64_t n, Partial* partials) {
  __shared__ Partial red[kRefThreads];
  Partial p{0, 0, 0, 0};
  for (int64_t ri = blockIdx.x; ri < n_rows; ri += gridDim.x) {
    const int64_t row = rows[ri];
    for (int64_t t = threadIdx.x; t < kRowElems; t += blockDim.x) {
      const int64_t e = row * kRowElems + t;  // element of y
      const int64_t q = e / n;                // the rank whose x it comes from
      const double ref = x_value(keys[q], static_cast<uint64_t>(e - q * n));
      accumulate_element(p, __bfloat162float(y[e]), ref);
    }
  }
  reduce_block_partial(red, p, &partials[blockIdx.x]);
}

cuco::Status cuda_status(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return cuco::Status::Ok();
  return cuco::Status::Error(std::string("block_allgather reference: ") + what + ": " + cudaGetErrorString(e));
}

}  // namespace

const char* workload_name() { return "block_allgather"; }

cuco::Status validate_sizes(const cuco::Sizes& s, int world) {
  if (!s.has("N")) return cuco::Status::Error("size N is missing (give --size N=...)");
  const int64_t n = s.get("N");
  if (n <= 0) return cuco::Status::Error("size N must be > 0");
  if (world < 1) return cuco::Status::Error("world size must be >= 1");
  if (n % kRowElems != 0)
    return cuco::Status::Error("N=" + std::to_string(n) + " is not a multiple of " + std::to_string(kRowElems) +
                               " (the output is checked in rows of " + std::to_string(kRowElems) + " elements)");
  if (n > (int64_t{1} << 40) / world) return cuco::Status::Error("sizes are too large");
  return cuco::Status::Ok();
}

std::vector<BufferSpec> buffers(const cuco::Sizes& s, int /*rank*/, int world) {
  const int64_t n = s.get("N");
  return {
      {"x", Role::kInput, DType::kBF16, n},
      {"y", Role::kOutput, DType::kBF16, n * world},
  };
}

int64_t output_rows(const cuco::Sizes& s, int /*rank*/, int world) { return s.get("N") * world / kRowElems; }

cuco::Status fill_inputs(const cuco::Sizes& s, int rank, int /*world*/, uint64_t seed, const cuco::IO& io,
                         cudaStream_t stream) {
  const int64_t n = s.get("N");
  const uint64_t key = stream_key(seed, kTensorX, static_cast<uint64_t>(rank));
  int sms = 132, dev = 0;
  cudaGetDevice(&dev);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
  const int64_t blocks = std::min<int64_t>((n + 255) / 256, static_cast<int64_t>(sms) * 16);
  fill_kernel<<<static_cast<unsigned>(std::max<int64_t>(blocks, 1)), 256, 0, stream>>>(
      static_cast<__nv_bfloat16*>(io.in("x").ptr), n, key);
  return cuda_status(cudaGetLastError(), "fill_kernel launch");
}

cuco::Status check(const cuco::Sizes& s, int /*rank*/, int world, uint64_t seed, const cuco::IO& io,
                   const CheckPlan& plan, cudaStream_t stream, CheckResult* result) {
  const int64_t n = s.get("N");
  const int64_t n_rows_all = n * world / kRowElems;
  std::vector<int64_t> rows;
  if (cuco::Status st = planned_rows(plan, n_rows_all, &rows); !st.ok()) return st;
  *result = CheckResult{};
  if (rows.empty()) return cuco::Status::Ok();

  std::vector<uint64_t> keys(static_cast<size_t>(world));
  for (int q = 0; q < world; ++q) keys[static_cast<size_t>(q)] = stream_key(seed, kTensorX, static_cast<uint64_t>(q));
  const unsigned grid = static_cast<unsigned>(std::min<int64_t>(static_cast<int64_t>(rows.size()), kMaxGrid));
  const size_t n_partials = grid;

  // One scratch block: keys | rows | partials.
  const size_t keys_bytes = keys.size() * sizeof(uint64_t);
  const size_t rows_bytes = rows.size() * sizeof(int64_t);
  const size_t partial_bytes = n_partials * sizeof(Partial);
  const size_t scratch_bytes = keys_bytes + rows_bytes + partial_bytes;
  char* scratch = nullptr;
  cuco::Status st = cuda_status(cudaMalloc(&scratch, scratch_bytes), "cudaMalloc scratch");
  if (!st.ok()) return st;
  uint64_t* d_keys = reinterpret_cast<uint64_t*>(scratch);
  int64_t* d_rows = reinterpret_cast<int64_t*>(scratch + keys_bytes);
  Partial* d_partials = reinterpret_cast<Partial*>(scratch + keys_bytes + rows_bytes);

  std::vector<Partial> partials(n_partials);
  cudaError_t e = cudaMemcpyAsync(d_keys, keys.data(), keys_bytes, cudaMemcpyHostToDevice, stream);
  if (e == cudaSuccess) e = cudaMemcpyAsync(d_rows, rows.data(), rows_bytes, cudaMemcpyHostToDevice, stream);
  if (e == cudaSuccess) {
    reference_compare_kernel<<<grid, kRefThreads, 0, stream>>>(static_cast<const __nv_bfloat16*>(io.out("y").ptr),
                                                               d_rows, static_cast<int64_t>(rows.size()), d_keys, n,
                                                               d_partials);
    e = cudaGetLastError();
  }
  if (e == cudaSuccess)
    e = cudaMemcpyAsync(partials.data(), d_partials, partial_bytes, cudaMemcpyDeviceToHost, stream);
  if (e == cudaSuccess) e = cudaStreamSynchronize(stream);
  // Scrub and free the scratch whatever happened.
  const cudaError_t e_scrub = cudaMemsetAsync(scratch, 0, scratch_bytes, stream);
  const cudaError_t e_sync = cudaStreamSynchronize(stream);
  const cudaError_t e_free = cudaFree(scratch);
  if (e != cudaSuccess) return cuda_status(e, "reference kernel");
  if (e_scrub != cudaSuccess) return cuda_status(e_scrub, "scrub");
  if (e_sync != cudaSuccess) return cuda_status(e_sync, "scrub sync");
  if (e_free != cudaSuccess) return cuda_status(e_free, "cudaFree scratch");

  summarize_partials(partials, static_cast<int64_t>(rows.size()), kRowElems, result);
  return cuco::Status::Ok();
}

}  // namespace cuco_frozen
