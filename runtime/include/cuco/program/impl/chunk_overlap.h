// cuco/program/impl/chunk_overlap.h: the chunks knob of cuco/program/codesign.h. A GEMM whose
// output the next collective reads runs as column chunks, and the collective follows each chunk on
// a side stream, so the communication of chunk i overlaps the GEMM of chunk i+1.
//
// How the pieces meet, on the calling thread:
//   Producer p(kCucoChunks, z);   arms: the next GEMM writing `z` (cuBLAS's D/C pointer) is split
//   gemm(..., z);                 the GEMM stand-ins below split it, recording an event per chunk
//   comm::AllReduce(..., z, ...)  TakeChunks(z, bytes, stream) hands the chunks to the collective
// Where one thread drives every GPU, a loop of GEMMs comes before a loop of collectives:
//   Producer p(kCucoChunks, nullptr);                 the knob's value, nothing armed yet
//   for (r ...) { ...; p.Arm(g[r].y); gemm(..., g[r].y); }   each pass arms its own buffer
//   for (r ...) { ...; comm::AllReduce(..., g[r].y, ...); }  takes the chunks its GPU's GEMM made
// A GEMM is split only when its output is contiguous (ldc == m, one batch, column order) with at
// least as many columns as chunks; anything else runs whole, and so does every GEMM while no
// Producer is armed. A collective that finds no chunks (another buffer or size) runs whole. One on
// another stream than the GEMM's (ordered after it by the program's event, whose wait the transform
// skips once the GEMM is split) takes them too, its side stream ordered after its own stream first.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <utility>
#include <vector>

#include <cublasLt.h>
#include <cublas_api.h>
#include <cuda_runtime.h>

#include <cuco/harness.h>
#include <cuco/program/impl/candidate_state.h>
#include <cuco/program/impl/chunk_bounds.h>
#include <cuco/program/impl/chunk_state.h>
#include <cuco/program/impl/gather_overlap.h>
#include <cuco/program/impl/projection.h>

namespace cuco_program::overlap {
namespace detail {

inline size_t DataTypeBytes(cudaDataType_t t) {
  switch (t) {
    case CUDA_R_64F: return 8;
    case CUDA_R_32F: case CUDA_R_32I: return 4;
    case CUDA_R_16F: case CUDA_R_16BF: return 2;
    case CUDA_R_8I: case CUDA_R_8U: case CUDA_R_8F_E4M3: case CUDA_R_8F_E5M2: return 1;
    default: return 0;
  }
}

// How many chunks a GEMM writing `out` (n columns of ldc elements, ldc == m for contiguity)
// splits into: 1 unless the armed Producer names `out`.
inline int PartsFor(const void* out, int m, int n, int64_t ldc) {
  ThreadState& t = T();
  if (t.armed == nullptr || out != t.armed || t.chunks <= 1) return 1;
  if (ldc != m || n < t.chunks) {
    SayOnce(0, "the GEMM writing the collective's buffer runs whole (its output is not contiguous, or has fewer columns "
               "than chunks)", t.chunks);
    return 1;
  }
  SayOnce(1, "the GEMM writing the collective's buffer runs in column chunks, the collective after each on a side stream",
          t.chunks);
  return t.chunks;
}

// Runs `part(p, c0, c1)` for each of `parts` column ranges on `stream`, recording an event after
// each, and keeps them for the collective that reads `out`.
template <class Part>
cublasStatus_t SplitColumns(const void* out, size_t col_bytes, int n, int parts, cudaStream_t stream, Part part) {
  ThreadState& t = T();
  Chunks c;
  c.buffer = out;
  c.bytes = col_bytes * static_cast<size_t>(n);
  c.stream = stream;
  for (int p = 0; p < parts; ++p) {
    const int c0 = PartBegin(n, parts, p), c1 = PartBegin(n, parts, p + 1);
    const cublasStatus_t st = part(c0, c1);
    if (st != CUBLAS_STATUS_SUCCESS) return st;
    candidate_detail::S().ctx->record_event(ChunkEvent(p), stream);
    c.ranges.emplace_back(col_bytes * static_cast<size_t>(c0), col_bytes * static_cast<size_t>(c1));
  }
  t.made = std::move(c);
  return CUBLAS_STATUS_SUCCESS;
}

// B's first element of column c0 of the product (its column c0 when not transposed, else its row c0).
inline const void* BColumn(const void* B, cublasOperation_t tb, int64_t ldb, size_t elem, int c0) {
  const size_t step = tb == CUBLAS_OP_N ? static_cast<size_t>(ldb) * elem : elem;
  return candidate_detail::At(B, step * static_cast<size_t>(c0));
}

}  // namespace detail

// Arms the next GEMM writing `buffer` on this thread to run as `chunks` column chunks ("1", "2",
// "4" or "8"; "1" arms nothing; a null buffer arms nothing until Arm). Disarmed when a collective
// takes the chunks, or at scope end, which also drops chunks no collective took.
class Producer {
 public:
  Producer(const char* chunks, const void* buffer) {
    detail::ThreadState& t = detail::T();
    id_ = ++t.next_producer;
    t.producer = id_;
    t.armed = buffer;
    t.made = detail::Chunks{};
    t.chunks = 1;
    const int v = chunks == nullptr ? 0 : std::atoi(chunks);
    t.bad_value = false;
    if (v == 1 || v == 2 || v == 4 || v == detail::kMaxChunks) {
      t.chunks = v;
    } else {
      t.bad_value = true;
      std::fprintf(stderr, "cuco: chunks knob \"%s\" is none of \"1\", \"2\", \"4\", \"8\"\n", chunks ? chunks : "(null)");
    }
  }
  // Arms the next GEMM writing `buffer` (the loop form: the chunks a GEMM made before stay for its
  // collective). Nothing when a later Producer is current.
  void Arm(const void* buffer) {
    detail::ThreadState& t = detail::T();
    if (t.producer == id_) t.armed = buffer;
  }
  // The program's wait for the device between the GEMM and its collective (cuco transform guards it
  // with this): false when the GEMM it armed was split, so that each chunk's collective follows its
  // chunk, ordered by the chunk's event; the collective then waits for the device itself if it runs
  // whole after all (TakeDeferredWait), where the program waited.
  bool SkipsWait() const {
    detail::ThreadState& t = detail::T();
    if (t.producer != id_ || t.made.buffer == nullptr || t.made.ranges.size() <= 1) return false;
    t.wait_deferred = true;
    return true;
  }
  ~Producer() {
    detail::ThreadState& t = detail::T();
    if (t.producer == id_) {
      t.armed = nullptr;
      t.made = detail::Chunks{};
    }
  }
  Producer(const Producer&) = delete;
  Producer& operator=(const Producer&) = delete;

