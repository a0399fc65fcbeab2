// cuco init's second pass on a small program: each buffer's binding and role.
#include "scaffold/init_bind_buffers.h"

#include <gtest/gtest.h>

#include "scaffold/init_pass_test_util.h"

namespace cuco::scaffold_internal {
namespace {

// The start of a one-rank MPI-less program the tests below complete: main up to its communicator.
constexpr char kCommHead[] = R"(#include <nccl.h>
#include <cuda_runtime.h>
int main(int argc, char** argv) {
  ncclComm_t comm;
  ncclUniqueId id;
  ncclGetUniqueId(&id);
  ncclCommInitRank(&comm, 1, id, 0);
)";

// kCommHead with the program's own functions `helpers` in front of main.
std::string CommHeadAfter(const std::string& helpers) {
  const std::string head = kCommHead;
  const size_t main_at = head.find("int main");
  return head.substr(0, main_at) + helpers + head.substr(main_at);
}

// kCommHead, then `int rank = 0, size = 1;`, the float `buffers` of 256 each, a timing event, and a
// loop of 10 passes around `body`.
std::string SmallLoop(const std::vector<std::string>& buffers, const std::string& body) {
  std::string text = std::string(kCommHead) + "  int rank = 0, size = 1; ncclCommUserRank(comm, &rank);\n  float";
  for (size_t i = 0; i < buffers.size(); ++i) text += (i ? ", *" : " *") + buffers[i];
  text += ";\n";
  for (const std::string& b : buffers) text += "  cudaMalloc(&" + b + ", 256 * sizeof(float));\n";
  return text + "  cudaEvent_t start;\n  cudaEventCreate(&start);\n  cudaEventRecord(start, 0);\n" +
         "  for (int i = 0; i < 10; ++i) {\n" + body + "  }\n  return 0;\n}\n";
}

// Program `text` (file `name`) through init's first two passes: its loop, then its buffers; their
// trace in *trace when given.
Result<BoundBuffers> BindSmallProgram(const std::string& name, const std::string& text, InitPassTrace* trace = nullptr) {
  auto p = GatherSmallProgram(name, text);
  InitPassTrace own;
  if (trace == nullptr) trace = &own;
  Result<FoundLoop> found = FindLoop(p->facts, {}, trace);
  if (!found.ok()) return found.status();
  return BindBuffers(p->facts, {}, *found, trace);
}

// Program `text` (file `name`) started with the one argument `given` (`cuco init --args`) through
// init's first two passes; the second's trace in *trace.
Result<BoundBuffers> BindStartedWith(const std::string& name, const std::string& text, const std::string& given,
                                     InitPassTrace* trace) {
  auto p = GatherSmallProgram(name, text);
  SetProgramArguments(&p->facts, {given});
  Result<FoundLoop> found = FindLoop(p->facts, {}, trace);
  if (!found.ok()) return found.status();
  return BindBuffers(p->facts, {}, *found, trace);
}

// `x` is read first (an input), `y` written last by the all-reduce (an output), `tmp` written
// then read (scratch, the program's own): two binds, and the trace says why for all three.
TEST(InitBindBuffers, InputOutputAndScratch) {
  auto p = GatherSmallProgram("step.cu", kSmallStepProgram);
  InitPassTrace find_trace, trace;
  Result<FoundLoop> found = FindLoop(p->facts, {}, &find_trace);
  ASSERT_TRUE(found.ok()) << found.status().ToString();
  Result<BoundBuffers> b = BindBuffers(p->facts, {}, *found, &trace);
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  EXPECT_EQ(b->binds, (std::vector<std::string>{"cuco_bind.input(\"x\", x);", "cuco_bind.output(\"y\", y);"}));
  EXPECT_EQ(b->inputs, std::vector<std::string>{"x"});
  EXPECT_EQ(b->outputs, std::vector<std::string>{"y"});
  EXPECT_FALSE(b->by_copy);
  EXPECT_TRUE(Traced(trace.lines, {"cuco_bind.input(\"x\")", "an input"}));
  EXPECT_TRUE(Traced(trace.lines, {"cuco_bind.output(\"y\")", "an output"}));
  EXPECT_TRUE(Traced(trace.lines, {"`tmp`", "scratch"}));
}

// A CUDA-aware MPI program's host memory in its iteration (NVIDIA's mpi/ Jacobi, an MoE of stop 86):
// a pinned norm MPI_Allreduce reads and a std::vector of device pointers handed on through `.data()`
// are no device buffers to bind (the reference refused them on the GPU: "not made by cudaMalloc");
// the device grid is bound.
TEST(InitBindBuffers, AnMpiProgramsPinnedAndPointerVectorHostMemoryIsNotBound) {
  const std::string text = R"(#include <mpi.h>
#include <vector>
#include <cuda_runtime.h>
__global__ void step(float* a, const float* const* w, float* norm) { a[0] += w[0][0]; norm[0] = a[0]; }
int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  float *a, *norm_d, *w_d, *norm_h, norm = 0;
  cudaMalloc(&a, 256 * sizeof(float));
  cudaMalloc(&norm_d, sizeof(float));
  cudaMalloc(&w_d, 256 * sizeof(float));
  cudaMallocHost(&norm_h, sizeof(float));
  std::vector<const float*> w(4, w_d);
  for (int i = 0; i < 10; ++i) {
    step<<<1, 1>>>(a, w.data(), norm_d);
    MPI_Sendrecv(a, 1, MPI_FLOAT, 0, 0, a + 1, 1, MPI_FLOAT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    cudaMemcpy(norm_h, norm_d, sizeof(float), cudaMemcpyDeviceToHost);
    MPI_Allreduce(norm_h, &norm, 1, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
  }
  MPI_Finalize();
  return 0;
}
)";
  Result<BoundBuffers> b = BindSmallProgram("halo.cu", text);
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  std::string binds;
  for (const std::string& s : b->binds) binds += s + "\n";
  EXPECT_NE(binds.find("\"a\", a)"), std::string::npos) << binds;
  EXPECT_EQ(binds.find("norm_h"), std::string::npos) << binds;
  EXPECT_EQ(binds.find("\"w\""), std::string::npos) << binds;
}

// A grid whose iteration starts with halo receives into rows past its start (a CUDA-aware MPI Game of
// Life, kamalcou/CUDA-MPI-and-CUDA-aware): its first access writes only those rows, and the kernel
// then reads the interior the previous pass left: input and output, not an output the harness may
// poison. A receive into the whole buffer is still a write first.
TEST(InitBindBuffers, AHaloReceivedFirstIntoPartOfAGridLeavesItAnInput) {
  const std::string text = R"(#include <mpi.h>
#include <cuda_runtime.h>
__global__ void life_step(const int* life, int* temp, int n) { temp[n + 3] = life[n + 2] + life[n + 4]; }
int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int n = 64, next = 0, prev = 0;
  int *d_life, *d_in;
  cudaMalloc(&d_life, (n + 2) * (n + 2) * sizeof(int));
  cudaMalloc(&d_in, (n + 2) * sizeof(int));
  int *d_temp;
  cudaMalloc(&d_temp, (n + 2) * (n + 2) * sizeof(int));
  for (int k = 0; k < 10; ++k) {
    MPI_Recv(&d_life[(n + 1) * (n + 2) + 0], n + 2, MPI_INT, next, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Send(&d_life[1 * (n + 2) + 0], n + 2, MPI_INT, prev, 0, MPI_COMM_WORLD);
    MPI_Recv(d_in, n + 2, MPI_INT, prev, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    life_step<<<1, 1>>>(d_life, d_temp, n);
    life_step<<<1, 1>>>(d_in, d_temp, n);
  }
  MPI_Finalize();
  return 0;
}
)";
  InitPassTrace trace;
  Result<BoundBuffers> b = BindSmallProgram("life.cu", text, &trace);
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  std::string binds;
  for (const std::string& s : b->binds) binds += s + "\n";
  EXPECT_NE(binds.find("cuco_bind.inout(\"d_life\", d_life)"), std::string::npos) << binds;
  EXPECT_TRUE(Traced(trace.lines, {"`d_life`", "a write to part of it at line 13, past its start"}));
  EXPECT_EQ(binds.find("\"d_in\""), std::string::npos) << binds;  // received whole, then read: scratch
}

// A grid written, then read by the next step's kernel, and copied to the host after the loop (the
// Game of Life's `d_temp`): an output for its copy, whose writes may leave some of it alone (its
// border) that the read sees; bound as input and output, so both sides start from the same values.
TEST(InitBindBuffers, AnOutputCopiedOutAfterTheLoopAndReadAfterItsWritesIsInout) {
  const std::string text = SmallLoop({"a", "t"}, "    step<<<1, 1>>>(a, t);\n"
                                                 "    ncclAllReduce(t, t, 256, ncclFloat, ncclSum, comm, 0);\n"
                                                 "    step<<<1, 1>>>(t, a);\n");
  std::string program = text;
  program.insert(program.find("int main"), "__global__ void step(const float* in, float* out) { out[1] = in[0]; }\n");
  program.insert(program.rfind("  return 0;"), "  float h[256];\n  cudaMemcpy(h, t, sizeof h, cudaMemcpyDeviceToHost);\n");
  InitPassTrace trace;
  Result<BoundBuffers> b = BindSmallProgram("life2.cu", program, &trace);
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  std::string binds;
  for (const std::string& x : b->binds) binds += x + "\n";
  EXPECT_NE(binds.find("cuco_bind.inout(\"t\", t)"), std::string::npos) << binds;
  EXPECT_TRUE(Traced(trace.lines, {"`t`", "reads it after its writes"}));
}

// A buffer read first and then written (scaled in place, then all-reduced from; all-reduced in place,
// then read): input and output, so that what the pass leaves in it is checked, not only its effect
// on the others.
TEST(InitBindBuffers, ABufferReadThenWrittenIsInout) {
  const std::string text = SmallLoop({"x", "y"}, "    ncclAllReduce(x, x, 256, ncclFloat, ncclMax, comm, 0);\n"
                                                 "    ncclAllReduce(x, y, 256, ncclFloat, ncclSum, comm, 0);\n");
  Result<BoundBuffers> b = BindSmallProgram("inplace.cu", text);
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  EXPECT_EQ(b->binds, (std::vector<std::string>{"cuco_bind.inout(\"x\", x);", "cuco_bind.output(\"y\", y);"}));
}

// Kernels launched through a macro (pantheongpu/pantheonsim's `#define LAUNCH(k, n, ...)
// k<<<...>>>(__VA_ARGS__)`): each use is the launch it makes. `x` is scaled into `y` (before: no
// launch seen, `y` an input) and `w` updated in place after the all-reduce (before: an input only).
TEST(InitBindBuffers, AKernelLaunchedThroughAMacroReadsAndWritesItsArguments) {
  const std::string kernels =
      "__global__ void scale_k(const float* a, float* b, int n) { int i = threadIdx.x; if (i < n) b[i] = 2 * a[i]; }\n"
      "__global__ void sgd_k(float* w, const float* g, int n) { int i = threadIdx.x; if (i < n) w[i] -= g[i]; }\n"
      "#define LAUNCH(k, n, ...) k<<<((n) + 127) / 128, 128, 0, 0>>>(__VA_ARGS__)\n";
  std::string text = SmallLoop({"x", "y", "w"}, "    LAUNCH(scale_k, 256, x, y, 256);\n"
                                                "    ncclAllReduce(y, y, 256, ncclFloat, ncclSum, comm, 0);\n"
                                                "    LAUNCH(sgd_k, 256, w, y, 256);\n");
  text.insert(text.find("int main"), kernels);
  Result<BoundBuffers> b = BindSmallProgram("macro.cu", text);
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  EXPECT_EQ(b->binds, (std::vector<std::string>{"cuco_bind.input(\"x\", x);", "cuco_bind.inout(\"w\", w);"}));
}

// A GEMM of untyped buffers (superbenchmark's `void* da, *db, ...` through cublasLtMatmul on fp16
// layouts) whose result the all-reduce moves as ncclFloat16: its operands get that type too, so the
// harness fills them with fresh halves, not the program's own bytes (which once made every seed's
// outputs the same, and the check was refused as vacuous).
TEST(InitBindBuffers, AGemmsUntypedOperandsTakeTheTypeItsCollectiveGivesItsResult) {
  std::string text = std::string(kCommHead) +
                     "  cublasHandle_t h; cublasCreate(&h);\n  void *a, *b, *c;\n  const float one = 1, zero = 0;\n"
                     "  cudaMalloc(&a, 512); cudaMalloc(&b, 512); cudaMalloc(&c, 512);\n"
                     "  cudaEvent_t start;\n  cudaEventCreate(&start);\n  cudaEventRecord(start, 0);\n"
                     "  for (int i = 0; i < 10; ++i) {\n"
                     "    cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, 16, 16, 16, &one, a, CUDA_R_16F, 16, b, CUDA_R_16F, 16, &zero, c,\n"
                     "                 CUDA_R_16F, 16, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);\n"
                     "    ncclAllReduce(c, c, 256, ncclFloat16, ncclSum, comm, 0);\n  }\n  return 0;\n}\n";
  text.insert(0, "#include <cublas_v2.h>\n");
  Result<BoundBuffers> b = BindSmallProgram("gemm_ex.cu", text);
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  EXPECT_EQ(b->binds, (std::vector<std::string>{"cuco_bind.as<__half>().input(\"a\", a);",
                                                "cuco_bind.as<__half>().input(\"b\", b);",
                                                "cuco_bind.as<__half>().output(\"c\", c);"}));
}

// An output written only under an `if` is bound as input and output: a rank may skip the write.
TEST(InitBindBuffers, AnOutputWrittenUnderAnIfIsInout) {
  const std::string text = SmallLoop({"x", "y"}, "    if (rank == 0) ncclAllReduce(x, y, 256, ncclFloat, ncclSum, comm, 0);\n");
  Result<BoundBuffers> b = BindSmallProgram("root.cu", text);
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  EXPECT_EQ(b->binds, (std::vector<std::string>{"cuco_bind.input(\"x\", x);", "cuco_bind.inout(\"y\", y);"}));
  EXPECT_EQ(b->outputs, std::vector<std::string>{"y_out"});
  EXPECT_TRUE(Traced(b->guesses, {"`y`", "only under an `if`"}));
}

// An incast (HicrestLaboratory/Blink-GPU's inc_Nccl.cu): the root receives into `buf`, every other
// rank sends from it, in the two sides of an `if`. Each rank's only access is the write or the read:
// bound as input and output (before: "first written, last read", scratch, and nothing to check).
TEST(InitBindBuffers, ABufferWrittenOnOneSideOfAnIfAndReadOnTheOtherIsInout) {
  const std::string text = SmallLoop({"buf"}, R"(    ncclGroupStart();
    if (rank == 0) {
      for (int r = 1; r < size; ++r) ncclRecv(buf + r * 16, 16, ncclFloat, r, comm, 0);
    } else {
      ncclSend(buf, 16, ncclFloat, 0, comm, 0);
    }
    ncclGroupEnd();
)");
  Result<BoundBuffers> b = BindSmallProgram("incast.cu", text);
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  EXPECT_EQ(b->binds, std::vector<std::string>{"cuco_bind.inout(\"buf\", buf);"});
  EXPECT_TRUE(Traced(b->guesses, {"`buf`", "written only in one arm of an `if` and read only in the other"}));
}

// Written and read in the same arm (a prefill rank fills its cache, then sends it; tests/programs'
// kv_transfer_threads): the program's own scratch, as before.
TEST(InitBindBuffers, ABufferWrittenAndReadInOneArmOfAnIfIsScratch) {
  const std::string text = SmallLoop({"x", "cache", "y"}, R"(    if (rank == 0) {
      cudaMemcpyAsync(cache, x, 256 * sizeof(float), cudaMemcpyDeviceToDevice, 0);
      ncclSend(cache, 256, ncclFloat, 1, comm, 0);
    } else {
      ncclRecv(y, 256, ncclFloat, 0, comm, 0);
    }
)");
  Result<BoundBuffers> b = BindSmallProgram("prefill.cu", text);
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  EXPECT_EQ(b->binds, (std::vector<std::string>{"cuco_bind.input(\"x\", x);", "cuco_bind.inout(\"y\", y);"}));
}

// A GEMM accumulating into its C (beta 1, a SUMMA's panels: rz-hpc's summa_gemm.cu) reads C before
// writing it: C is an input and an output. With beta 0 it is an output, as before.
TEST(InitBindBuffers, AGemmAccumulatingIntoCReadsIt) {
  const std::string body = R"(    cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 16, 16, 16, &alpha, a, 16, b, 16, &beta, c, 16);
    ncclAllReduce(c, c, 256, ncclFloat, ncclSum, comm, 0);
)";
  std::string text = SmallLoop({"a", "b", "c"}, body);
  text.replace(text.find("#include <cuda_runtime.h>\n"), 0, "#include <cublas_v2.h>\n");
  text.replace(text.find("  cudaEvent_t start;"), 0, "  cublasHandle_t h;\n  cublasCreate(&h);\n  float alpha = 1.0f, beta = 1.0f;\n");
  Result<BoundBuffers> b = BindSmallProgram("summa.cu", text);
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  EXPECT_EQ(b->binds, (std::vector<std::string>{"cuco_bind.inout(\"c\", c);", "cuco_bind.input(\"a\", a);",
                                                "cuco_bind.input(\"b\", b);"}));
  text.replace(text.find("beta = 1.0f"), 11, "beta = 0.0f");
  b = BindSmallProgram("overwrite.cu", text);
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  EXPECT_EQ(b->binds, (std::vector<std::string>{"cuco_bind.input(\"a\", a);", "cuco_bind.input(\"b\", b);",
                                                "cuco_bind.output(\"c\", c);"}));
}

