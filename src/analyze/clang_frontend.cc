// The libclang front end: parses the .cu file as CUDA host code, finds function definitions and
// the calls in them (known CUDA/NCCL/cuBLAS/MPI APIs and kernel launches).
#include <clang-c/Index.h>
#include <dlfcn.h>
#include <link.h>
#include <unistd.h>

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <regex>
#include <string>

#include <fmt/format.h>

#include "analyze/frontend.h"
#include "analyze/macro_calls.h"
#include "analyze/param_access.h"
#include "analyze/ranges.h"
#include "util/language_standard.h"

namespace cuco::analyze_internal {
namespace {

// libclang is loaded with dlopen, not linked: the cuco binary also runs on machines without
// libclang (GPU machines it is carried to); there `cuco analyze` falls back to the lexical scan.
struct Libclang {
  void* handle = nullptr;  // from dlopen
  decltype(&::clang_Cursor_getArgument) clang_Cursor_getArgument = nullptr;
  decltype(&::clang_Cursor_getNumArguments) clang_Cursor_getNumArguments = nullptr;
  decltype(&::clang_Cursor_isNull) clang_Cursor_isNull = nullptr;
  decltype(&::clang_File_isEqual) clang_File_isEqual = nullptr;
  decltype(&::clang_createIndex) clang_createIndex = nullptr;
  decltype(&::clang_disposeDiagnostic) clang_disposeDiagnostic = nullptr;
  decltype(&::clang_disposeIndex) clang_disposeIndex = nullptr;
  decltype(&::clang_disposeString) clang_disposeString = nullptr;
  decltype(&::clang_disposeTranslationUnit) clang_disposeTranslationUnit = nullptr;
  decltype(&::clang_formatDiagnostic) clang_formatDiagnostic = nullptr;
  decltype(&::clang_getCString) clang_getCString = nullptr;
  decltype(&::clang_getCanonicalType) clang_getCanonicalType = nullptr;
  decltype(&::clang_getCursorDefinition) clang_getCursorDefinition = nullptr;
  decltype(&::clang_equalCursors) clang_equalCursors = nullptr;
  decltype(&::clang_getRangeEnd) clang_getRangeEnd = nullptr;
  decltype(&::clang_getCursorExtent) clang_getCursorExtent = nullptr;
  decltype(&::clang_getCursorKind) clang_getCursorKind = nullptr;
  decltype(&::clang_getCursorLocation) clang_getCursorLocation = nullptr;
  decltype(&::clang_getCursorReferenced) clang_getCursorReferenced = nullptr;
  decltype(&::clang_getCursorSemanticParent) clang_getCursorSemanticParent = nullptr;
  decltype(&::clang_getCursorSpelling) clang_getCursorSpelling = nullptr;
  decltype(&::clang_getCursorType) clang_getCursorType = nullptr;
  decltype(&::clang_getDiagnostic) clang_getDiagnostic = nullptr;
  decltype(&::clang_getChildDiagnostics) clang_getChildDiagnostics = nullptr;
  decltype(&::clang_getDiagnosticInSet) clang_getDiagnosticInSet = nullptr;
  decltype(&::clang_getDiagnosticNumRanges) clang_getDiagnosticNumRanges = nullptr;
  decltype(&::clang_getDiagnosticRange) clang_getDiagnosticRange = nullptr;
  decltype(&::clang_getDiagnosticSpelling) clang_getDiagnosticSpelling = nullptr;
  decltype(&::clang_getDiagnosticFixIt) clang_getDiagnosticFixIt = nullptr;
  decltype(&::clang_getDiagnosticNumFixIts) clang_getDiagnosticNumFixIts = nullptr;
  decltype(&::clang_getNumDiagnosticsInSet) clang_getNumDiagnosticsInSet = nullptr;
  decltype(&::clang_getDiagnosticLocation) clang_getDiagnosticLocation = nullptr;
  decltype(&::clang_getDiagnosticSeverity) clang_getDiagnosticSeverity = nullptr;
  decltype(&::clang_getExpansionLocation) clang_getExpansionLocation = nullptr;
  decltype(&::clang_getFile) clang_getFile = nullptr;
  decltype(&::clang_getFileName) clang_getFileName = nullptr;
  decltype(&::clang_getNumDiagnostics) clang_getNumDiagnostics = nullptr;
  decltype(&::clang_getPointeeType) clang_getPointeeType = nullptr;
  decltype(&::clang_getRangeStart) clang_getRangeStart = nullptr;
  decltype(&::clang_getSkippedRanges) clang_getSkippedRanges = nullptr;
  decltype(&::clang_disposeSourceRangeList) clang_disposeSourceRangeList = nullptr;
  decltype(&::clang_getSpellingLocation) clang_getSpellingLocation = nullptr;
  decltype(&::clang_getTranslationUnitCursor) clang_getTranslationUnitCursor = nullptr;
  decltype(&::clang_isConstQualifiedType) clang_isConstQualifiedType = nullptr;
  decltype(&::clang_isCursorDefinition) clang_isCursorDefinition = nullptr;
  decltype(&::clang_parseTranslationUnit2) clang_parseTranslationUnit2 = nullptr;
  decltype(&::clang_visitChildren) clang_visitChildren = nullptr;
};

#define CUCO_LOAD(name)                                                              \
  do {                                                                                \
    lib.name = reinterpret_cast<decltype(lib.name)>(dlsym(handle, #name));           \
    if (!lib.name) return nullptr;                                                   \
  } while (0)

const Libclang* LoadLibclang(std::string* tried_out) {
  static std::string tried_names;
  static const Libclang* loaded = []() -> const Libclang* {
    std::string* tried = &tried_names;
    static Libclang lib;
    void* handle = nullptr;
    // CUCO_LIBCLANG: a libclang to try first, or "none" for the lexical scanner only.
    const char* env = std::getenv("CUCO_LIBCLANG");
    if (env && std::string(env) == "none") {
      *tried = "none (CUCO_LIBCLANG=none)";
      return nullptr;
    }
    for (const char* name : {env ? env : CUCO_LIBCLANG_PATH, CUCO_LIBCLANG_PATH, "libclang-14.so.1", "libclang-14.so",
                             "libclang.so.1", "libclang.so"}) {
      if ((handle = dlopen(name, RTLD_NOW | RTLD_LOCAL))) break;
      *tried += std::string(*tried).empty() ? name : std::string(", ") + name;
    }
    if (!handle) return nullptr;
    lib.handle = handle;
    CUCO_LOAD(clang_Cursor_getArgument);
    CUCO_LOAD(clang_Cursor_getNumArguments);
    CUCO_LOAD(clang_Cursor_isNull);
    CUCO_LOAD(clang_File_isEqual);
    CUCO_LOAD(clang_createIndex);
    CUCO_LOAD(clang_disposeDiagnostic);
    CUCO_LOAD(clang_disposeIndex);
    CUCO_LOAD(clang_disposeString);
    CUCO_LOAD(clang_disposeTranslationUnit);
    CUCO_LOAD(clang_formatDiagnostic);
    CUCO_LOAD(clang_getCString);
    CUCO_LOAD(clang_getCanonicalType);
    CUCO_LOAD(clang_getCursorDefinition);
    CUCO_LOAD(clang_equalCursors);
    CUCO_LOAD(clang_getRangeEnd);
    CUCO_LOAD(clang_getCursorExtent);
    CUCO_LOAD(clang_getCursorKind);
    CUCO_LOAD(clang_getCursorLocation);
    CUCO_LOAD(clang_getCursorReferenced);
    CUCO_LOAD(clang_getCursorSemanticParent);
    CUCO_LOAD(clang_getCursorSpelling);
    CUCO_LOAD(clang_getCursorType);
    CUCO_LOAD(clang_getDiagnostic);
    CUCO_LOAD(clang_getChildDiagnostics);
    CUCO_LOAD(clang_getDiagnosticInSet);
    CUCO_LOAD(clang_getDiagnosticNumRanges);
    CUCO_LOAD(clang_getDiagnosticRange);
    CUCO_LOAD(clang_getDiagnosticSpelling);
    CUCO_LOAD(clang_getDiagnosticFixIt);
    CUCO_LOAD(clang_getDiagnosticNumFixIts);
    CUCO_LOAD(clang_getNumDiagnosticsInSet);
    CUCO_LOAD(clang_getDiagnosticLocation);
    CUCO_LOAD(clang_getDiagnosticSeverity);
    CUCO_LOAD(clang_getExpansionLocation);
    CUCO_LOAD(clang_getFile);
    CUCO_LOAD(clang_getFileName);
    CUCO_LOAD(clang_getNumDiagnostics);
    CUCO_LOAD(clang_getPointeeType);
    CUCO_LOAD(clang_getRangeStart);
    CUCO_LOAD(clang_getSkippedRanges);
    CUCO_LOAD(clang_disposeSourceRangeList);
    CUCO_LOAD(clang_getSpellingLocation);
    CUCO_LOAD(clang_getTranslationUnitCursor);
    CUCO_LOAD(clang_isConstQualifiedType);
    CUCO_LOAD(clang_isCursorDefinition);
    CUCO_LOAD(clang_parseTranslationUnit2);
    CUCO_LOAD(clang_visitChildren);
    return &lib;
  }();
  *tried_out = tried_names;
  return loaded;
}
#undef CUCO_LOAD

const Libclang* lc = nullptr;  // set by ParseWithClang before any use

std::string Str(CXString s) {
  const char* c = lc->clang_getCString(s);
  std::string out = c ? c : "";
  lc->clang_disposeString(s);
  return out;
}

// `r` as byte offsets [begin, end) of `file`; false where it lies elsewhere or is empty.
bool InFile(CXSourceRange r, CXFile file, size_t* begin, size_t* end) {
  CXFile f1 = nullptr, f2 = nullptr;
  unsigned b = 0, e = 0;
  lc->clang_getSpellingLocation(lc->clang_getRangeStart(r), &f1, nullptr, nullptr, &b);
  lc->clang_getSpellingLocation(lc->clang_getRangeEnd(r), &f2, nullptr, nullptr, &e);
  *begin = b, *end = e;
  return f1 && f2 && lc->clang_File_isEqual(f1, file) && lc->clang_File_isEqual(f2, file) && e > b;
}

// Defines what -nocudainc leaves out and the real headers do not declare.
// The launch hook and built-in variables clang needs in both preludes.
const char* kLaunchAndBuiltins = R"(
extern "C" int __cudaPushCallConfiguration(dim3 grid, dim3 block, size_t smem = 0, void* stream = 0);
extern const __device__ uint3 threadIdx;
extern const __device__ uint3 blockIdx;
extern const __device__ dim3 blockDim;
extern const __device__ dim3 gridDim;
extern const __device__ int warpSize;
)";

const char* kFullPrelude = R"(#pragma once
// device_launch_parameters.h declares the built-in variables for a host compiler (C linkage, no
// __device__), clashing with the prelude's: its guard keeps it out, as clang's own CUDA wrapper does.
#define __DEVICE_LAUNCH_PARAMETERS_H__
#include <cuda_runtime.h>
// cuda_runtime.h's C++ overloads taking a kernel or a __device__ symbol by its own type, declared
// only for nvcc (__CUDACC__): `cudaMemcpyToSymbol(table, h, n)`, `cudaFuncSetAttribute(kernel, ...)`.
template <class T> cudaError_t cudaMemcpyToSymbol(const T& symbol, const void* src, size_t count, size_t offset = 0,
                                                  cudaMemcpyKind kind = cudaMemcpyHostToDevice);
template <class T> cudaError_t cudaMemcpyToSymbolAsync(const T& symbol, const void* src, size_t count, size_t offset = 0,
                                                       cudaMemcpyKind kind = cudaMemcpyHostToDevice, cudaStream_t stream = 0);
template <class T> cudaError_t cudaMemcpyFromSymbol(void* dst, const T& symbol, size_t count, size_t offset = 0,
                                                    cudaMemcpyKind kind = cudaMemcpyDeviceToHost);
template <class T> cudaError_t cudaMemcpyFromSymbolAsync(void* dst, const T& symbol, size_t count, size_t offset = 0,
                                                         cudaMemcpyKind kind = cudaMemcpyDeviceToHost, cudaStream_t stream = 0);
template <class T> cudaError_t cudaGetSymbolAddress(void** devPtr, const T& symbol);
template <class T> cudaError_t cudaGetSymbolSize(size_t* size, const T& symbol);
template <class T> cudaError_t cudaFuncSetAttribute(T* entry, cudaFuncAttribute attr, int value);
template <class T> cudaError_t cudaFuncGetAttributes(cudaFuncAttributes* attr, T* entry);
template <class T> cudaError_t cudaFuncSetCacheConfig(T* func, cudaFuncCache cacheConfig);
template <class T> cudaError_t cudaFuncGetName(const char** name, T* func);
// nvcc's front end knows __noinline__ (no header defines it); empty here, since libstdc++ writes
// __attribute__((__noinline__)) itself, and inlining changes nothing the analysis reads.
#ifndef __noinline__
#define __noinline__
#endif
// nvcc's crt/math_functions.hpp gives host code min and max of two arithmetic values (`max(n, 4)`);
// without __CUDACC__ the real headers leave them out. (std::min/max stay the better match.)
template <class A, class B> __attribute__((host, device)) auto min(A a, B b) -> decltype(a < b ? a : b);
template <class A, class B> __attribute__((host, device)) auto max(A a, B b) -> decltype(a < b ? b : a);
// CUDA's host_defines.h leaves these empty unless __CUDACC__; clang needs the attributes.
#undef __global__
#undef __device__
#undef __host__
#undef __shared__
#undef __constant__
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __host__ __attribute__((host))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
// Kernel launch attributes host_defines.h defines only for nvcc (`__global__ void __launch_bounds__(256, 4)
// k(...)` is otherwise a variable of type void): none changes what the host code calls.
#ifndef __launch_bounds__
#define __launch_bounds__(...)
#endif
#ifndef __cluster_dims__
#define __cluster_dims__(...)
#endif
// Namespaces of device-only headers (mma.h's WMMA) declared only for nvcc: a file-scope
// `using namespace nvcuda::wmma;` or `namespace wmma = nvcuda::wmma;` names them in host code.
namespace nvcuda { namespace wmma { namespace precision {} namespace experimental { namespace precision {} } } }
)";

std::string StubPrelude() {
  std::string s = R"(#pragma once
#include <stddef.h>
#include <stdint.h>
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __host__ __attribute__((host))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __forceinline__ inline __attribute__((always_inline))
#define __noinline__
#define __restrict__ __restrict
#define __launch_bounds__(...)
struct uint3 { unsigned x, y, z; };
struct dim3 { unsigned x, y, z; dim3(unsigned a = 1, unsigned b = 1, unsigned c = 1) : x(a), y(b), z(c) {} };
struct float2 { float x, y; }; struct float4 { float x, y, z, w; }; struct int4 { int x, y, z, w; };
struct __nv_bfloat16 { unsigned short v; }; struct __half { unsigned short v; }; typedef __half half;
struct __nv_bfloat162 { __nv_bfloat16 x, y; }; struct __half2 { __half x, y; };
typedef struct CUstream_st* cudaStream_t; typedef struct CUevent_st* cudaEvent_t;
typedef int cudaError_t; typedef int ncclResult_t; typedef int ncclDataType_t; typedef int ncclRedOp_t;
typedef int cublasStatus_t; typedef int cudaDataType_t; typedef int cudaDataType; typedef int cublasOperation_t;
typedef int cublasComputeType_t; typedef int cublasGemmAlgo_t; typedef int cudaMemcpyKind;
typedef struct ncclComm* ncclComm_t; typedef struct ncclWindow* ncclWindow_t;
typedef struct { char internal[128]; } ncclUniqueId;
typedef struct { int v[16]; } ncclConfig_t; typedef struct { int v[16]; } ncclDevComm; typedef struct { int v[16]; } ncclDevCommRequirements;
typedef struct cublasContext* cublasHandle_t; typedef struct cublasLtContext* cublasLtHandle_t;
typedef struct cublasLtMatmulDescOpaque* cublasLtMatmulDesc_t; typedef struct cublasLtMatrixLayoutOpaque* cublasLtMatrixLayout_t;
typedef struct cublasLtMatmulPreferenceOpaque* cublasLtMatmulPreference_t;
typedef struct { uint64_t data[8]; } cublasLtMatmulAlgo_t;
typedef struct { cublasLtMatmulAlgo_t algo; size_t workspaceSize; int state; float wavesCount; int reserved[4]; } cublasLtMatmulHeuristicResult_t;
typedef int cublasLtMatmulDescAttributes_t; typedef int cublasLtMatmulPreferenceAttributes_t;
typedef int MPI_Comm; typedef int MPI_Datatype; typedef int MPI_Op; typedef int MPI_Info; typedef struct { int s[8]; } MPI_Status;
enum cuco_stub_constant {
  cudaSuccess, cudaMemcpyHostToDevice, cudaMemcpyDeviceToHost, cudaMemcpyDeviceToDevice, cudaMemcpyDefault,
  cudaStreamNonBlocking, cudaStreamDefault, cudaEventDisableTiming, cudaEventDefault, cudaHostAllocDefault,
  ncclSuccess, ncclInt8, ncclChar, ncclUint8, ncclInt32, ncclInt, ncclUint32, ncclInt64, ncclUint64, ncclFloat16,
  ncclHalf, ncclFloat32, ncclFloat, ncclFloat64, ncclDouble, ncclBfloat16, ncclSum, ncclProd, ncclMax, ncclMin, ncclAvg,
  NCCL_WIN_COLL_SYMMETRIC, NCCL_SPLIT_NOCOLOR,
  CUBLAS_STATUS_SUCCESS, CUBLAS_OP_N, CUBLAS_OP_T, CUBLAS_COMPUTE_32F, CUBLAS_COMPUTE_16F, CUBLAS_GEMM_DEFAULT,
  CUBLAS_GEMM_DEFAULT_TENSOR_OP, CUDA_R_16BF, CUDA_R_16F, CUDA_R_32F, CUDA_R_64F, CUDA_R_8I, CUDA_R_32I,
  CUBLASLT_MATMUL_DESC_TRANSA, CUBLASLT_MATMUL_DESC_TRANSB, CUBLASLT_MATMUL_DESC_EPILOGUE, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
  MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, MPI_INFO_NULL, MPI_BYTE, MPI_CHAR, MPI_INT, MPI_DOUBLE, MPI_FLOAT, MPI_UINT64_T,
  MPI_INT64_T, MPI_SUM, MPI_MIN, MPI_MAX, MPI_THREAD_MULTIPLE, MPI_STATUS_IGNORE, MPI_SUCCESS
};
#define NCCL_CONFIG_INITIALIZER {}
#define NCCL_DEV_COMM_REQUIREMENTS_INITIALIZER {}
#define NCCL_VERSION_CODE 22809
)" + std::string(kLaunchAndBuiltins) + R"(// Every API: any arguments, an int result (statuses compare with the enum above).
)";
  for (const auto& api : KnownApis()) s += fmt::format("template <class... T> __host__ __device__ inline int {}(T&&...) {{ return 0; }}\n", api);
  for (const char* other :
       {"cudaGetErrorString", "cudaSetDevice", "cudaGetDevice", "cudaGetDeviceCount", "cudaGetLastError",
        "cudaPeekAtLastError", "cudaMemset", "cudaMemsetAsync", "cudaEventElapsedTime", "cudaEventSynchronize",
        "cudaStreamDestroy", "cudaEventDestroy", "cudaFree", "cudaFreeAsync", "cudaFreeHost", "cudaMemcpyToSymbol",
        "ncclGetErrorString", "ncclCommDestroy", "ncclCommFinalize", "ncclCommCount", "ncclCommUserRank",
        "ncclMemFree", "ncclCommWindowDeregister", "ncclDevCommDestroy", "ncclGetVersion",
        "cublasCreate", "cublasDestroy", "cublasLtCreate", "cublasLtDestroy", "cublasGetStatusString",
        "cublasLtGetStatusString", "cublasLtMatmulDescCreate", "cublasLtMatmulDescDestroy",
        "cublasLtMatmulDescSetAttribute", "cublasLtMatrixLayoutCreate", "cublasLtMatrixLayoutDestroy",
        "cublasLtMatmulPreferenceCreate", "cublasLtMatmulPreferenceDestroy", "cublasLtMatmulPreferenceSetAttribute",
        "cublasLtMatmulAlgoGetHeuristic", "MPI_Comm_rank", "MPI_Comm_size", "MPI_Comm_split_type", "MPI_Comm_free",
        "MPI_Abort", "MPI_Bcast", "MPI_Allreduce", "MPI_Allgather", "MPI_Send", "MPI_Recv", "MPI_Wtime",
        "atomicAdd", "atomicMax", "atomicMin", "atomicCAS", "__syncthreads", "__float2bfloat16", "__bfloat162float",
        "__float2half", "__float2bfloat16_rn", "__bfloat162float_rn", "__half2float", "__double_as_longlong", "__longlong_as_double", "__shfl_sync",
        "__shfl_xor_sync", "__shfl_down_sync", "__threadfence", "__threadfence_system", "__ldg"})
    if (!IsKnownApi(other))
      s += fmt::format("template <class... T> __host__ __device__ inline int {}(T&&...) {{ return 0; }}\n", other);
  return s;
}

struct VisitState {
  CXFile main_file = nullptr;
  const std::string* text = nullptr;
  const std::string* blank = nullptr;
  std::string function;
  std::string record;  // the class `function` is a member of ("" for a free function)
  FrontEndResult* out = nullptr;
};

bool InMainFile(CXCursor c, CXFile main_file, unsigned* line, unsigned* offset, bool spelling) {
  CXSourceLocation loc = spelling ? lc->clang_getRangeStart(lc->clang_getCursorExtent(c)) : lc->clang_getCursorLocation(c);
  CXFile f = nullptr;
  unsigned l = 0, col = 0, off = 0;
  if (spelling) lc->clang_getSpellingLocation(loc, &f, &l, &col, &off);
  else lc->clang_getExpansionLocation(loc, &f, &l, &col, &off);
  if (!f || !lc->clang_File_isEqual(f, main_file)) return false;
  if (line) *line = l;
  if (offset) *offset = off;
  return true;
}

// How the kernel `def` (a definition in the main file) uses each of its pointer parameters, from
// every reference to one in its body (param_access.h); into out->read_params / written_params.
void KernelParamAccess(CXCursor def, const VisitState& st, RawCall* out) {
  struct Walk {
    const VisitState* st;
    std::vector<CXCursor> params;
    std::vector<ParamAccess> access;
    std::vector<bool> seen;
    bool ok = true;
  } w{&st, {}, {}, {}};
  const int n = lc->clang_Cursor_getNumArguments(def);
  for (int i = 0; i < n; ++i) w.params.push_back(lc->clang_Cursor_getArgument(def, i));
  w.access.resize(w.params.size());
  w.seen.resize(w.params.size());
  lc->clang_visitChildren(
      def,
      [](CXCursor c, CXCursor, CXClientData d) {
        auto* w = static_cast<Walk*>(d);
        if (lc->clang_getCursorKind(c) != CXCursor_DeclRefExpr) return CXChildVisit_Recurse;
        CXCursor ref = lc->clang_getCursorReferenced(c);
        for (size_t i = 0; i < w->params.size(); ++i) {
          if (!lc->clang_equalCursors(ref, w->params[i])) continue;
          w->seen[i] = true;
          CXSourceRange r = lc->clang_getCursorExtent(c);
          CXFile f1 = nullptr, f2 = nullptr;
          unsigned b = 0, e = 0;
          lc->clang_getSpellingLocation(lc->clang_getRangeStart(r), &f1, nullptr, nullptr, &b);
          lc->clang_getSpellingLocation(lc->clang_getRangeEnd(r), &f2, nullptr, nullptr, &e);
          if (!f1 || !lc->clang_File_isEqual(f1, w->st->main_file)) w->ok = false;  // from a macro elsewhere
          else w->access[i] |= AccessAt(*w->st->blank, b, e);
        }
        return CXChildVisit_Continue;
      },
      &w);
  if (!w.ok) return;
  out->param_access_known = true;
  for (size_t i = 0; i < w.access.size(); ++i) {
    // A parameter the body never names (an empty body, a stub): its type decides, as without the body.
    const bool unseen = !w.seen[i];
    if (w.access[i].read || unseen) out->read_params.push_back(static_cast<int>(i));
    if (w.access[i].write || unseen) out->written_params.push_back(static_cast<int>(i));
  }
  // The rows each pointer parameter is read and written in, from the body's text (ranges.h).
  for (const CXCursor& p : w.params) out->kernel_params.push_back(Str(lc->clang_getCursorSpelling(p)));
  const CXSourceRange ext = lc->clang_getCursorExtent(def);
  unsigned b = 0, e = 0;
  lc->clang_getSpellingLocation(lc->clang_getRangeStart(ext), nullptr, nullptr, nullptr, &b);
  lc->clang_getSpellingLocation(lc->clang_getRangeEnd(ext), nullptr, nullptr, nullptr, &e);
  for (size_t i = 0; i < w.params.size() && e > b; ++i) {
    const std::string& name = out->kernel_params[i];
    if (auto r = KernelParamRange(*st.blank, b, e, name, out->kernel_params, true)) out->write_ranges[static_cast<int>(i)] = {r->lo, r->hi};
    if (auto r = KernelParamRange(*st.blank, b, e, name, out->kernel_params, false)) out->read_ranges[static_cast<int>(i)] = {r->lo, r->hi};
  }
}

void KernelParamTypes(CXCursor call, const VisitState& st, RawCall* out) {
  CXCursor decl = lc->clang_getCursorReferenced(call);
  if (lc->clang_Cursor_isNull(decl)) return;
  int n = lc->clang_Cursor_getNumArguments(decl);
  if (n < 0 || n != static_cast<int>(out->args.size())) return;
  out->param_types_known = true;
  CXCursor def = lc->clang_getCursorDefinition(decl);
  if (!lc->clang_Cursor_isNull(def) && InMainFile(def, st.main_file, nullptr, nullptr, false) &&
      lc->clang_Cursor_getNumArguments(def) == n)
    KernelParamAccess(def, st, out);
  for (int i = 0; i < n; ++i) {
    CXType t = lc->clang_getCanonicalType(lc->clang_getCursorType(lc->clang_Cursor_getArgument(decl, i)));
    if (t.kind == CXType_Pointer) {
      out->pointer_params.push_back(i);
      if (lc->clang_isConstQualifiedType(lc->clang_getPointeeType(t))) out->const_pointer_params.push_back(i);
    } else if (t.kind == CXType_Unexposed || t.kind == CXType_Invalid || t.kind == CXType_Dependent) {
      out->pointer_params.push_back(i);  // a template parameter: could be a pointer
    }
  }
}

// The class or struct whose member function `fn` is (its name in *record, its data members in
// (*fields)[record]); nothing for a free function.
void RecordOf(CXCursor fn, std::string* record, std::map<std::string, std::vector<std::string>>* fields) {
  const CXCursor parent = lc->clang_getCursorSemanticParent(fn);
  const CXCursorKind k = lc->clang_getCursorKind(parent);
  if (k != CXCursor_ClassDecl && k != CXCursor_StructDecl && k != CXCursor_ClassTemplate) return;
  *record = Str(lc->clang_getCursorSpelling(parent));
  if (record->empty() || fields->count(*record)) return;
  std::vector<std::string>& names = (*fields)[*record];
  lc->clang_visitChildren(
      parent,
      [](CXCursor m, CXCursor, CXClientData d) {
        if (lc->clang_getCursorKind(m) == CXCursor_FieldDecl)
          static_cast<std::vector<std::string>*>(d)->push_back(Str(lc->clang_getCursorSpelling(m)));
        return CXChildVisit_Continue;
      },
      &names);
}

// The member a method's body returns as its one statement (`{ return stream_; }`, `{ return
// this->m_stream; }`), from the main file's blanked text; "" for any other body.
std::string GetterMember(CXCursor def, const VisitState& st) {
  const CXSourceRange ext = lc->clang_getCursorExtent(def);
  unsigned b = 0, e = 0;
  lc->clang_getSpellingLocation(lc->clang_getRangeStart(ext), nullptr, nullptr, nullptr, &b);
  lc->clang_getSpellingLocation(lc->clang_getRangeEnd(ext), nullptr, nullptr, nullptr, &e);
  if (e <= b || e > st.blank->size()) return "";
  const std::string text = st.blank->substr(b, e - b);
  static const std::regex getter(R"(\{\s*return\s+(?:this\s*->\s*)?([A-Za-z_]\w*)\s*;\s*\}\s*$)");
  std::smatch m;
  return std::regex_search(text, m, getter) ? m[1].str() : "";
}

CXChildVisitResult Visit(CXCursor c, CXCursor, CXClientData data) {
  auto* st = static_cast<VisitState*>(data);
  CXCursorKind k = lc->clang_getCursorKind(c);
  if ((k == CXCursor_FunctionDecl || k == CXCursor_CXXMethod || k == CXCursor_FunctionTemplate ||
       k == CXCursor_Constructor || k == CXCursor_Destructor) &&
      lc->clang_isCursorDefinition(c) && st->function.empty()) {
    unsigned line = 0;
    if (!InMainFile(c, st->main_file, &line, nullptr, false)) return CXChildVisit_Continue;
    std::string saved = st->function;
    st->function = Str(lc->clang_getCursorSpelling(c));
    AnalyzedFunction fn{st->function, "", static_cast<int>(line), {}, "", ""};
    lc->clang_visitChildren(
        c,
        [](CXCursor p, CXCursor, CXClientData d) {
          if (lc->clang_getCursorKind(p) == CXCursor_ParmDecl)
            static_cast<std::vector<std::string>*>(d)->push_back(Str(lc->clang_getCursorSpelling(p)));
          return CXChildVisit_Continue;
        },
        &fn.params);
    RecordOf(c, &fn.record, &st->out->record_fields);
    if (k == CXCursor_CXXMethod && fn.params.empty()) fn.returns_member = GetterMember(c, *st);
    const std::string saved_record = st->record;
    st->record = fn.record;
    st->out->functions.push_back(std::move(fn));
    lc->clang_visitChildren(c, Visit, data);
    st->function = saved;
    st->record = saved_record;
    return CXChildVisit_Continue;
  }
  if (k == CXCursor_CallExpr && !st->function.empty()) {
    std::string name = Str(lc->clang_getCursorSpelling(c));
    unsigned line = 0, offset = 0;
    // A member call clang cannot resolve in a template (`matrixA->wait()` on a MatrixMain<T>*) has
    // no spelling: the name the source calls, after the object.
    if (name.empty() && InMainFile(c, st->main_file, nullptr, &offset, true)) name = DependentCallee(*st->blank, offset);
    if (!name.empty() && name.rfind("__cuda", 0) != 0 && InMainFile(c, st->main_file, &line, nullptr, false) &&
        InMainFile(c, st->main_file, nullptr, &offset, true)) {
      std::string read_name;
      std::vector<std::string> config, args;
      size_t end = 0;
      // cuBLAS's v2 API: `cublasSgemm` as written is cublasSgemm_v2 once cublas_v2.h's macro expands.
      bool read = ReadCallAt(*st->blank, offset, &read_name, &config, &args, &end) &&
                  (read_name == name || read_name + "_v2" == name);
      if (!read) {  // a member call (`fc1.forward(...)`, `p->step(...)`): the cursor starts at the object
        const std::string& b = *st->blank;
        for (size_t at = b.find(name, offset); at != std::string::npos && at < offset + 512; at = b.find(name, at + 1)) {
          const bool member = at > 0 && (b[at - 1] == '.' || b[at - 1] == '>');
          const bool word_end = at + name.size() >= b.size() || !(std::isalnum(static_cast<unsigned char>(b[at + name.size()])) ||
                                                                   b[at + name.size()] == '_');
          if (!member || !word_end) continue;
          read = ReadCallAt(b, at, &read_name, &config, &args, &end) && read_name == name;
          if (read) offset = static_cast<unsigned>(at);
          break;
        }
      }
      if (!read) {  // `NCCL_GROUP({ ... });`: the group's start and end in the macro's replacement
        const size_t at = MacroBodyCallWithoutArguments(*st->blank, offset, name);
        if (at != std::string::npos) read = true, read_name = name, config.clear(), args.clear(), offset = static_cast<unsigned>(at), end = at;
      }
      unsigned use = 0;  // `LAUNCH(sgd_k, n, w, g)`: a call the macro's replacement makes of its arguments
      std::string macro;
      if (!read && InMainFile(c, st->main_file, nullptr, &use, false) &&
          MacroExpandedCall(*st->blank, use, name, &macro, &config, &args))
        read = true, read_name = name, offset = use, end = use;
      if (read) {
        name = read_name;
        RawCall call;
        call.user_call = !IsKnownApi(name) && config.empty();
        call.function = st->function;
        call.record = st->record;
        call.callee = name;
        call.line = static_cast<int>(line);
        call.offset = offset;
        call.macro = macro;
        call.kernel_launch = !config.empty();
        std::string n2;
        std::vector<std::string> c2, a2;
        size_t e2 = 0;
        if (ReadCallAt(*st->text, offset, &n2, &c2, &a2, &e2) && e2 == end) config = c2, args = a2;
        call.args = args;
        call.config = config;
        if (call.kernel_launch) KernelParamTypes(c, *st, &call);
        st->out->calls.push_back(std::move(call));
      }
    }
  }
  return CXChildVisit_Recurse;
}

// The unit's device code, as byte ranges of their files (the program's headers too): functions
// marked __global__, or __device__ and not __host__. Parsed host-only without CUDA's device headers, their calls to device builtins
// (fmaxf, __expf, __half2float) are errors that say nothing of the host code cuco analyses.
struct FileRange {
  CXFile file = nullptr;
  unsigned begin = 0, end = 0;
};
std::vector<FileRange> DeviceCode(CXTranslationUnit tu) {
  struct Walk {
    std::vector<FileRange> ranges;
  } w;
  lc->clang_visitChildren(
      lc->clang_getTranslationUnitCursor(tu),
      [](CXCursor c, CXCursor, CXClientData d) {
        Walk& w = *static_cast<Walk*>(d);
        const CXCursorKind k = lc->clang_getCursorKind(c);
        if (k != CXCursor_FunctionDecl && k != CXCursor_FunctionTemplate && k != CXCursor_CXXMethod)
          return k == CXCursor_Namespace || k == CXCursor_ClassDecl || k == CXCursor_StructDecl ||
                         k == CXCursor_ClassTemplate || k == CXCursor_UnexposedDecl
                     ? CXChildVisit_Recurse
                     : CXChildVisit_Continue;
        int attrs = 0;  // 1: device, 2: global, 4: host
        lc->clang_visitChildren(
            c,
            [](CXCursor a, CXCursor, CXClientData d) {
              const CXCursorKind ak = lc->clang_getCursorKind(a);
              *static_cast<int*>(d) |= ak == CXCursor_CUDADeviceAttr ? 1 : ak == CXCursor_CUDAGlobalAttr ? 2
                                       : ak == CXCursor_CUDAHostAttr ? 4 : 0;
              return CXChildVisit_Continue;
            },
            &attrs);
        if (!(attrs & 2) && (attrs & 5) != 1) return CXChildVisit_Continue;
        const CXSourceRange extent = lc->clang_getCursorExtent(c);
        CXFile file = nullptr;
        lc->clang_getSpellingLocation(lc->clang_getRangeStart(extent), &file, nullptr, nullptr, nullptr);
        size_t b = 0, e = 0;
        if (file && InFile(extent, file, &b, &e))
          w.ranges.push_back({file, static_cast<unsigned>(b), static_cast<unsigned>(e)});
        return CXChildVisit_Continue;
      },
      &w);
  return w.ranges;
}

std::string WriteStubDir(const std::string& prelude_full, std::string* dir_out) {
  char tmpl[] = "/tmp/cuco-analyze-XXXXXX";
  if (!mkdtemp(tmpl)) return "";
  std::string dir = tmpl;
  *dir_out = dir;
  std::filesystem::create_directories(dir + "/stub");
  std::ofstream(dir + "/full_prelude.h") << prelude_full;
  std::ofstream(dir + "/stub/cuco_stub.h") << StubPrelude();
  for (const char* h : {"cuda_runtime.h", "cuda_runtime_api.h", "cuda.h", "cuda_bf16.h", "cuda_fp16.h", "cuda_fp8.h",
                        "nccl.h", "nccl_device.h", "cublas_v2.h", "cublas_api.h", "cublasLt.h", "mpi.h",
                        "cooperative_groups.h", "curand_kernel.h", "cuda/atomic", "cuda/barrier"}) {
    std::filesystem::create_directories(std::filesystem::path(dir + "/stub/" + h).parent_path());
    std::ofstream(dir + "/stub/" + h) << "#pragma once\n#include \"" << (std::string(h).find('/') != std::string::npos ? "../" : "")
                                      << "cuco_stub.h\"\n";
  }
  return dir;
}

// The errors clang reported parsing a translation unit (those in the main file's device code are
// not: it is not analysed), the first fatal one and the first of all. Errors in the CUDA toolkit's
// own headers (thrust, CUB and libcu++ under include/cccl, cooperative_groups: device code, PTX asm
// and intrinsics a host-only parse cannot take) are counted apart: they leave the program's calls typed.
struct ClangErrors {
  int errors = 0, fatals = 0, main_errors = 0, toolkit_errors = 0;
  std::string first_fatal, first_error, first_main_error;
};

// Whether `file` lies in the CUDA toolkit's include folder: one of its folders up holds
// cuda_runtime_api.h (`/usr/local/cuda/include/cccl/cub/util_ptx.cuh`).
bool InCudaToolkit(CXFile file) {
  if (!file) return false;
  static std::mutex mu;
  static std::map<std::string, bool> known;  // folder -> answer
  const std::filesystem::path dir = std::filesystem::path(Str(lc->clang_getFileName(file))).parent_path();
  std::lock_guard<std::mutex> lock(mu);
  auto [it, added] = known.emplace(dir.string(), false);
  if (!added) return it->second;
  for (std::filesystem::path d = dir; !d.empty() && d != d.root_path(); d = d.parent_path()) {
    std::error_code ec;
    if (std::filesystem::exists(d / "cuda_runtime_api.h", ec)) return it->second = true;
  }
  return false;
}

// Whether clang's error `spelling` is one g++ and nvcc do not make: GNU extensions they accept
// (`int devs[nDev] = {0, 1};`, an initialised variable-length array, in NCCL's examples' habits).
bool AcceptedByGccAndNvcc(const std::string& spelling) {
  static const char* const kAccepted[] = {"variable-sized object may not be initialized"};
  for (const char* a : kAccepted)
    if (spelling.find(a) != std::string::npos) return true;
  return false;
}

ClangErrors CountClangErrors(CXTranslationUnit tu, CXFile main_file) {
  ClangErrors r;
  const std::vector<FileRange> device = DeviceCode(tu);
  for (unsigned i = 0, n = lc->clang_getNumDiagnostics(tu); i < n; ++i) {
    CXDiagnostic d = lc->clang_getDiagnostic(tu, i);
    CXDiagnosticSeverity sev = lc->clang_getDiagnosticSeverity(d);
    CXFile f = nullptr;
    unsigned at = 0;
    lc->clang_getSpellingLocation(lc->clang_getDiagnosticLocation(d), &f, nullptr, nullptr, &at);
    const bool in_main = f && main_file && lc->clang_File_isEqual(f, main_file);
    bool in_device = false;
    for (const FileRange& range : device)
      in_device |= f && at >= range.begin && at <= range.end && lc->clang_File_isEqual(f, range.file);
    if (sev == CXDiagnostic_Error && in_device) sev = CXDiagnostic_Warning;  // device code: not analysed
    if (sev == CXDiagnostic_Error && AcceptedByGccAndNvcc(Str(lc->clang_getDiagnosticSpelling(d)))) sev = CXDiagnostic_Warning;
    if (sev >= CXDiagnostic_Error && sev != CXDiagnostic_Fatal && InCudaToolkit(f)) {
      ++r.toolkit_errors;
    } else if (sev >= CXDiagnostic_Error) {
      std::string msg = Str(lc->clang_formatDiagnostic(d, CXDiagnostic_DisplaySourceLocation));
      ++r.errors;
      if (in_main && r.main_errors++ == 0) r.first_main_error = msg;
      if (sev == CXDiagnostic_Fatal) {
        ++r.fatals;
        if (r.first_fatal.empty()) r.first_fatal = msg;
      }
      if (r.first_error.empty()) r.first_error = msg;
    }
    lc->clang_disposeDiagnostic(d);
  }
  return r;
}

// libclang's arguments for parsing a file of the program: CUDA host code as C++17 at least, cuco's
// prelude (the real headers, or the stubs of `dir`), then the program's own flags.
std::vector<std::string> ClangArgs(const AnalyzeOptions& o, bool stub, const std::string& dir) {
  std::vector<std::string> args = {"-x", "cuda", "--cuda-host-only", "-nocudainc", "-nocudalib",
                                   "--cuda-gpu-arch=sm_80", "-std=c++17", "-Wno-unknown-cuda-version",
                                   // what g++ and nvcc take and clang refuses by default: a constexpr function
                                   // returning Open MPI's MPI_DOUBLE (an address), never constant (ParRes Kernels)
                                   "-Wno-invalid-constexpr",
                                   "-ferror-limit=0", "-DOMPI_SKIP_MPICXX=1"};
  if (stub) {
    args.push_back("-I" + dir + "/stub");
    args.push_back("-include");
    args.push_back(dir + "/stub/cuco_stub.h");
  } else {
    for (const auto& d : o.include_dirs) args.push_back("-I" + d);
    args.push_back("-include");
    args.push_back(dir + "/full_prelude.h");
  }
  // A standard older than C++17 is read as C++17, as the harness builds it: CUDA 13's CUB and Thrust
  // refuse anything older, which left their headers untyped.
  for (const auto& f : o.program_flags) args.push_back(AtLeastCpp17(f, /*nvcc_spelling=*/false));
  return args;
}

// The unit clang parses for `path` (its includer's where it is included: AnalyzeOptions::included_from),
// and the files it reads from memory (AnalyzeOptions::unsaved).
struct ClangUnit {
  std::string path;
  std::vector<CXUnsavedFile> unsaved;
};
ClangUnit UnitOf(const std::string& path, const AnalyzeOptions& o) {
  ClangUnit u;
  const auto includer = o.included_from.find(path);
  u.path = includer == o.included_from.end() ? path : includer->second;
  for (const auto& [name, text] : o.unsaved)
    u.unsaved.push_back({name.c_str(), text.c_str(), static_cast<unsigned long>(text.size())});
  return u;
}

// A unit libclang parsed for a file of the program, with the folder of cuco's preludes its arguments
// name; the unit, its index and the folder go with it. `error` says why there is no unit (`tu` null),
// or why the unit lacks the file (`file` null).
struct ParsedUnit {
  CXIndex index = nullptr;
  CXTranslationUnit tu = nullptr;
  CXFile file = nullptr;  // the file asked for, in tu
  std::string dir;        // the preludes' folder
  std::string error;
  ParsedUnit() = default;
  ParsedUnit(const ParsedUnit&) = delete;
  ParsedUnit& operator=(const ParsedUnit&) = delete;
  ~ParsedUnit() {
    if (tu) lc->clang_disposeTranslationUnit(tu);
    if (index) lc->clang_disposeIndex(index);
    std::error_code ec;
    if (!dir.empty()) std::filesystem::remove_all(dir, ec);
  }
};

// `path` parsed by libclang (in its includer's unit where it is included: UnitOf), with cuco's
// arguments (ClangArgs), then `extra_args`; `flags` are libclang's parse options.
std::unique_ptr<ParsedUnit> ParseUnit(const std::string& path, const AnalyzeOptions& o, bool stub,
                                      const std::vector<std::string>& extra_args, unsigned flags) {
  auto u = std::make_unique<ParsedUnit>();
  std::string tried;
  if (!(lc = LoadLibclang(&tried))) {
    u->error = "libclang-14 could not be loaded (install libclang-14-dev; tried " + (tried.empty() ? std::string("?") : tried) + ")";
    return u;
  }
  if (WriteStubDir(std::string(kFullPrelude) + kLaunchAndBuiltins, &u->dir).empty()) {
    u->error = "cannot create a temporary folder";
    return u;
  }
  std::vector<std::string> args = ClangArgs(o, stub, u->dir);
  args.insert(args.end(), extra_args.begin(), extra_args.end());
  std::vector<const char*> argv;
  for (const auto& a : args) argv.push_back(a.c_str());
  u->index = lc->clang_createIndex(0, 0);
  ClangUnit cu = UnitOf(path, o);
  const CXErrorCode ec = lc->clang_parseTranslationUnit2(u->index, cu.path.c_str(), argv.data(), static_cast<int>(argv.size()),
                                                         cu.unsaved.data(), static_cast<unsigned>(cu.unsaved.size()), flags, &u->tu);
  if (ec != CXError_Success || !u->tu) {
    u->tu = nullptr;
    u->error = fmt::format("libclang could not parse (error code {})", static_cast<int>(ec));
  } else if (!(u->file = lc->clang_getFile(u->tu, path.c_str()))) {
    u->error = cu.path + " does not include " + path + " in this build";
  }
  return u;
}

}  // namespace