 private:
  uint64_t id_ = 0;
};

namespace detail {

// A GEMM skipped (another GPU's, or part "comm"): an all-gather kept for it still runs.
inline cublasStatus_t SkippedGemm() { return FlushKept() ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_EXECUTION_FAILED; }

// A typed GEMM (cublasSgemm_v2, cublasHgemm: `gemm`), split when an armed Producer names C, or
// run per source rank when B is what a kept all-gather gathers (gather_overlap.h).
template <class T, class Gemm>
cublasStatus_t TypedGemm(Gemm gemm, cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
                         const T* alpha, const T* A, int lda, const T* B, int ldb, const T* beta, T* C, int ldc) {
  if (!proj::Own() || candidate_detail::SkipGemms()) return SkippedGemm();  // another GPU's; part "comm"
  cudaStream_t s = nullptr;
  cublasGetStream_v2(h, &s);
  auto part = [&](int c0, int c1) {
    return gemm(h, ta, tb, m, c1 - c0, k, alpha, A, lda, static_cast<const T*>(BColumn(B, tb, ldb, sizeof(T), c0)), ldb,
                beta, C + static_cast<size_t>(ldc) * c0, ldc);
  };
  if (auto r = OverGather(B, tb, ldb, sizeof(T), n, s, part)) return *r;
  const int parts = PartsFor(C, m, n, ldc);
  if (parts == 1) return gemm(h, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
  return SplitColumns(C, sizeof(T) * static_cast<size_t>(ldc), n, parts, s, part);
}

}  // namespace detail

// The GEMM stand-ins `cuco transform` puts in place of the program's calls: the call itself,
// unless an armed Producer names its output. A call while another GPU is selected does nothing
// (projection.h).
inline cublasStatus_t Sgemm(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
                            const float* alpha, const float* A, int lda, const float* B, int ldb, const float* beta,
                            float* C, int ldc) {
  return detail::TypedGemm<float>(cublasSgemm_v2, h, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

inline cublasStatus_t Hgemm(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
                            const __half* alpha, const __half* A, int lda, const __half* B, int ldb,
                            const __half* beta, __half* C, int ldc) {
  return detail::TypedGemm<__half>(cublasHgemm, h, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

// Compute: cublasComputeType_t, or cudaDataType_t for cuBLAS's older overload.
template <class Compute>
cublasStatus_t GemmEx(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
                      const void* alpha, const void* A, cudaDataType_t at, int lda, const void* B, cudaDataType_t bt,
                      int ldb, const void* beta, void* C, cudaDataType_t ct, int ldc, Compute compute,
                      cublasGemmAlgo_t algo) {
  if (!proj::Own() || candidate_detail::SkipGemms()) return detail::SkippedGemm();  // another GPU's; part "comm"
  const size_t be = detail::DataTypeBytes(bt), ce = detail::DataTypeBytes(ct);
  auto whole = [&] { return cublasGemmEx(h, ta, tb, m, n, k, alpha, A, at, lda, B, bt, ldb, beta, C, ct, ldc, compute, algo); };
  if (be == 0 || ce == 0) return FlushKept() ? whole() : CUBLAS_STATUS_EXECUTION_FAILED;
  cudaStream_t s = nullptr;
  cublasGetStream_v2(h, &s);
  const size_t col = ce * static_cast<size_t>(ldc);
  auto part = [&](int c0, int c1) {
    return cublasGemmEx(h, ta, tb, m, c1 - c0, k, alpha, A, at, lda, detail::BColumn(B, tb, ldb, be, c0), bt, ldb,
                        beta, candidate_detail::At(C, col * static_cast<size_t>(c0)), ct, ldc, compute, algo);
  };
  if (auto r = OverGather(B, tb, ldb, be, n, s, part)) return *r;
  const int parts = detail::PartsFor(C, m, n, ldc);
  if (parts == 1) return whole();
  return detail::SplitColumns(C, col, n, parts, s, part);
}

namespace detail {

struct LtLayout {  // what the split needs of a cublasLt matrix layout
  cudaDataType_t type{};
  uint64_t rows = 0, cols = 0;
  int64_t ld = 0;
  int32_t order = CUBLASLT_ORDER_COL, batch = 1;
  bool ok = false;
};

inline LtLayout ReadLayout(cublasLtMatrixLayout_t l) {
  LtLayout o;
  size_t w = 0;
  uint32_t type = 0;
  o.ok = cublasLtMatrixLayoutGetAttribute(l, CUBLASLT_MATRIX_LAYOUT_TYPE, &type, sizeof type, &w) == CUBLAS_STATUS_SUCCESS &&
         cublasLtMatrixLayoutGetAttribute(l, CUBLASLT_MATRIX_LAYOUT_ROWS, &o.rows, sizeof o.rows, &w) == CUBLAS_STATUS_SUCCESS &&
         cublasLtMatrixLayoutGetAttribute(l, CUBLASLT_MATRIX_LAYOUT_COLS, &o.cols, sizeof o.cols, &w) == CUBLAS_STATUS_SUCCESS &&
         cublasLtMatrixLayoutGetAttribute(l, CUBLASLT_MATRIX_LAYOUT_LD, &o.ld, sizeof o.ld, &w) == CUBLAS_STATUS_SUCCESS &&
         cublasLtMatrixLayoutGetAttribute(l, CUBLASLT_MATRIX_LAYOUT_ORDER, &o.order, sizeof o.order, &w) == CUBLAS_STATUS_SUCCESS &&
         cublasLtMatrixLayoutGetAttribute(l, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &o.batch, sizeof o.batch, &w) == CUBLAS_STATUS_SUCCESS;
  o.type = static_cast<cudaDataType_t>(type);
  o.ok = o.ok && o.order == CUBLASLT_ORDER_COL && o.batch == 1 && DataTypeBytes(o.type) != 0;
  return o;
}

// A layout of `rows` x `cols` with `from`'s type and leading dimension (destroyed with the object).
struct OwnedLayout {
  cublasLtMatrixLayout_t l = nullptr;
  OwnedLayout(const LtLayout& from, uint64_t rows, uint64_t cols) {
    if (cublasLtMatrixLayoutCreate(&l, from.type, rows, cols, from.ld) != CUBLAS_STATUS_SUCCESS) l = nullptr;
  }
  ~OwnedLayout() {
    if (l != nullptr) cublasLtMatrixLayoutDestroy(l);
  }
  OwnedLayout(const OwnedLayout&) = delete;
  OwnedLayout& operator=(const OwnedLayout&) = delete;
};

// Epilogues that act column by column with no auxiliary output: splitting columns keeps them.
inline bool SplittableEpilogue(cublasLtMatmulDesc_t op) {
  uint32_t e = CUBLASLT_EPILOGUE_DEFAULT;
  size_t w = 0;
  if (cublasLtMatmulDescGetAttribute(op, CUBLASLT_MATMUL_DESC_EPILOGUE, &e, sizeof e, &w) != CUBLAS_STATUS_SUCCESS)
    return false;
  return e == CUBLASLT_EPILOGUE_DEFAULT || e == CUBLASLT_EPILOGUE_RELU || e == CUBLASLT_EPILOGUE_BIAS ||
         e == CUBLASLT_EPILOGUE_RELU_BIAS || e == CUBLASLT_EPILOGUE_GELU || e == CUBLASLT_EPILOGUE_GELU_BIAS;
}

}  // namespace detail

// cublasLtMatmul's stand-in. A split chunk runs with no algorithm given (cublasLt picks one for the
// chunk's shape: the program's was chosen for the whole GEMM).
inline cublasStatus_t LtMatmul(cublasLtHandle_t lt, cublasLtMatmulDesc_t op, const void* alpha, const void* A,
                               cublasLtMatrixLayout_t a, const void* B, cublasLtMatrixLayout_t b, const void* beta,
                               const void* C, cublasLtMatrixLayout_t c, void* D, cublasLtMatrixLayout_t d,
                               const cublasLtMatmulAlgo_t* algo, void* workspace, size_t workspace_bytes,
                               cudaStream_t stream) {
  if (!proj::Own() || candidate_detail::SkipGemms()) return detail::SkippedGemm();  // another GPU's; part "comm"
  auto whole = [&] {
    return cublasLtMatmul(lt, op, alpha, A, a, B, b, beta, C, c, D, d, algo, workspace, workspace_bytes, stream);
  };
  if (detail::T().armed != D && !detail::G().kept) return whole();
  const detail::LtLayout dl = detail::ReadLayout(d), cl = detail::ReadLayout(c), bl = detail::ReadLayout(b);
  int32_t tb = CUBLAS_OP_N;
  size_t w = 0;
  if (!dl.ok || !cl.ok || !bl.ok || dl.cols > static_cast<uint64_t>(INT32_MAX) || !detail::SplittableEpilogue(op) ||
      cublasLtMatmulDescGetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb, &w) != CUBLAS_STATUS_SUCCESS)
    return FlushKept() ? whole() : CUBLAS_STATUS_EXECUTION_FAILED;
  const int n = static_cast<int>(dl.cols);
  const size_t be = detail::DataTypeBytes(bl.type), ce = detail::DataTypeBytes(cl.type), de = detail::DataTypeBytes(dl.type);
  const size_t dcol = de * static_cast<size_t>(dl.ld);
  auto part = [&](int c0, int c1) {
    const uint64_t cols = static_cast<uint64_t>(c1 - c0);
    const bool bn = tb == CUBLAS_OP_N;
    detail::OwnedLayout bc(bl, bn ? bl.rows : cols, bn ? cols : bl.cols), cc(cl, cl.rows, cols), dc(dl, dl.rows, cols);
    if (bc.l == nullptr || cc.l == nullptr || dc.l == nullptr) return CUBLAS_STATUS_ALLOC_FAILED;
    return cublasLtMatmul(lt, op, alpha, A, a,
                          detail::BColumn(B, static_cast<cublasOperation_t>(tb), bl.ld, be, c0), bc.l, beta,
                          candidate_detail::At(C, ce * static_cast<size_t>(cl.ld) * static_cast<size_t>(c0)), cc.l,
                          candidate_detail::At(D, dcol * static_cast<size_t>(c0)), dc.l, nullptr, workspace,
                          workspace_bytes, stream);
  };
  if (auto r = OverGather(B, static_cast<cublasOperation_t>(tb), bl.ld, be, n, stream, part)) return *r;
  if (detail::T().armed != D) return whole();
  const int parts = detail::PartsFor(D, static_cast<int>(dl.rows), n, dl.ld);
  if (parts == 1 || static_cast<uint64_t>(cl.ld) != cl.rows) return whole();
  return detail::SplitColumns(D, dcol, n, parts, stream, part);
}

}  // namespace cuco_program::overlap