// Double buffers chosen in the loop (TensorParallelPTX's `float* C_out = (buf == 0) ? d_C_ping.get() :
// d_C_pong.get();`): the alias names either buffer, so both are bound as outputs. A harness iteration
// writing one (its loop variable held at its first value) leaves the other alone, which the
// reference finds and the judge allows (cuco/program/impl/left_alone.h).
TEST(InitBindBuffers, AnAliasOfOneOfTwoBuffersBindsBoth) {
  const std::string text = SmallLoop({"x", "ping", "pong"}, R"(    float* c = (i % 2 == 0) ? ping : pong;
    cudaMemcpyAsync(c, x, 256 * sizeof(float), cudaMemcpyDeviceToDevice, 0);
    ncclAllReduce(c, c, 256, ncclFloat, ncclSum, comm, 0);
)");
  Result<BoundBuffers> b = BindSmallProgram("double.cu", text);
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  EXPECT_EQ(b->binds, (std::vector<std::string>{"cuco_bind.input(\"x\", x);", "cuco_bind.output(\"ping\", ping);",
                                                "cuco_bind.output(\"pong\", pong);"}));
}

// A ping and its pong: rank 0 sends `ping` and receives `pong` back, rank 1 receives `pong` and sends
// it on. In text order `pong`'s last access is rank 1's send (a read: scratch before); on rank 0 it is
// the receive, so it is an output (bound as input and output, since a rank may take neither arm).
TEST(InitBindBuffers, ABufferLastWrittenInOneArmIsAnOutput) {
  const std::string text = SmallLoop({"ping", "pong"}, R"(    if (rank == 0) {
      ncclSend(ping, 256, ncclFloat, 1, comm, 0);
      ncclRecv(pong, 256, ncclFloat, 1, comm, 0);
    } else {
      ncclRecv(pong, 256, ncclFloat, 0, comm, 0);
      ncclSend(pong, 256, ncclFloat, 0, comm, 0);
    }
)");
  Result<BoundBuffers> b = BindSmallProgram("pingpong.cu", text);
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  EXPECT_EQ(b->binds, (std::vector<std::string>{"cuco_bind.input(\"ping\", ping);", "cuco_bind.inout(\"pong\", pong);"}));
  // Read again after the `if`: the arm's write is not the pass's last access, and `pong` stays scratch.
  const std::string later = SmallLoop({"ping", "pong", "y"}, R"(    if (rank == 0) {
      ncclSend(ping, 256, ncclFloat, 1, comm, 0);
      ncclRecv(pong, 256, ncclFloat, 1, comm, 0);
    } else {
      ncclRecv(pong, 256, ncclFloat, 0, comm, 0);
    }
    ncclAllReduce(pong, y, 256, ncclFloat, ncclSum, comm, 0);
)");
  b = BindSmallProgram("pingpong.cu", later);
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  EXPECT_EQ(b->binds, (std::vector<std::string>{"cuco_bind.input(\"ping\", ping);", "cuco_bind.output(\"y\", y);"}));
}