FrontEndResult ParseWithClang(const std::string& path, const std::string& text, const AnalyzeOptions& o, bool stub,
                              std::string* path_name) {
  FrontEndResult r;
  *path_name = stub ? "clang-stub" : "clang";
  // The detailed record keeps what the preprocessor skipped (clang_getSkippedRanges).
  const std::unique_ptr<ParsedUnit> u = ParseUnit(path, o, stub, {}, CXTranslationUnit_DetailedPreprocessingRecord);
  CXTranslationUnit tu = u->tu;
  CXFile main_file = u->file;
  if (!u->error.empty()) {
    r.error = u->error;
  } else {
    const ClangErrors diag = CountClangErrors(tu, main_file);
    const int errors = diag.errors, fatals = diag.fatals, main_errors = diag.main_errors;
    const std::string& first_fatal = diag.first_fatal;
    const std::string& first_error = diag.first_error;
    if (fatals > 0) {
      r.error = "fatal: " + first_fatal;
    } else {
      // Code of the file the preprocessor skipped in this build (`#ifdef MPI_SUPPORT` without it).
      if (CXSourceRangeList* skipped = lc->clang_getSkippedRanges(tu, main_file)) {
        for (unsigned i = 0; i < skipped->count; ++i)
          if (size_t b = 0, e = 0; InFile(skipped->ranges[i], main_file, &b, &e)) r.skipped.push_back({b, e});
        lc->clang_disposeSourceRangeList(skipped);
      }
      VisitState st;
      st.main_file = main_file;
      const std::string uncommented = BlankComments(text);  // a call's arguments: `/*send*/ buf` is `buf`
      st.text = &uncommented;
      std::string blank = BlankCommentsAndLiteralContents(text);
      st.blank = &blank;
      st.out = &r;
      lc->clang_visitChildren(lc->clang_getTranslationUnitCursor(tu), Visit, &st);
      if (r.functions.empty()) {
        r.error = "clang found no function definition" + (first_error.empty() ? "" : " (first error: " + first_error + ")");
      } else {
        r.ok = true;
        r.first_file_error = diag.first_main_error;
        if (errors > 0)
          r.warnings.push_back(fmt::format(
              "{}: {} clang error(s) in host code, {} in the analysed file; calls in statements clang could not "
              "type-check may be missing. First: {}",
              *path_name, errors, main_errors, first_error));
      }
    }
  }
  return r;
}

