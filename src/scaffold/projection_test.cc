#include "scaffold/projection.h"

#include <gtest/gtest.h>

namespace cuco::scaffold_internal {
namespace {

constexpr const char kGuard[] = "if (!cuco_program::proj::Own()) {} else ";

TEST(ProjectionTest, GuardsEveryLaunchWrittenAsAStatement) {
  const std::string text =
      "void f(cudaStream_t s, bool c) {\n"
      "  k<<<1, 2, 0, s>>>(x);\n"
      "  if (c) t<float, 4><<<g, b>>>(y);\n"
      "  else ns::z<<<1, 1>>>();\n"
      "  int shifted = a << 3;  // k<<<1,1>>>() in a comment\n"
      "}\n";
  Result<std::string> out = GuardLaunches("main.cu", text);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_NE(out->find(std::string(kGuard) + "k<<<1, 2, 0, s>>>(x);"), std::string::npos) << *out;
  EXPECT_NE(out->find(std::string("if (c) ") + kGuard + "t<float, 4><<<g, b>>>(y);"), std::string::npos) << *out;
  EXPECT_NE(out->find(std::string("else ") + kGuard + "ns::z<<<1, 1>>>();"), std::string::npos) << *out;
  EXPECT_NE(out->find("int shifted = a << 3;  // k<<<1,1>>>() in a comment"), std::string::npos) << *out;
}

TEST(ProjectionTest, RefusesALaunchInsideAnExpressionNamingItsLine) {
  Result<std::string> out = GuardLaunches("main.cu", "void f() {\n  CHECK_LAUNCH(k<<<1, 1>>>(x));\n}\n");
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("main.cu:2"), std::string::npos) << out.status().ToString();
  EXPECT_FALSE(GuardLaunches("a.cu", "void f() { (void)k<<<1, 1>>>(); }").ok());
}

TEST(ProjectionTest, GuardsTheCallsTheProgramMakes) {
  const std::string code =
      "cudaSetDevice(i); cudaMalloc(&p, n); cublasSgemm(h, a); cublasLtMatmul(lt, d); cudaMemcpy(p, h, n, k);\n"
      "ncclAllReduce(a, b, n, ncclFloat, ncclSum, comms[i], s); ncclGroupStart(); cudaStreamCreate(&s);\n"
      "// cudaMemset(p, 0, n) in a comment is not a call\n";
  const std::string candidate = ProjectionGuards(code, false);
  // The candidate side's GEMMs are cuco's stand-ins (candidate_shims.h), which guard themselves; the
  // reference's are cuBLAS's own, guarded.
  EXPECT_EQ(candidate.find("cublasSgemm"), std::string::npos) << candidate;
  EXPECT_EQ(candidate.find("cublasLtMatmul"), std::string::npos) << candidate;
  const std::string reference = ProjectionGuards(code, true);
  EXPECT_NE(reference.find("#include <cublas_v2.h>"), std::string::npos) << reference;
  EXPECT_NE(reference.find("#include <cublasLt.h>"), std::string::npos) << reference;
  EXPECT_NE(reference.find("#ifdef cublasSgemm\n#define cublasSgemm_v2(...) CUCO_PROGRAM_GUARD(cublasSgemm_v2, __VA_ARGS__)"),
            std::string::npos)
      << reference;
  EXPECT_NE(reference.find("#define cublasLtMatmul(...) CUCO_PROGRAM_GUARD(cublasLtMatmul,"), std::string::npos);
  // Memory is the GPU's it was allocated for: allocations and copies have guards of their own.
  EXPECT_NE(candidate.find("#define cudaMalloc(...) CUCO_PROGRAM_GUARD_ALLOC(cudaMalloc, __VA_ARGS__)"), std::string::npos);
  EXPECT_NE(candidate.find("#define cudaMemcpy(...) CUCO_PROGRAM_GUARD_MEM(cudaMemcpy, __VA_ARGS__)"), std::string::npos);
  EXPECT_NE(candidate.find("#define ncclAllReduce(...) CUCO_PROGRAM_GUARD_COMM(ncclAllReduce,"), std::string::npos);
  for (const char* stand_in : {"cudaSetDevice(...)", "ncclGroupStart(...)", "cudaStreamCreate(...)", "cudaMemset("})
    EXPECT_EQ(candidate.find(stand_in), std::string::npos) << stand_in;
  // The reference's streams are CUDA's own: guarded there.
  EXPECT_NE(ProjectionGuards(code, true).find("#define cudaStreamCreate(...)"), std::string::npos);
  // A call declared in a header cuda_runtime.h does not include: the header comes before its guard
  // (afanasyev-ilya/AIComm includes <cuda_profiler_api.h> after them; its declarations broke).
  const std::string profiled = ProjectionGuards("cudaProfilerStart(); ncclAllReduce(a, b, n, t, o, c, s);", false);
  const size_t header = profiled.find("#include <cuda_profiler_api.h>");
  ASSERT_NE(header, std::string::npos) << profiled;
  EXPECT_LT(header, profiled.find("#define cudaProfilerStart(...)")) << profiled;
}

TEST(ProjectionTest, FindsCallsQualifiedWithColons) {
  const std::set<std::string> names = GuardedNames("cudaMalloc(&p, n); cudaMemcpy(a, b, n, k);", false);
  EXPECT_EQ(names, (std::set<std::string>{"cudaMalloc", "cudaMemcpy"}));
  EXPECT_EQ(QualifiedGuardedCall("m.cu", "cudaMalloc(&p, n);\nstd::max(a, b);\n", names), "");
  EXPECT_EQ(QualifiedGuardedCall("m.cu", "x;\n  ::cudaMalloc(&p, n);\n", names), "m.cu:2: ::cudaMalloc");
}

TEST(ProjectionTest, ProgramsOwnHelpersNamedLikeCudaAreNotGuarded) {
  const std::string code =
      "static void cuda_check(cudaError_t e, const char* what) { if (e) abort(); }\n"
      "static inline void cublasCheck(cublasStatus_t s) { if (s) abort(); }\n"
      "#define cudaCheck(x) cuda_check((x), #x)\n"
      "int main() { cudaCheck(cudaMalloc(&p, n)); cublasCheck(cublasSgemm(h, a, b)); cuda_check(cudaFree(p), \"\"); }\n";
  EXPECT_EQ(GuardedNames(code, true), (std::set<std::string>{"cudaFree", "cudaMalloc", "cublasSgemm"}));
  EXPECT_EQ(GuardedNames(code, false), (std::set<std::string>{"cudaFree", "cudaMalloc"}));  // cuco's stand-in guards itself
}

TEST(ProjectionTest, FindsCopiesBetweenGpus) {
  EXPECT_EQ(CrossGpuCopy("m.cu", "ncclSend(a);\n// cudaMemcpyPeer(a, 1, b, 0, n)\n"), "");
  EXPECT_EQ(CrossGpuCopy("m.cu", "x;\n  cudaMemcpyPeerAsync(a, 1, b, 0, n, s);\n"), "m.cu:2: cudaMemcpyPeerAsync");
  // Enabling peer access copies nothing: each side answers it (cuco/program/impl/peer_access.h).
  EXPECT_EQ(CrossGpuCopy("m.cu", "cudaDeviceCanAccessPeer(&can, i, j);\nif (can) cudaDeviceEnablePeerAccess(j, 0);\n"), "");
}

// muriloboratto/NCCL's laplacian: every GPU's call on its own communicator sends GPU 1's buffer; the
// per-GPU entries (`sendbuff[i]`), a root's number, and a single communicator are none.
TEST(ProjectionTest, FindsCallsForOneGpuOnAnothersBuffer) {
  auto op = [](const char* api, const char* kind, const char* send, const char* recv, const char* comm, int line) {
    AnalyzedOp o;
    o.api = api, o.kind = kind, o.send = send, o.recv = recv, o.comm = comm, o.file = "src/lap.cu", o.line = line;
    return o;
  };
  Analysis a;
  a.ops = {op("ncclAllReduce", "collective", "sendbuff[i]", "recvbuff[i]", "comms[i]", 1),
           op("ncclBroadcast", "collective", "buf[i]", "buf[i]", "comms[i]", 2),
           op("ncclSend", "p2p", "x[0]", "", "comm", 3),
           op("ncclCommInitAll", "comm_setup", "", "", "", 4)};
  EXPECT_EQ(ForeignBufferCall(a), "");
  a.ops.push_back(op("ncclSend", "p2p", "device_a[1]+(partition[0] + 0*n)", "", "comms[myid]", 5));
  EXPECT_EQ(ForeignBufferCall(a),
            "lap.cu:5: ncclSend on `comms[myid]` names `device_a[1]`, the entry of GPU 1 alone, from every GPU's call (for "
            "the GPU it is for: `device_a[myid]`)");
  // Any collective the analysis knows, by its receive buffer too (NCCL 2.28's ncclAlltoAll).
  a.ops.back() = op("ncclAlltoAll", "collective", "in[g]", "(out[0])", "comms[g]", 6);
  EXPECT_EQ(ForeignBufferCall(a),
            "lap.cu:6: ncclAlltoAll on `comms[g]` names `out[0]`, the entry of GPU 0 alone, from every GPU's call (for "
            "the GPU it is for: `out[g]`)");
}

TEST(ProjectionTest, PerGpuArraysAreThoseIndexedByALoopOverTheGpus) {
  const std::string main_text =
      "std::vector<float*> d_w(ngpus), d_x(ngpus);\n"
      "for (int i = 0; i < ngpus; ++i) { cudaMalloc(&d_w[i], n); cudaMalloc(&d_x[i], n); }\n"
      "for (int s = 0; s < nlayers; ++s) layer[s] = 0;\n"
      "for (int g = 0; g < ngpus; ++g) { Stage& st = stages[g]; st.tmp[0] = nullptr; }\n";
  DeviceIndexing idx(main_text, "ngpus");
  EXPECT_EQ(idx.arrays(), (std::set<std::string>{"d_w", "d_x", "stages"}));
  EXPECT_EQ(idx.Normalize("d_w", "@"), "d_w[@]");
  EXPECT_EQ(idx.Normalize("stages.out", "@"), "stages[@].out");
  EXPECT_EQ(idx.Normalize("layer", "@"), "layer");  // a loop over layers, not GPUs
  // An object's member that is a per-GPU array (its methods index it by GPU), indexed once.
  EXPECT_EQ(idx.Normalize("trainer.d_w", "@"), "trainer.d_w[@]");
  EXPECT_EQ(idx.Normalize("t->d_x", "@"), "t->d_x[@]");
  EXPECT_EQ(idx.Normalize("d_w[@]", "@"), "d_w[@]");
  EXPECT_FALSE(idx.NamesAnArray("trainer.d_w[@]", main_text + "trainer.d_w[0] = nullptr;\n"));
  EXPECT_TRUE(idx.NamesAnArray("stages.tmp", main_text));
  EXPECT_FALSE(idx.NamesAnArray("stages.out", main_text));
  EXPECT_TRUE(idx.NamesAnArray("layer", main_text));
  EXPECT_TRUE(DeviceIndexing(main_text, "").arrays().empty());
  // A kernel indexing its own parameter of that name names no array of the host code (a thread's
  // `float *x, *w, *y;` beside `__global__ void fill(float* x, ...) { x[i] = ...; }`, stop 73).
  const std::string kernels = "__global__ void fill(float* x, int n) {\n  for (int i = 0; i < n; ++i) { x[i] = 0; }\n}\n"
                              "__device__ float get(const float* w);\n";
  EXPECT_FALSE(idx.NamesAnArray("x", kernels + main_text));
  EXPECT_TRUE(idx.NamesAnArray("x", kernels + main_text + "void host(float** x) { x[0] = nullptr; }\n"));
}

// A C benchmark's GPU count is a member of its options (`opt.gpus`, `o->gpus`).
TEST(ProjectionTest, TheGpuCountMayBeAMember) {
  const std::string main_text =
      "float** bufs = malloc(opt.gpus * sizeof(float*));\n"
      "for (int i = 0; i < opt.gpus; ++i) cudaMalloc((void**)&bufs[i], n);\n"
      "for (int j = 0; j < o -> gpus; ++j) streams[j] = 0;\n"
      "for (int s = 0; s < opt.steps; ++s) log[s] = 0;\n";
  EXPECT_EQ(DeviceIndexing(main_text, "opt.gpus").arrays(), (std::set<std::string>{"bufs"}));
  EXPECT_EQ(DeviceIndexing(main_text, "o->gpus").arrays(), (std::set<std::string>{"streams"}));
}

// A container's checked element, `bufs.at(i)` (guo-ran/CudaTest: no output could be named).
TEST(ProjectionTest, AContainerIndexedWithAtByTheGpuLoopIsPerGpu) {
  const std::string main_text =
      "std::vector<float*> bufs(n_gpu);\n"
      "for (int i = 0; i < n_gpu; ++i) { cudaSetDevice(i); cudaMalloc(&bufs.at(i), n); }\n"
      "for (int s = 0; s < nsteps; ++s) log.at(s) = 0;\n";
  DeviceIndexing idx(main_text, "n_gpu");
  EXPECT_EQ(idx.arrays(), (std::set<std::string>{"bufs"}));
  EXPECT_EQ(idx.Normalize("bufs", "@"), "bufs[@]");
}

TEST(ProjectionTest, LocalAliasesNameTheBufferTheyStandFor) {
  const auto a = LocalAliases("Stage& st = stages[s];\nconst float* cur = d_x[i] + off;\nauto h = handles[i];\nint n = 4;\n"
                              "Expert& e = layer->experts[k];\n");
  EXPECT_EQ(a.at("st"), "stages[s]");  // a reference to an entry is the entry: `st.out` is `stages[s].out`
  EXPECT_EQ(a.at("e"), "layer->experts[k]");
  EXPECT_EQ(LocalAliases("Stage& st = stages[s];\n", {"stages"}).at("st"), "stages") << "a per-GPU array's entry: the array";
  EXPECT_EQ(a.at("cur"), "d_x");
  EXPECT_EQ(a.at("h"), "handles");
  EXPECT_EQ(a.count("n"), 0u);
  // A pointer declared null in the loop (allocated there) is its own buffer, not one named `nullptr`.
  const auto null = LocalAliases("float* device_send = nullptr;\nint* idx = NULL;\nfloat* p = q;\n", {});
  EXPECT_EQ(null.count("device_send"), 0u);
  EXPECT_EQ(null.count("idx"), 0u);
  EXPECT_EQ(null.at("p"), "q");
  // ... and so is one made there (taufique71/nystrom-distributed's `int* nColToSend = new int[commSize];`).
  const auto made = LocalAliases("int* counts = new int[n];\ndouble* h = (double*)malloc(n * 8);\n"
                                 "float* f = static_cast<float*>(std::calloc(n, 4));\nint* c2 = counts;\n", {});
  EXPECT_EQ(made.count("counts"), 0u);
  EXPECT_EQ(made.count("h"), 0u);
  EXPECT_EQ(made.count("f"), 0u);
  EXPECT_EQ(made.at("c2"), "counts");
  // An alias of an alias names the buffer the first stands for.
  const auto chain = LocalAliases("const uint8_t* own = d_a.get() + (size_t)start * bytes;\n"
                                  "const uint8_t* panel = own;\nauto* x = y;\nauto* y = x;\n");
  EXPECT_EQ(chain.at("own"), "d_a");
  EXPECT_EQ(chain.at("panel"), "d_a");
  EXPECT_EQ(chain.at("x"), "x") << "a cycle ends";
  std::map<std::string, std::string> second;
  const auto turns = LocalAliases("float* c_out = (buf == 0) ? ping.get() : pong.get();\nfloat* cols = c_out + c * m;\n", {},
                                  &second);
  EXPECT_EQ(turns.at("cols"), "ping");
  EXPECT_EQ(second.at("cols"), "pong");
}

}  // namespace
}  // namespace cuco::scaffold_internal