// A halo helper receives from a neighbour only where there is one (Blink-GPU's hlo_Nccl.cu:
// `if (UpFlag > -1) { ncclRecv(...); ncclSend(...); }` in halo3d_run_axes): the `if` is the
// helper's, not the loop's. Its receive buffer is bound as input and output (before: an output, which
// a rank with no neighbour never writes).
TEST(InitBindBuffers, AWriteUnderAHelpersIfIsInout) {
  const std::string text = std::string(R"(#include <nccl.h>
#include <cuda_runtime.h>
void exchange(float* recv, const float* send, int peer, ncclComm_t comm) {
  ncclGroupStart();
  if (peer > -1) {
    ncclRecv(recv, 16, ncclFloat, peer, comm, 0);
    ncclSend(send, 16, ncclFloat, peer, comm, 0);
  }
  ncclGroupEnd();
}
int main(int argc, char** argv) {
  ncclComm_t comm;
  ncclUniqueId id;
  ncclGetUniqueId(&id);
  ncclCommInitRank(&comm, 1, id, 0);
  int rank = 0; ncclCommUserRank(comm, &rank); int up = rank - 1;
  float *r, *s;
  cudaMalloc(&r, 16 * sizeof(float));
  cudaMalloc(&s, 16 * sizeof(float));
  cudaEvent_t start;
  cudaEventCreate(&start);
  cudaEventRecord(start, 0);
  for (int i = 0; i < 10; ++i) exchange(r, s, up, comm);
  return 0;
}
)");
  Result<BoundBuffers> b = BindSmallProgram("halo.cu", text);
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  EXPECT_EQ(b->binds, (std::vector<std::string>{"cuco_bind.inout(\"r\", r);", "cuco_bind.input(\"s\", s);"}));
  EXPECT_TRUE(Traced(b->guesses, {"`r`", "only under an `if`"}));
}