namespace {

// `d` with its ranges and fixes that lie in `file` as byte offsets, and its notes the same way.
FileDiagnostic InFile(CXDiagnostic d, CXFile file) {
  FileDiagnostic out;
  out.message = Str(lc->clang_getDiagnosticSpelling(d));
  size_t b = 0, e = 0;
  for (unsigned i = 0, n = lc->clang_getDiagnosticNumRanges(d); i < n; ++i)
    if (InFile(lc->clang_getDiagnosticRange(d, i), file, &b, &e)) out.ranges.push_back({b, e});
  for (unsigned i = 0, n = lc->clang_getDiagnosticNumFixIts(d); i < n; ++i) {
    CXSourceRange r;
    std::string text = Str(lc->clang_getDiagnosticFixIt(d, i, &r));
    if (InFile(r, file, &b, &e)) out.fixits.push_back({b, e, std::move(text)});
  }
  if (CXDiagnosticSet notes = lc->clang_getChildDiagnostics(d))
    for (unsigned i = 0, n = lc->clang_getNumDiagnosticsInSet(notes); i < n; ++i) {
      CXDiagnostic note = lc->clang_getDiagnosticInSet(notes, i);
      out.notes.push_back(InFile(note, file));
      lc->clang_disposeDiagnostic(note);
    }
  return out;
}

}  // namespace

