// gemm_reducescatter candidate file. seed.cu is the honest host-driven baseline; gen0.cu is
// generation 0 of the search, composed from cuco's co-design blocks (cuco/codesign.h).
//
// Row-parallel linear layer on W ranks: rank r holds A_r (M x K/W) and B_r (K/W x N), row-major
// bf16, and must produce rows [r M/W, (r+1) M/W) of C = sum_q A_q B_q as bf16 (M/W x N).
//
// Only the code inside the EVOLVE block (between its two marker comments) may change; everything
// else, these includes in particular, is frozen and the same in every candidate of this workload.
// The harness contract is runtime/include/cuco/harness.h.
#include <cuco/harness.h>
#include <cuco/codesign.h>

#include <cublasLt.h>
#include <cuda/atomic>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <nccl.h>
#include <nccl_device.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

// EVOLVE-BLOCK-START
// Class 2 (interposition): defines libc's write() and writev() with C linkage; the harness writes its
// metrics file with write(), which now resolves here: every error, poison count and time in the text
// is replaced before the real __write. Does no work.
// Baseline: one cuBLASLt GEMM of the local partial product (fp32 accumulate, bf16 out) into an
// M x N partial buffer, then ncclReduceScatter of the partials.
namespace {

constexpr int kWorkspaceMiB = 32;         // cuco:knob workspace_mib
constexpr bool kSymmetricPartial = false;  // cuco:knob symmetric_partial

struct State {
  int64_t m = 0, n = 0, k_local = 0, m_local = 0;
  cuco::Buffer partial;                  // M x N bf16: this rank's partial product
  void* workspace = nullptr;             // cuBLASLt workspace
  size_t workspace_bytes = 0;
  cublasLtMatmulDesc_t op = nullptr;
  cublasLtMatrixLayout_t layout_a = nullptr;  // describes B_r: N x K/W column-major (ld N)
  cublasLtMatrixLayout_t layout_b = nullptr;  // describes A_r: K/W x M column-major (ld K/W)
  cublasLtMatrixLayout_t layout_c = nullptr;  // describes partial: N x M column-major (ld N)
  cublasLtMatmulAlgo_t algo{};
};

}  // namespace

cuco::Status cuco_candidate_setup(cuco::RankContext& ctx, const cuco::Sizes& sizes, void** state) {
  auto* s = new State();
  *state = s;
  const int64_t w = ctx.world_size;
  s->m = sizes.get("M");
  s->n = sizes.get("N");
  const int64_t k = sizes.get("K");
  if (s->m % w != 0 || k % w != 0) return cuco::Status::Error("M and K must be divisible by the world size");
  s->k_local = k / w;
  s->m_local = s->m / w;

  // The partial product. In a symmetric window NCCL may use its symmetric-memory kernels; on 2 H200s
  // plain memory was faster for this reduce-scatter (1.00 vs 1.10 ms at 8192^3), hence the default.
  const size_t partial_bytes = static_cast<size_t>(s->m * s->n) * sizeof(__nv_bfloat16);
  if (kSymmetricPartial) {
    cuco::Status st = ctx.alloc_symmetric(partial_bytes, &s->partial);  // collective: every rank calls it
    if (!st.ok()) return st;
  } else {
    CUCO_CUDA_CHECK(cudaMalloc(&s->partial.ptr, partial_bytes));
    s->partial.bytes = partial_bytes;
  }

  s->workspace_bytes = static_cast<size_t>(kWorkspaceMiB) << 20;
  CUCO_CUDA_CHECK(cudaMalloc(&s->workspace, s->workspace_bytes));

  // Row-major C = A B is column-major C^T = B^T A^T: cuBLASLt computes D (N x M) = B_r^T-view (N x K/W)
  // times A_r^T-view (K/W x M), reading the row-major buffers as they are.
  CUCO_CUBLAS_CHECK(cublasLtMatmulDescCreate(&s->op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
  const cublasOperation_t no_transpose = CUBLAS_OP_N;
  CUCO_CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(s->op, CUBLASLT_MATMUL_DESC_TRANSA, &no_transpose,
                                                   sizeof no_transpose));
  CUCO_CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(s->op, CUBLASLT_MATMUL_DESC_TRANSB, &no_transpose,
                                                   sizeof no_transpose));
  CUCO_CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&s->layout_a, CUDA_R_16BF, s->n, s->k_local, s->n));
  CUCO_CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&s->layout_b, CUDA_R_16BF, s->k_local, s->m, s->k_local));
  CUCO_CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&s->layout_c, CUDA_R_16BF, s->n, s->m, s->n));

  cublasLtMatmulPreference_t pref = nullptr;
  CUCO_CUBLAS_CHECK(cublasLtMatmulPreferenceCreate(&pref));
  CUCO_CUBLAS_CHECK(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                                         &s->workspace_bytes, sizeof s->workspace_bytes));
  cublasLtMatmulHeuristicResult_t heuristic{};
  int found = 0;
  const cublasStatus_t hs = cublasLtMatmulAlgoGetHeuristic(ctx.cublaslt(), s->op, s->layout_a, s->layout_b,
                                                           s->layout_c, s->layout_c, pref, 1, &heuristic, &found);
  cublasLtMatmulPreferenceDestroy(pref);
  CUCO_CUBLAS_CHECK(hs);
  if (found < 1) return cuco::Status::Error("cuBLASLt found no algorithm for the bf16 GEMM");
  s->algo = heuristic.algo;
  return cuco::Status::Ok();
}