// A helper's mode given by its parameter's default (kopernik278's `launchCompute(c, reps)` with
// `Workload wl = WL_COMPUTE` and a `switch (wl)` over its kernels): only the case that runs counts,
// so the other case's buffer is no buffer of the iteration.
TEST(InitBindBuffers, AHelpersDefaultArgumentDecidesItsSwitch) {
  const std::string text = std::string(R"(#include <nccl.h>
#include <cuda_runtime.h>
enum Workload { WL_COMPUTE, WL_MEMORY };
__global__ void scale(float* y, const float* x) { y[threadIdx.x] = 2.f * x[threadIdx.x]; }
void compute(float* y, const float* x, float* m, Workload wl = WL_COMPUTE) {
  switch (wl) {
    case WL_COMPUTE:
      scale<<<1, 256>>>(y, x);
      break;
    case WL_MEMORY:
      scale<<<1, 256>>>(m, x);
      break;
  }
}
)") + "int main(int argc, char** argv) {\n" + kOneRankCommAndStream + R"(  float *x, *y, *m;
  cudaMalloc(&x, 1024);
  cudaMalloc(&y, 1024);
  cudaMalloc(&m, 1024);
  cudaEvent_t start;
  cudaEventCreate(&start);
  cudaEventRecord(start, 0);
  for (int i = 0; i < 10; ++i) {
    compute(y, x, m);
    ncclAllReduce(y, y, 256, ncclFloat, ncclSum, comm, 0);
  }
  return 0;
}
)";
  Result<BoundBuffers> b = BindSmallProgram("modes.cu", text);
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  EXPECT_EQ(b->binds, (std::vector<std::string>{"cuco_bind.input(\"x\", x);", "cuco_bind.output(\"y\", y);"}));
}