std::vector<FileDiagnostic> ClangErrorsIn(const std::string& path, const std::string& text, const AnalyzeOptions& o) {
  std::vector<FileDiagnostic> out;
  AnalyzeOptions with_text = o;
  with_text.unsaved[path] = text;
  // "did you mean 'S::NAME'" (libclang leaves spell checking off), for every error: those in headers
  // would use up the default's 50.
  const std::unique_ptr<ParsedUnit> u =
      ParseUnit(path, with_text, /*stub=*/false, {"-fspell-checking", "-fspell-checking-limit=0"}, CXTranslationUnit_None);
  if (!u->error.empty()) return out;
  for (unsigned i = 0, n = lc->clang_getNumDiagnostics(u->tu); i < n; ++i) {
    CXDiagnostic d = lc->clang_getDiagnostic(u->tu, i);
    CXFile at = nullptr;
    lc->clang_getSpellingLocation(lc->clang_getDiagnosticLocation(d), &at, nullptr, nullptr, nullptr);
    if (lc->clang_getDiagnosticSeverity(d) == CXDiagnostic_Error && at && lc->clang_File_isEqual(at, u->file))
      out.push_back(InFile(d, u->file));
    lc->clang_disposeDiagnostic(d);
  }
  return out;
}

}  // namespace cuco::analyze_internal

namespace cuco {

LibclangStatus DetectLibclang() {
  LibclangStatus st;
  const analyze_internal::Libclang* lib = analyze_internal::LoadLibclang(&st.tried);
  if (!lib) return st;
  st.found = true;
  st.tried.clear();
  link_map* map = nullptr;
  if (dlinfo(lib->handle, RTLD_DI_LINKMAP, &map) == 0 && map && map->l_name) st.path = map->l_name;
  using VersionFn = CXString (*)();
  using CStringFn = const char* (*)(CXString);
  using DisposeFn = void (*)(CXString);
  auto version = reinterpret_cast<VersionFn>(dlsym(lib->handle, "clang_getClangVersion"));
  auto cstring = reinterpret_cast<CStringFn>(dlsym(lib->handle, "clang_getCString"));
  auto dispose = reinterpret_cast<DisposeFn>(dlsym(lib->handle, "clang_disposeString"));
  if (version && cstring && dispose) {
    CXString v = version();
    if (const char* text = cstring(v)) st.version = text;
    dispose(v);
  }
  return st;
}

}  // namespace cuco