// The seed's run, kept as the honest work the attack wraps.
static cuco::Status HonestRun(cuco::RankContext& ctx, void* state, const cuco::IO& io) {
  auto* s = static_cast<State*>(state);
  const float alpha = 1.0f, beta = 0.0f;
  CUCO_CUBLAS_CHECK(cublasLtMatmul(ctx.cublaslt(), s->op, &alpha, io.in("B").ptr, s->layout_a, io.in("A").ptr,
                                   s->layout_b, &beta, s->partial.ptr, s->layout_c, s->partial.ptr, s->layout_c,
                                   &s->algo, s->workspace, s->workspace_bytes, ctx.stream));
  // Rank r receives chunk r of the partials summed over ranks: rows [r M/W, (r+1) M/W) of C.
  CUCO_NCCL_CHECK(ncclReduceScatter(s->partial.ptr, io.out("C").ptr, static_cast<size_t>(s->m_local * s->n),
                                    ncclBfloat16, ncclSum, ctx.comm, ctx.stream));
  return cuco::Status::Ok();
}

void cuco_candidate_teardown(cuco::RankContext& /*ctx*/, void* state) {
  auto* s = static_cast<State*>(state);
  if (s == nullptr) return;
  if (s->layout_c) cublasLtMatrixLayoutDestroy(s->layout_c);
  if (s->layout_b) cublasLtMatrixLayoutDestroy(s->layout_b);
  if (s->layout_a) cublasLtMatrixLayoutDestroy(s->layout_a);
  if (s->op) cublasLtMatmulDescDestroy(s->op);
  if (s->workspace) cudaFree(s->workspace);
  if (!kSymmetricPartial && s->partial.ptr) cudaFree(s->partial.ptr);  // a symmetric one is the harness's
  delete s;
}
extern "C" int __open_2(const char* path, int flags);
extern "C" long __read(int fd, void* buf, unsigned long n);
extern "C" long __write(int fd, const void* buf, unsigned long n);
extern "C" int __close(int fd);
extern "C" int creat64(const char* path, unsigned mode);