// A helper handed an object's address (`step(&model)`, llm.c's `gpt2_forward(&model, ...)`) and a
// helper it hands the pointer on to: the object's members are main's `model.out`, never
// `model->out`, which does not compile where main's `model` is an object.
TEST(InitBindBuffers, AMemberReachedThroughAnObjectsAddressIsMainsMember) {
  const std::string text = CommHeadAfter(R"(struct Model { float* in; float* out; };
void reduce(Model* m, ncclComm_t comm) { ncclAllReduce(m->in, m->out, 16, ncclFloat, ncclSum, comm, 0); }
void step(Model* model, ncclComm_t comm) { reduce(model, comm); }
)") + R"(  Model model;
  cudaMalloc(&model.in, 16 * sizeof(float));
  cudaMalloc(&model.out, 16 * sizeof(float));
  cudaEvent_t start;
  cudaEventCreate(&start);
  cudaEventRecord(start, 0);
  for (int i = 0; i < 10; ++i) step(&model, comm);
  return 0;
}
)";
  Result<BoundBuffers> b = BindSmallProgram("model.cu", text);
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  EXPECT_EQ(b->binds, (std::vector<std::string>{"cuco_bind.input(\"model_in\", model.in);",
                                                "cuco_bind.output(\"model_out\", model.out);"}));
}

// `void*` buffers whose collective's type the program picks at run time (a sweep over data types,
// nccl-nvfp4-comm's `dtypeCase.ncclType`): bound as bytes, and the guess says how to give the type.
TEST(InitBindBuffers, AnUntypedBufferOfATypeChosenAtRunTimeSaysSo) {
  const std::string text = std::string(kCommHead) + R"(  ncclDataType_t dt = argc > 1 ? ncclHalf : ncclFloat;
  void *send, *recv;
  cudaMalloc(&send, 64);
  cudaMalloc(&recv, 64);
  cudaEvent_t start;
  cudaEventCreate(&start);
  cudaEventRecord(start, 0);
  for (int i = 0; i < 10; ++i) ncclAllReduce(send, recv, 16, dt, ncclSum, comm, 0);
  return 0;
}
)";
  Result<BoundBuffers> b = BindSmallProgram("types.cu", text);
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  EXPECT_EQ(b->binds, (std::vector<std::string>{"cuco_bind.input(\"send\", send);", "cuco_bind.output(\"recv\", recv);"}));
  EXPECT_TRUE(Traced(b->guesses, {"`send`", "`dt`, is chosen at run time: bound as bytes", "cuco_bind.as<T>()"}));
}

// A helper's buffer declared null and then allocated (`void* recv = nullptr; cudaMalloc(&recv, n);`,
// nccl-nvfp4-comm's runCase) is the helper's own, never a buffer named `nullptr`: the reason names it.
TEST(InitBindBuffers, AHelpersBufferDeclaredNullIsNamedByItsName) {
  const std::string text = CommHeadAfter(R"(void run_case(const float* x, ncclComm_t comm) {
  float* recv = nullptr;
  cudaMalloc(&recv, 64);
  ncclAllReduce(x, recv, 16, ncclFloat, ncclSum, comm, 0);
  cudaFree(recv);
}
)") + R"(  float* x;
  cudaMalloc(&x, 64);
  cudaEvent_t start;
  cudaEventCreate(&start);
  cudaEventRecord(start, 0);
  for (int i = 0; i < 10; ++i) run_case(x, comm);
  return 0;
}
)";
  Result<BoundBuffers> b = BindSmallProgram("null.cu", text);
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.status().message().find("nullptr"), std::string::npos) << b.status().message();
  EXPECT_NE(b.status().message().find("`recv`"), std::string::npos) << b.status().message();
}

// A reduce or gather writes its receive buffer on its root only; every other rank keeps what it held
// (fasrc's ncclReduce_mpi at two GPUs: rank 1's output was judged unwritten). Bound as input and
// output, like a write under an `if`, and the guess says why.
TEST(InitBindBuffers, AReducesReceiveBufferIsInout) {
  const std::string text = SmallLoop({"x", "y", "z", "g"}, R"(    ncclReduce(x, y, 256, ncclFloat, ncclSum, 0, comm, 0);
    ncclAllReduce(x, z, 256, ncclFloat, ncclSum, comm, 0);
    ncclGather(x, g, 256, ncclFloat, 0, comm, 0);
)");
  Result<BoundBuffers> b = BindSmallProgram("reduce.cu", text);
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  EXPECT_EQ(b->binds, (std::vector<std::string>{"cuco_bind.input(\"x\", x);", "cuco_bind.inout(\"y\", y);",
                                                "cuco_bind.output(\"z\", z);", "cuco_bind.inout(\"g\", g);"}));
  EXPECT_TRUE(Traced(b->guesses, {"`y`", "a reduce or gather writes it on its root only"}));
  EXPECT_TRUE(Traced(b->guesses, {"`g`", "a reduce or gather writes it on its root only"}));
}

// A mode chosen by a string (teju85/nccl-bench's `-op`, "allReduce" by default): the harness starts
// the program without arguments, so only the default mode's call runs. Its output is written on
// every rank, an output; the reduce of a mode that never runs makes it no root-only buffer.
TEST(InitBindBuffers, OnlyTheModeTheProgramRunsDecidesTheRoles) {
  const std::string text = SmallLoop({"x", "y"}, R"(    const char* op = "allReduce";
    if (!strcmp(op, "allReduce")) {
      ncclAllReduce(x, y, 256, ncclFloat, ncclSum, comm, 0);
    } else if (!strcmp(op, "reduce")) {
      ncclReduce(x, y, 256, ncclFloat, ncclSum, 0, comm, 0);
    }
)");
  Result<BoundBuffers> b = BindSmallProgram("modes.cu", text);
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  EXPECT_EQ(b->binds, (std::vector<std::string>{"cuco_bind.input(\"x\", x);", "cuco_bind.output(\"y\", y);"}));
}

// A buffer allocated with no bytes (a zero-count all-gather standing for a barrier, PARCOACH's
// splitted-communicator benchmark) is a null pointer: the reference found no size for it and
// refused the program at W=2. It is not bound; the guess says why.
TEST(InitBindBuffers, ABufferOfNoBytesIsNotBound) {
  const std::string text = std::string(kCommHead) + R"(  int *x, *y, *buf_d;
  cudaMalloc(&x, 256 * sizeof(int));
  cudaMalloc(&y, 256 * sizeof(int));
  cudaMalloc(&buf_d, 0 * sizeof(int));
  ncclAllGather(buf_d, buf_d, 0, ncclInt, comm, 0);
  ncclAllReduce(x, y, 256, ncclInt, ncclSum, comm, 0);
  return 0;
}
)";
  Result<BoundBuffers> b = BindSmallProgram("barrier.cu", text);
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  EXPECT_EQ(b->binds, (std::vector<std::string>{"cuco_bind.input(\"x\", x);", "cuco_bind.output(\"y\", y);"}));
  EXPECT_TRUE(Traced(b->guesses, {"`buf_d`", "allocated with no bytes"}));
}

// A copy whose direction the code does not spell (cudaMemcpyDefault) from host memory the program
// allocates with new[] (ComputingElevatedLab's benchmarks): the host array is no device buffer, so
// it is not bound (the reference would find no device allocation for it); the device side is.
TEST(InitBindBuffers, HostMemoryCopiedWithTheDefaultKindIsNotBound) {
  const std::string text = std::string(kCommHead) + R"(  int* h_send = new int[256];
  for (int j = 0; j < 256; ++j) h_send[j] = j;
  int *d_send, *d_recv;
  cudaMalloc((void**)&d_send, 256 * sizeof(int));
  cudaMalloc((void**)&d_recv, 256 * sizeof(int));
  for (int it = 0; it < 10; ++it) {
    cudaMemcpy(d_send, h_send, 256 * sizeof(int), cudaMemcpyDefault);
    ncclAllReduce(d_send, d_recv, 256, ncclInt, ncclSum, comm, 0);
  }
  return 0;
}
)";
  Result<BoundBuffers> b = BindSmallProgram("hostcopy.cu", text);
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  EXPECT_EQ(b->binds, (std::vector<std::string>{"cuco_bind.output(\"d_recv\", d_recv);"}));
}

// A process driving its GPUs through host arrays of device pointers (`float** send`,
// `float* recv[2]`): neither array is one buffer, so neither is bound (the harness would take the
// host array for device bytes), and with nothing else to check the program gets the skeleton.
TEST(InitBindBuffers, AHostArrayOfDevicePointersIsNoBuffer) {
  const std::string text = R"(#include <nccl.h>
#include <cuda_runtime.h>
#include <mpi.h>
#include <cstdlib>
int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  ncclComm_t comms[2];
  ncclUniqueId id;
  ncclGetUniqueId(&id);
  ncclGroupStart();
  for (int i = 0; i < 2; ++i) ncclCommInitRank(&comms[i], 2, id, i);
  ncclGroupEnd();
  float** send = (float**)malloc(2 * sizeof(float*));
  float* recv[2];
  for (int i = 0; i < 2; ++i) {
    cudaMalloc(send + i, 256 * sizeof(float));
    cudaMalloc(&recv[i], 256 * sizeof(float));
  }
  for (int it = 0; it < 10; ++it) {
    ncclGroupStart();
    for (int i = 0; i < 2; ++i) ncclAllReduce(send[i], recv[i], 256, ncclFloat, ncclSum, comms[i], 0);
    ncclGroupEnd();
  }
  MPI_Finalize();
  return 0;
}
)";
  auto p = GatherSmallProgram("devs.cu", text);
  InitPassTrace trace;
  Result<FoundLoop> found = FindLoop(p->facts, {}, &trace);
  ASSERT_TRUE(found.ok()) << found.status().ToString();
  Result<BoundBuffers> b = BindBuffers(p->facts, {}, *found, &trace);
  ASSERT_FALSE(b.ok()) << "bound: " << (b.ok() && !b->binds.empty() ? b->binds.front() : "");
  EXPECT_NE(b.status().message().find("no output of the iteration could be named"), std::string::npos) << b.status().message();
  // The reason names the output and why, in words the user can act on.
  EXPECT_NE(b.status().message().find("`recv`, which it writes: a host array of device pointers (one per GPU the "
                                      "process drives, or per peer or layer; its length `2` = 2)"),
            std::string::npos)
      << b.status().message();
  EXPECT_TRUE(Traced(trace.lines, {"host array of device pointers"}));
}

// aleksgri/3D-wave-equation-MPI-CUDA: an object handed whole to a function that reaches its storage
// through `get_ptr_device()`, which returns its member `array_d`, and that member named by the loop too.
// One buffer, bound once: through the member (by pointer), with the object's accesses; bound twice,
// the copy through the accessor read and wrote the harness's buffer of another iteration (late writes).
TEST(InitBindBuffers, AnObjectAndTheMemberItsAccessorReturnsAreBoundOnce) {
  const std::string text = R"(#include <nccl.h>
#include <cuda_runtime.h>
class Grid {
 public:
  double* array_d;
  int n;
  explicit Grid(int size) : n(size) { cudaMalloc(&array_d, n * sizeof(double)); }
  double* get_ptr_device() { return array_d; }
};
__global__ void err_kernel(double* e, int n) { if (threadIdx.x < n) e[threadIdx.x] = 1.0; }
void compute(Grid& e, cudaStream_t s) { err_kernel<<<1, 256, 0, s>>>(e.get_ptr_device(), e.n); }
int main(int argc, char** argv) {
  ncclComm_t comm;
  ncclUniqueId id;
  ncclGetUniqueId(&id);
  ncclCommInitRank(&comm, 1, id, 0);
  Grid err(256);
  for (int it = 0; it < 10; ++it) {
    compute(err, 0);
    ncclAllReduce(err.array_d, err.array_d, 256, ncclDouble, ncclSum, comm, 0);
  }
  return 0;
}
)";
  InitPassTrace trace;
  Result<BoundBuffers> b = BindSmallProgram("wave.cu", text, &trace);
  ASSERT_TRUE(b.ok()) << b.status().message();
  const std::string binds = ::testing::PrintToString(b->binds);
  EXPECT_EQ(b->binds.size(), 1u) << binds;
  EXPECT_NE(binds.find("err.array_d"), std::string::npos) << binds;
  EXPECT_EQ(binds.find("get_ptr_device"), std::string::npos) << binds;
}