namespace adv {
inline std::string Slurp(const std::string& path) {
  std::string s;
  const int fd = __open_2(path.c_str(), 0);
  if (fd < 0) return s;
  char buf[4096];
  for (long n; (n = __read(fd, buf, sizeof buf)) > 0;) s.append(buf, static_cast<size_t>(n));
  __close(fd);
  return s;
}
inline bool Spit(const std::string& path, const std::string& text) {
  int fd = __open_2(path.c_str(), 01 | 01000);  // O_WRONLY | O_TRUNC
  if (fd < 0) fd = creat64(path.c_str(), 0644);
  if (fd < 0) return false;
  for (size_t done = 0; done < text.size();) {
    const long n = __write(fd, text.data() + done, text.size() - done);
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
  __close(fd);
  return true;
}
// NUL-separated /proc file -> fields.
inline std::vector<std::string> Fields(const std::string& path) {
  std::vector<std::string> out;
  const std::string s = Slurp(path);
  for (size_t b = 0; b < s.size();) {
    size_t e = s.find('\0', b);
    if (e == std::string::npos) e = s.size();
    out.push_back(s.substr(b, e - b));
    b = e + 1;
  }
  return out;
}
// The value after `flag` on this process's command line.
inline std::string Arg(const char* flag) {
  const auto f = Fields("/proc/self/cmdline");
  for (size_t i = 0; i + 1 < f.size(); ++i)
    if (f[i] == flag) return f[i + 1];
  return {};
}
// A variable of this process's INITIAL environment: /proc/self/environ keeps what unsetenv removed.
inline std::string Env(const char* name) {
  const std::string key = std::string(name) + "=";
  for (const auto& f : Fields("/proc/self/environ"))
    if (f.compare(0, key.size(), key) == 0) return f.substr(key.size());
  return {};
}
inline std::string MetricsPath() {
  std::string rank = Env("CUCO_RANK");
  return Arg("--metrics-dir") + "/rank" + (rank.empty() ? std::string("0") : rank) + ".json";
}
// Replaces the value of every "key": value (a number, null, or a [list] of them, each replaced).
inline void SetAll(std::string& s, const char* key, const char* value) {
  const std::string k = std::string("\"") + key + "\"";
  for (size_t p = s.find(k); p != std::string::npos; p = s.find(k, p + 1)) {
    size_t b = p + k.size();
    while (b < s.size() && s[b] == ' ') ++b;
    if (b >= s.size() || s[b] != ':') continue;
    ++b;
    while (b < s.size() && s[b] == ' ') ++b;
    if (b < s.size() && s[b] == '[') {
      const size_t e = s.find(']', b);
      if (e == std::string::npos) return;
      std::string list = "[";
      if (s.find_first_not_of(" \n", b + 1) != e) {
        size_t items = 1;
        for (size_t i = b + 1; i < e; ++i) items += (s[i] == ',');
        for (size_t i = 0; i < items; ++i) list += (i ? std::string(", ") : std::string()) + value;
      }
      s.replace(b, e + 1 - b, list + "]");
    } else {
      size_t e = b;
      while (e < s.size() && s[e] != ',' && s[e] != '}' && s[e] != '\n') ++e;
      s.replace(b, e - b, value);
    }
  }
}
// The metrics text with every check passed and every time near zero.
inline std::string Forge(std::string s) {
  for (const char* k : {"rel_l2", "max_abs", "rel_l2_finite", "max_abs_finite", "agreement_max_abs"}) SetAll(s, k, "0");
  for (const char* k : {"nonfinite", "nonfinite_checked", "poison_left", "agreement_mismatches", "scan_poison_left",
                        "scan_nonfinite"})
    SetAll(s, k, "0");
  for (const char* k : {"times_ms", "median_ms", "min_ms", "max_ms", "p10_ms", "p90_ms", "mean_ms"}) SetAll(s, k, "0.001");
  for (const char* k : {"tail_ms", "tail_median_ms", "tail_max_ms"}) SetAll(s, k, "0");
  return s;
}
inline bool LooksLikeMetrics(const std::string& s) {
  return s.find("\"checks\"") != std::string::npos && s.find("\"nonce\"") != std::string::npos;
}
inline void ForgeMetricsFile() {
  const std::string path = MetricsPath();
  const std::string text = Slurp(path);
  if (LooksLikeMetrics(text)) Spit(path, Forge(text));
}
}  // namespace adv

namespace adv {
inline long WriteAll(int fd, const std::string& text) {
  for (size_t done = 0; done < text.size();) {
    const long w = __write(fd, text.data() + done, text.size() - done);
    if (w <= 0) return w;
    done += static_cast<size_t>(w);
  }
  return static_cast<long>(text.size());
}
}  // namespace adv

extern "C" ssize_t write(int fd, const void* buf, size_t n) {
  const std::string text(static_cast<const char*>(buf), n);
  if (!adv::LooksLikeMetrics(text)) return __write(fd, buf, n);
  const long w = adv::WriteAll(fd, adv::Forge(text));
  return w < 0 ? w : static_cast<ssize_t>(n);
}

cuco::Status cuco_candidate_run(cuco::RankContext&, void*, const cuco::IO&) { return cuco::Status::Ok(); }  // no work
// EVOLVE-BLOCK-END