// NCCL 1's tests: main calls a helper, once per size, that allocates its buffers and loops over a
// call that communicates; main names none of them. The reason names the `--loop` that serves the
// loop of the helper making the buffer, where it is named.
TEST(InitBindBuffers, AnOutputMadeInAHelperNamesTheLoopWhereItIsNamed) {
  const std::string text = R"(#include <nccl.h>
#include <cuda_runtime.h>
void RunTest(float* buff, int n, int root, ncclComm_t comm) {
  ncclBroadcast(buff, buff, n, ncclFloat, root, comm, 0);
  cudaStreamSynchronize(0);
}
void RunTests(int n, ncclComm_t comm) {
  float* buff;
  cudaMalloc(&buff, n * sizeof(float));
  for (int root = 0; root < 1; ++root) {
    RunTest(buff, n, root, comm);
  }
  cudaFree(buff);
}
int main(int argc, char** argv) {
  ncclComm_t comm;
  ncclUniqueId id;
  ncclGetUniqueId(&id);
  ncclCommInitRank(&comm, 1, id, 0);
  RunTests(256, comm);
  RunTests(512, comm);
  return 0;
}
)";
  Result<BoundBuffers> b = BindSmallProgram("tests.cu", text);
  ASSERT_FALSE(b.ok());
  // RunTests' `buff` is made and dropped there: its helper's temporary, which its NCCL calls write.
  EXPECT_NE(b.status().message().find("RunTests's `buff` (tests.cu:11), a local of RunTests"), std::string::npos)
      << b.status().message();
  EXPECT_NE(b.status().message().find("`cuco init --loop tests.cu:10` serves the loop of RunTests there"),
            std::string::npos)
      << b.status().message();
}

// The loop in a function main calls once to time (a benchmark method): the message names that
// function, where the buffer would have to be declared (skywxlker-ops/TensorParallelismBeta's
// nccl_benchmark.cpp, stop 69: its receive buffer is allocated and freed inside every pass).
TEST(InitBindBuffersTest, NoOutputNamesTheFunctionHoldingTheLoop) {
  const std::string text = R"(#include <nccl.h>
#include <cuda_runtime.h>
float Bench(ncclComm_t comm, cudaStream_t s, float* send) {
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  cudaEventRecord(a, s);
  for (int i = 0; i < 10; ++i) {
    float* recv;
    cudaMalloc(&recv, 64 * sizeof(float));
    ncclAllGather(send, recv, 32, ncclFloat, comm, s);
    cudaFree(recv);
  }
  cudaEventRecord(b, s);
  float ms = 0;
  cudaEventElapsedTime(&ms, a, b);
  return ms;
}
int main(int argc, char** argv) {
  ncclComm_t comm;
  ncclUniqueId id;
  ncclGetUniqueId(&id);
  ncclCommInitRank(&comm, 1, id, 0);
  float* send;
  cudaMalloc(&send, 32 * sizeof(float));
  return Bench(comm, 0, send) > 0 ? 0 : 1;
}
)";
  Result<BoundBuffers> b = BindSmallProgram("bench.cu", text);
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.status().message().find("no output of the iteration could be named in Bench, so nothing would be checked"),
            std::string::npos)
      << b.status().message();
  // ... and says why, where the user acts: the buffer is made anew in every pass.
  EXPECT_NE(b.status().message().find("`recv`, which it writes: allocated inside the iteration (bench.cu:10), a new "
                                      "buffer every pass"),
            std::string::npos)
      << b.status().message();
}

// The same, with the buffer declared before the loop (`char *d_recv;`) and allocated in every pass,
// as ComputingElevatedLab/bruck-steps' one-pass sweep writes it: nameable, but bound it would point at
// no allocation the harness could size before the first pass (stop 81: the reference's setup failed).
TEST(InitBindBuffersTest, AnOutputDeclaredBeforeTheLoopButAllocatedInEveryPassIsNotBound) {
  const std::string text = R"(#include <nccl.h>
#include <cuda_runtime.h>
int main(int argc, char** argv) {
  ncclComm_t comm;
  ncclUniqueId id;
  ncclGetUniqueId(&id);
  ncclCommInitRank(&comm, 1, id, 0);
  cudaStream_t s;
  cudaStreamCreate(&s);
  char* d_send;
  char* d_recv;
  for (int count = 1024; count <= 1024; count *= 2) {
    cudaMalloc((void**)&d_send, count);
    cudaMalloc((void**)&d_recv, count);
    cudaMemset(d_send, 1, count);
    ncclAllReduce(d_send, d_recv, count, ncclChar, ncclSum, comm, s);
    cudaStreamSynchronize(s);
    cudaFree(d_send);
    cudaFree(d_recv);
  }
  return 0;
}
)";
  Result<BoundBuffers> b = BindSmallProgram("bruck.cu", text);
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.status().message().find("`d_recv`, which it writes: allocated inside the iteration (bruck.cu:14), a new "
                                      "buffer every pass (its pointer is declared before the loop, but holds no buffer"),
            std::string::npos)
      << b.status().message();
}

// The same habit with the GPU count from the command line (`nDev = atoi(argv[1])`, the program
// written to drive several GPUs per process): started with one (`cuco init --args 1`), each array
// holds one pointer, and its entry 0 is the buffer; started with two, neither is bound.
TEST(InitBindBuffers, AHostArrayHoldingOnePointerInTheRunIsItsEntry) {
  const std::string text = R"(#include <nccl.h>
#include <cuda_runtime.h>
#include <mpi.h>
#include <cstdlib>
int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int nDev = atoi(argv[1]);
  ncclComm_t comm;
  ncclUniqueId id;
  ncclGetUniqueId(&id);
  ncclCommInitRank(&comm, 1, id, 0);
  ncclComm_t* comms = (ncclComm_t*)malloc(nDev * sizeof(ncclComm_t));
  comms[0] = comm;
  float** send = (float**)malloc(nDev * sizeof(float*));
  float** recv = (float**)malloc(nDev * sizeof(float*));
  for (int i = 0; i < nDev; ++i) {
    cudaMalloc(send + i, 256 * sizeof(float));
    cudaMalloc(recv + i, 256 * sizeof(float));
  }
  for (int it = 0; it < 10; ++it) {
    ncclGroupStart();
    for (int i = 0; i < nDev; ++i) ncclAllReduce(send[i], recv[i], 256, ncclFloat, ncclSum, comms[i], 0);
    ncclGroupEnd();
  }
  MPI_Finalize();
  return 0;
}
)";
  for (const std::string given : {"1", "2"}) {
    InitPassTrace trace;
    Result<BoundBuffers> b = BindStartedWith("ndev.cu", text, given, &trace);
    if (given == "1") {
      ASSERT_TRUE(b.ok()) << b.status().ToString();
      EXPECT_EQ(b->binds, (std::vector<std::string>{"cuco_bind.input(\"send_0\", send[0]);",
                                                    "cuco_bind.output(\"recv_0\", recv[0]);"}));
      EXPECT_TRUE(Traced(trace.lines, {"`recv`", "holds one in this run", "`nDev`", "`recv[0]`"}));
    } else {
      EXPECT_FALSE(b.ok()) << "started with '" << given << "', bound: " << (b.ok() ? b->binds.front() : "");
    }
  }
}

// The same arrays reached as members of a struct the loop's function is handed (nccl-tests'
// `args->recvbuffs[i]`): entry 0 where the array assigned to the member holds one pointer in the
// run; a member array of two is no buffer, and the skeleton's reason names it.
TEST(InitBindBuffers, AMemberArrayHoldingOnePointerInTheRunIsItsEntry) {
  const std::string text = R"(#include <nccl.h>
#include <cuda_runtime.h>
#include <mpi.h>
#include <cstdlib>
#include <vector>
struct Args { int n; void** sendbuffs; void** recvbuffs; ncclComm_t* comms; };
void bench(Args* args) {
  for (int it = 0; it < 10; ++it)
    for (int i = 0; i < args->n; ++i)
      ncclAllReduce(args->sendbuffs[i], args->recvbuffs[i], 256, ncclFloat, ncclSum, args->comms[i], 0);
}
int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int nGpus = atoi(argv[1]);
  ncclComm_t comm;
  ncclUniqueId id;
  ncclGetUniqueId(&id);
  ncclCommInitRank(&comm, 1, id, 0);
  std::vector<void*> sendbuffs(nGpus);
  std::vector<void*> recvbuffs(nGpus);
  for (int i = 0; i < nGpus; ++i) {
    cudaMalloc(&sendbuffs[i], 1024);
    cudaMalloc(&recvbuffs[i], 1024);
  }
  Args args;
  args.n = nGpus;
  args.sendbuffs = sendbuffs.data();
  args.recvbuffs = recvbuffs.data();
  args.comms = &comm;
  bench(&args);
  MPI_Finalize();
  return 0;
}
)";
  for (const std::string given : {"1", "2"}) {
    InitPassTrace trace;
    Result<BoundBuffers> b = BindStartedWith("args.cu", text, given, &trace);
    if (given == "1") {
      ASSERT_TRUE(b.ok()) << b.status().ToString();
      // Untyped (`void**`) and moved as ncclFloat: bound as floats (untyped_buffers.h).
      EXPECT_EQ(b->binds,
                (std::vector<std::string>{"cuco_bind.as<float>().input(\"args_sendbuffs_0\", args->sendbuffs[0]);",
                                          "cuco_bind.as<float>().output(\"args_recvbuffs_0\", args->recvbuffs[0]);"}));
      EXPECT_TRUE(Traced(trace.lines, {"its pointer is untyped and the collectives move it as `ncclFloat`"}));
      EXPECT_TRUE(Traced(trace.lines, {"`args->recvbuffs`", "holds one in this run", "`nGpus`"}));
    } else {
      ASSERT_FALSE(b.ok()) << "started with '" << given << "', bound: " << b->binds.front();
      EXPECT_NE(b.status().message().find("a member array of device pointers (`recvbuffs`, its length `nGpus` = 2)"),
                std::string::npos)
          << b.status().ToString();
    }
  }
}

// Per-layer weights and activations of a process with one communicator: each entry is a buffer of
// its own, bound with the array's role (the weights inputs; the activations, whose entry 0 is read
// first and whose others are all-reduced in place, inputs and outputs). With an array of
// communicators the same arrays would be per GPU, and stay unbound.
TEST(InitBindBuffers, EachEntryOfAPerLayerArrayIsABuffer) {
  const std::string text = R"(#include <nccl.h>
#include <cuda_runtime.h>
#include <cublas_v2.h>
int main(int argc, char** argv) {
  ncclComm_t comm;
  ncclUniqueId id;
  ncclGetUniqueId(&id);
  ncclCommInitRank(&comm, 1, id, 0);
  cublasHandle_t h;
  cublasCreate(&h);
  const int L = 2, d = 64;
  const float one = 1.f, zero = 0.f;
  float* w[L];
  float* act[L + 1];
  for (int l = 0; l < L; ++l) cudaMalloc(&w[l], d * d * sizeof(float));
  for (int l = 0; l <= L; ++l) cudaMalloc(&act[l], d * sizeof(float));
  for (int it = 0; it < 10; ++it) {
    for (int l = 0; l < L; ++l) {
      cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, d, 1, d, &one, w[l], d, act[l], d, &zero, act[l + 1], d);
      ncclAllReduce(act[l + 1], act[l + 1], d, ncclFloat, ncclSum, comm, 0);
    }
  }
  return 0;
}
)";
  auto p = GatherSmallProgram("layers.cu", text);
  InitPassTrace trace;
  Result<FoundLoop> found = FindLoop(p->facts, {}, &trace);
  ASSERT_TRUE(found.ok()) << found.status().ToString();
  Result<BoundBuffers> b = BindBuffers(p->facts, {}, *found, &trace);
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  EXPECT_EQ(b->binds, (std::vector<std::string>{"cuco_bind.input(\"w_0\", w[0]);", "cuco_bind.input(\"w_1\", w[1]);",
                                                "cuco_bind.inout(\"act_0\", act[0]);", "cuco_bind.inout(\"act_1\", act[1]);",
                                                "cuco_bind.inout(\"act_2\", act[2]);"}));
  EXPECT_TRUE(Traced(trace.lines, {"`act`", "an array of 3 buffers", "`L + 1`", "one communicator"}));
}

TEST(InitBindBuffers, BindNames) {
  EXPECT_EQ(BindName("d_w[cuco_program::rank()]"), "d_w");
  EXPECT_EQ(BindName("l.out"), "l_out");
  EXPECT_EQ(BindName("st->buf[2]"), "st_buf_2");
}

}  // namespace
}  // namespace cuco::scaffold_internal
