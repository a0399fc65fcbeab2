// cuco analyze: the corpus in tests/analyze/ (small host-driven programs) and the repo's
// workloads/gemm_reducescatter_program/program.cu, through each parse path.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>

#include "analyze/analysis.h"
#include "analyze/frontend.h"

namespace cuco {
namespace {

std::string CorpusFile(const std::string& name) { return std::string(CUCO_SOURCE_DIR) + "/tests/analyze/" + name; }

// Which parse path a test runs: the normal chain, forced stub headers, forced lexical scan.
enum class Mode { kDefault, kStub, kLexical };

Analysis Analyze(const std::string& path, Mode mode) {
  AnalyzeOptions o;
  o.include_dirs = DefaultIncludeDirs();
  o.allow_full = mode == Mode::kDefault;
  o.allow_clang = mode != Mode::kLexical;
  Result<Analysis> a = AnalyzeFile(path, o);
  EXPECT_TRUE(a.ok()) << a.status().ToString();
  if (!a.ok()) return Analysis{};
  if (mode == Mode::kStub) {
    EXPECT_EQ(a->parse_path, "clang-stub");
  }
  if (mode == Mode::kLexical) {
    EXPECT_EQ(a->parse_path, "lexical");
  }
  if (mode == Mode::kDefault) {
    EXPECT_TRUE(a->parse_path == "clang" || a->parse_path == "clang-stub") << a->parse_path;
  }
  if (a->parse_path != "clang") {
    EXPECT_FALSE(a->warnings.empty());  // never a silent fallback
  }
  return *std::move(a);
}

const AnalyzedOp* Find(const Analysis& a, const std::string& api, int nth = 0) {
  for (const auto& op : a.ops)
    if (op.api == api && nth-- == 0) return &op;
  return nullptr;
}

bool HasEdge(const Analysis& a, const std::string& from, const std::string& to, const std::string& buffer) {
  for (const auto& e : a.edges)
    if (a.ops[e.from].api == from && a.ops[e.to].api == to && e.buffer == buffer) return true;
  return false;
}

class AnalyzeCorpus : public ::testing::TestWithParam<Mode> {};

TEST_P(AnalyzeCorpus, AllreduceAfterGemmKernel) {
  Analysis a = Analyze(CorpusFile("allreduce_after_gemm.cu"), GetParam());
  const AnalyzedOp* ar = Find(a, "ncclAllReduce");
  ASSERT_NE(ar, nullptr);
  EXPECT_EQ(ar->function, "forward");
  EXPECT_EQ(ar->line, 25);
  EXPECT_EQ(ar->send, "partial");
  EXPECT_EQ(ar->recv, "partial");
  EXPECT_EQ(ar->count, "(size_t)m * n");
  EXPECT_EQ(ar->datatype, "ncclFloat");
  EXPECT_EQ(ar->red_op, "ncclSum");
  EXPECT_EQ(ar->comm, "comm");
  EXPECT_EQ(ar->stream, "stream");
  const AnalyzedOp* k = Find(a, "gemm_partial");
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->kind, "kernel");
  EXPECT_EQ(k->grid, "grid");
  EXPECT_EQ(k->stream, "stream");
  EXPECT_TRUE(HasEdge(a, "gemm_partial", "ncclAllReduce", "partial"));
  EXPECT_TRUE(HasEdge(a, "ncclAllReduce", "add_bias", "partial"));
  ASSERT_NE(Find(a, "MPI_Init"), nullptr);
  ASSERT_NE(Find(a, "ncclGetUniqueId"), nullptr);
  ASSERT_NE(Find(a, "ncclCommInitRank"), nullptr);
  EXPECT_EQ(Find(a, "ncclCommInitRank")->assigns, "comm");
  EXPECT_EQ(Find(a, "cudaMalloc", 2)->assigns, "c");
  ASSERT_NE(Find(a, "MPI_Barrier"), nullptr);
  EXPECT_EQ(Find(a, "MPI_Barrier")->kind, "sync");
  EXPECT_EQ(Find(a, "cudaStreamSynchronize")->stream, "stream");
}

TEST_P(AnalyzeCorpus, AllgatherThenConsumer) {
  Analysis a = Analyze(CorpusFile("allgather_consumer.cu"), GetParam());
  const AnalyzedOp* ag = Find(a, "ncclAllGather");
  ASSERT_NE(ag, nullptr);
  EXPECT_EQ(ag->send, "(const void*)shard");
  EXPECT_EQ(ag->reads, std::vector<std::string>{"shard"});
  EXPECT_EQ(ag->writes, std::vector<std::string>{"gathered"});
  EXPECT_EQ(Find(a, "cudaMallocAsync")->assigns, "gathered");
  EXPECT_EQ(Find(a, "cudaMallocAsync")->stream, "stream");
  EXPECT_EQ(Find(a, "cudaMalloc")->assigns, "shard");
  EXPECT_TRUE(HasEdge(a, "scale_shard", "ncclAllGather", "shard"));
  EXPECT_TRUE(HasEdge(a, "ncclAllGather", "layer_norm_rows", "gathered"));
}

TEST_P(AnalyzeCorpus, ReduceScatterWithCublasLt) {
  Analysis a = Analyze(CorpusFile("reducescatter_cublaslt.cu"), GetParam());
  const AnalyzedOp* gemm = Find(a, "cublasLtMatmul");
  ASSERT_NE(gemm, nullptr);
  EXPECT_EQ(gemm->kind, "gemm");
  EXPECT_EQ(gemm->writes, std::vector<std::string>{"L.d"});
  EXPECT_EQ(gemm->stream, "s");
  EXPECT_TRUE(HasEdge(a, "cublasLtMatmul", "ncclReduceScatter", "L.d"));
  EXPECT_TRUE(HasEdge(a, "ncclReduceScatter", "residual_add", "out_slice"));
}

// A program with no NCCL call communicates through its MPI calls (CUDA-aware MPI): they are its
// communication ops, the send and receive buffers read as NCCL's; an in-place reduction reads its
// receive buffer. Where a program makes NCCL calls, its MPI calls (the id's broadcast) are no ops.
TEST_P(AnalyzeCorpus, MpiCallsAreTheCommunicationOfAProgramWithoutNccl) {
  Analysis a = Analyze(CorpusFile("mpi_only_halo.cu"), GetParam());
  const AnalyzedOp* halo = Find(a, "MPI_Sendrecv");
  ASSERT_NE(halo, nullptr);
  EXPECT_EQ(halo->kind, "p2p");
  EXPECT_EQ(halo->send, "next + 1");
  EXPECT_EQ(halo->recv, "next + n - 1");
  EXPECT_EQ(halo->writes, std::vector<std::string>{"next"});
  EXPECT_TRUE(HasEdge(a, "smooth", "MPI_Sendrecv", "next"));
  const AnalyzedOp* sum = Find(a, "MPI_Allreduce");
  ASSERT_NE(sum, nullptr);
  EXPECT_EQ(sum->kind, "collective");
  EXPECT_EQ(sum->send, sum->recv);
  EXPECT_EQ(Find(Analyze(CorpusFile("allreduce_after_gemm.cu"), GetParam()), "MPI_Bcast"), nullptr);
}

TEST_P(AnalyzeCorpus, GroupedSendRecvIsOneAllToAll) {
  Analysis a = Analyze(CorpusFile("grouped_sendrecv.cu"), GetParam());
  ASSERT_EQ(a.groups.size(), 1u);
  EXPECT_EQ(a.groups[0].ops.size(), 2u);
  EXPECT_EQ(a.groups[0].start_line, 13);
  EXPECT_EQ(a.groups[0].end_line, 18);
  EXPECT_NE(a.groups[0].pattern.find("all-to-all"), std::string::npos);
  EXPECT_EQ(Find(a, "ncclSend")->peer, "peer");
  EXPECT_EQ(Find(a, "ncclRecv")->recv, "recv_buf + peer * per_peer");
  EXPECT_EQ(Find(a, "ncclRecv")->group, 0);
  EXPECT_TRUE(HasEdge(a, "pack_tokens", "ncclSend", "send_buf"));
  EXPECT_TRUE(HasEdge(a, "ncclRecv", "expert_ffn", "recv_buf"));
}

TEST_P(AnalyzeCorpus, TwoStreamsWithAnEvent) {
  Analysis a = Analyze(CorpusFile("two_streams_event.cu"), GetParam());
  EXPECT_EQ(a.streams, (std::vector<std::string>{"compute", "comm_stream"}));
  EXPECT_EQ(Find(a, "cudaEventRecord")->stream, "compute");
  EXPECT_EQ(Find(a, "cudaEventRecord")->buffer, "grad_ready");
  EXPECT_EQ(Find(a, "cudaStreamWaitEvent")->stream, "comm_stream");
  EXPECT_EQ(Find(a, "ncclAllReduce")->stream, "comm_stream");
  EXPECT_TRUE(HasEdge(a, "produce", "ncclAllReduce", "grad"));
  EXPECT_TRUE(HasEdge(a, "ncclAllReduce", "apply", "grad"));
  EXPECT_FALSE(HasEdge(a, "other_work", "ncclAllReduce", "act"));
  EXPECT_EQ(Find(a, "cudaDeviceSynchronize")->kind, "sync");
}

// A GEMM on a handle the function was given runs on the caller's stream: not known here, so no race
// with the collective after it; a copy's host side is no buffer.
TEST_P(AnalyzeCorpus, AClassLayersGemmOnItsCallersHandle) {
  Analysis a = Analyze(CorpusFile("class_layer.cu"), GetParam());
  const AnalyzedOp* gemm = Find(a, "cublasSgemm");
  ASSERT_NE(gemm, nullptr);
  EXPECT_EQ(gemm->stream, "");
  EXPECT_EQ(gemm->writes, std::vector<std::string>{"y"});
  for (const auto& w : a.warnings) EXPECT_EQ(w.find("a race"), std::string::npos) << w;
  for (const auto& e : a.edges)
    if (a.ops[e.from].api == "cublasSgemm") {
      EXPECT_EQ(e.via.rfind("not known (cublasSgemm:", 0), 0u) << e.via;
    }
  for (const auto& op : a.ops)
    if (op.api == "cudaMemcpy") {
      EXPECT_TRUE(op.reads.empty() || op.reads == std::vector<std::string>{"y"}) << op.line;
      EXPECT_TRUE(op.writes.empty() || op.writes == std::vector<std::string>{"w_"} ||
                  op.writes == std::vector<std::string>{"x"})
          << op.line;
    }
}

// A global handle given its stream in main, after the function using it: that stream.
TEST_P(AnalyzeCorpus, AGlobalHandleRunsOnTheStreamMainGivesIt) {
  Analysis a = Analyze(CorpusFile("global_handle.cu"), GetParam());
  ASSERT_NE(Find(a, "cublasSgemm"), nullptr);
  EXPECT_EQ(Find(a, "cublasSgemm")->stream, "g_stream");
  EXPECT_TRUE(HasEdge(a, "cublasSgemm", "ncclAllReduce", "y"));
  for (const auto& e : a.edges)
    if (a.ops[e.from].api == "cublasSgemm") {
      EXPECT_EQ(e.via, "stream");
    }
  for (const auto& w : a.warnings) EXPECT_EQ(w.find("a race"), std::string::npos) << w;
  if (a.parse_path != "clang") return;
  // With the real headers: cublasSgemm (cublasSgemm_v2 once expanded) is clang's own call, and the
  // kernel's device builtins are no error of the host code.
  for (const auto& w : a.warnings) {
    EXPECT_EQ(w.find("lexical cross-check"), std::string::npos) << w;
    EXPECT_EQ(w.find("clang error"), std::string::npos) << w;
  }
}

// Host code calling min and max unqualified (nvcc declares them for the host too): no clang error,
// and the all-reduce whose count uses min is clang's own call.
TEST_P(AnalyzeCorpus, HostMinAndMaxAreNvccsOwn) {
  Analysis a = Analyze(CorpusFile("host_min_max.cu"), GetParam());
  ASSERT_NE(Find(a, "ncclAllReduce"), nullptr);
  if (a.parse_path != "clang") return;
  for (const auto& w : a.warnings) {
    EXPECT_EQ(w.find("clang error"), std::string::npos) << w;
    EXPECT_EQ(w.find("lexical cross-check"), std::string::npos) << w;
  }
}

// Habits nvcc takes that clang's host-only parse did not (nvcc_habits.cu: launch bounds, the symbol
// and kernel overloads of cuda_runtime.h, __noinline__, device_launch_parameters.h, a header's device
// builtin, a launch with its chevrons apart): the kernel is a launch producing what the all-reduce
// sends, both clang's own, with no fallback to the stub headers and no clang error.
TEST_P(AnalyzeCorpus, HabitsNvccTakesParseWithTheRealHeaders) {
  Analysis a = Analyze(CorpusFile("nvcc_habits.cu"), GetParam());
  ASSERT_NE(Find(a, "ncclAllReduce"), nullptr);
  ASSERT_NE(Find(a, "scale"), nullptr);
  EXPECT_TRUE(HasEdge(a, "scale", "ncclAllReduce", "x"));
  if (GetParam() != Mode::kDefault) return;
  EXPECT_EQ(a.parse_path, "clang");
  for (const auto& w : a.warnings) {
    EXPECT_EQ(w.find("clang error"), std::string::npos) << w;
    EXPECT_EQ(w.find("lexical cross-check"), std::string::npos) << w;
  }
}

// A group opened and closed in a macro's replacement around its argument (`NCCL_GROUP({ ... });`):
// clang's parse places ncclGroupStart before the argument's reduce-scatter and ncclGroupEnd after it,
// so the reduce-scatter is grouped.
TEST_P(AnalyzeCorpus, AGroupWrittenInAMacroHoldsItsArgumentsCalls) {
  Analysis a = Analyze(CorpusFile("group_macro.cu"), GetParam());
  if (GetParam() != Mode::kDefault) return;
  const AnalyzedOp* rs = Find(a, "ncclReduceScatter");
  ASSERT_NE(rs, nullptr);
  ASSERT_EQ(a.groups.size(), 1u);
  EXPECT_EQ(rs->group, 0);
  EXPECT_EQ(a.groups[0].pattern, "collectives");
  EXPECT_EQ(a.groups[0].start_line, 22);
  EXPECT_EQ(a.groups[0].end_line, 22);
}

// Kernels launched through a function-like macro (`LAUNCH(sgd_k, n, shard, gshard, n, lr)`, the
// macro's replacement `k<<<...>>>(__VA_ARGS__)`): each launch is found with the use's arguments, so
// what it writes is known.
TEST_P(AnalyzeCorpus, AKernelLaunchedThroughAMacroIsALaunchOfItsArguments) {
  Analysis a = Analyze(CorpusFile("launch_macro.cu"), GetParam());
  if (GetParam() != Mode::kDefault) return;
  const AnalyzedOp* relu = Find(a, "relu_k");
  const AnalyzedOp* sgd = Find(a, "sgd_k");
  ASSERT_NE(relu, nullptr);
  ASSERT_NE(sgd, nullptr);
  EXPECT_EQ(relu->kind, "kernel");
  EXPECT_EQ(relu->writes, (std::vector<std::string>{"a"}));
  EXPECT_EQ(sgd->writes, (std::vector<std::string>{"shard"}));
  EXPECT_EQ(sgd->stream, "stream");
  EXPECT_EQ(sgd->macro, "LAUNCH");
  EXPECT_TRUE(HasEdge(a, "relu_k", "ncclReduceScatter", "a"));
  EXPECT_TRUE(HasEdge(a, "ncclReduceScatter", "sgd_k", "gshard"));
  // A check macro's helper named nccl_check is no op of the group it is used in.
  ASSERT_EQ(a.groups.size(), 1u);
  ASSERT_EQ(a.groups[0].ops.size(), 2u);
  for (int i : a.groups[0].ops) EXPECT_EQ(a.ops[static_cast<size_t>(i)].api, "ncclAllReduce");
}

// A check macro naming its argument twice expands to two calls spelled at one place: one op each.
TEST_P(AnalyzeCorpus, ACheckMacroNamingItsCallTwiceMakesOneOp) {
  Analysis a = Analyze(CorpusFile("check_macro_twice.cu"), GetParam());
  if (GetParam() != Mode::kDefault) return;
  int gemms = 0;
  for (const auto& op : a.ops) gemms += op.api == "cublasLtMatmul";
  EXPECT_EQ(gemms, 2);
  ASSERT_NE(Find(a, "cublasLtMatmul", 1), nullptr);
  EXPECT_EQ(Find(a, "cublasLtMatmul", 1)->writes, (std::vector<std::string>{"dg"}));
  EXPECT_TRUE(HasEdge(a, "cublasLtMatmul", "ncclAllReduce", "dg"));
}

// Comments inside a call's arguments are not part of them: the all-gather's send and receive
// buffers are named, and the kernels before and after it are its producer and consumer.
TEST_P(AnalyzeCorpus, CommentsInsideACallsArgumentsAreNotArguments) {
  Analysis a = Analyze(CorpusFile("commented_args.cu"), GetParam());
  const AnalyzedOp* ag = Find(a, "ncclAllGather");
  ASSERT_NE(ag, nullptr);
  EXPECT_EQ(ag->send, "sendbuff + rank");
  EXPECT_EQ(ag->recv, "recvbuff");
  EXPECT_TRUE(HasEdge(a, "fill", "ncclAllGather", "sendbuff"));
  EXPECT_TRUE(HasEdge(a, "ncclAllGather", "scale", "recvbuff"));
}

// A helper defined before main GEMMs on the handle it is passed: at the call, the one stream main
// gives that handle (the helper's own op: not known), so no race with the all-reduce on it.
TEST_P(AnalyzeCorpus, AHandleParameterRunsOnTheStreamItsCallerGivesIt) {
  Analysis a = Analyze(CorpusFile("handle_parameter.cu"), GetParam());
  ASSERT_NE(Find(a, "gemm"), nullptr);
  EXPECT_EQ(Find(a, "gemm")->stream, "stream");
  EXPECT_TRUE(HasEdge(a, "gemm", "ncclAllReduce", "y"));
  for (const auto& w : a.warnings) EXPECT_EQ(w.find("a race"), std::string::npos) << w;
}

// cudaMemcpy2D(Async) writes its first argument and reads its third (a halo's strided rows); its
// seventh says which side is the host's.
TEST_P(AnalyzeCorpus, StridedCopiesReadAndWriteLikeCopies) {
  Analysis a = Analyze(CorpusFile("halo_copy2d.cu"), GetParam());
  EXPECT_TRUE(HasEdge(a, "cudaMemcpy2DAsync", "ncclSend", "send_left"));
  EXPECT_TRUE(HasEdge(a, "ncclRecv", "cudaMemcpy2DAsync", "recv_left"));
  const AnalyzedOp* back = Find(a, "cudaMemcpy2D");
  ASSERT_NE(back, nullptr);
  EXPECT_EQ(back->reads, std::vector<std::string>{"grid"});
  EXPECT_TRUE(back->writes.empty()) << "the host array is no device buffer";
}

// A handle given its stream by the name of the setter's parameter (a constructor's `st`, kept in a
// member too): in another function that name is not known, so no race is claimed against the member.
TEST_P(AnalyzeCorpus, AHandlesStreamNamedByTheSettersParameterIsNotKnownElsewhere) {
  if (GetParam() == Mode::kLexical) GTEST_SKIP() << "the lexical scan reads no constructor's parameters";
  Analysis a = Analyze(CorpusFile("member_handle_stream.cu"), GetParam());
  ASSERT_NE(Find(a, "cublasSaxpy"), nullptr);
  EXPECT_EQ(Find(a, "cublasSaxpy")->stream, "");
  EXPECT_TRUE(HasEdge(a, "cublasSaxpy", "ncclAllReduce", "y"));
  for (const auto& w : a.warnings) EXPECT_EQ(w.find("a race"), std::string::npos) << w;
}

TEST_P(AnalyzeCorpus, EdgesSayHowTheyAreOrdered) {
  Analysis a = Analyze(CorpusFile("two_streams_event.cu"), GetParam());
  for (const auto& e : a.edges) {
    if (a.ops[e.from].api == "produce") {
      EXPECT_EQ(e.via, "event grad_ready");
    }
    if (a.ops[e.to].api == "apply") {
      EXPECT_EQ(e.via, "host sync (cudaStreamSynchronize comm_stream)");
    }
  }
  for (const auto& w : a.warnings) EXPECT_EQ(w.find("a race"), std::string::npos) << w;

  Analysis r = Analyze(CorpusFile("unordered_streams.cu"), GetParam());
  bool race = false, by_stream = false, by_sync = false;
  for (const auto& e : r.edges) {
    if (r.ops[e.from].api == "produce") race = e.via == "unordered";
    if (r.ops[e.to].api == "scale") by_stream = e.via == "stream";
    if (r.ops[e.to].api == "apply") by_sync = e.via == "host sync (cudaStreamSynchronize comm_stream)";
  }
  EXPECT_TRUE(race && by_stream && by_sync);
  bool warned = false;
  for (const auto& w : r.warnings)
    warned = warned || w.find("line 13: ncclAllReduce (stream comm_stream) uses `grad` from produce at line 12 "
                              "(stream compute) with no event or synchronisation between them: a race") != std::string::npos;
  EXPECT_TRUE(warned);
  EXPECT_NE(AnalysisPromptText(r).find("(ordered by unordered)"), std::string::npos);
}

// With clang, a kernel's body says which pointers it reads and which it only writes: the GEMM
// kernel writes `partial` without reading it, so `partial` is the GEMM's output, not its input.
TEST_P(AnalyzeCorpus, KernelBodiesSayWhatIsReadAndWhatIsOnlyWritten) {
  Analysis a = Analyze(CorpusFile("allreduce_after_gemm.cu"), GetParam());
  const AnalyzedOp* gemm = Find(a, "gemm_partial");
  ASSERT_NE(gemm, nullptr);
  if (a.parse_path == "lexical") return;  // no types, no bodies: every argument may be read and written
  EXPECT_EQ(gemm->writes, std::vector<std::string>{"partial"});
  EXPECT_EQ(gemm->reads, (std::vector<std::string>{"a", "b"}));
  const AnalyzedOp* bias = Find(a, "add_bias");
  ASSERT_NE(bias, nullptr);
  EXPECT_EQ(bias->reads, (std::vector<std::string>{"partial", "bias"}));  // out[i] += bias[...]
  EXPECT_EQ(bias->writes, std::vector<std::string>{"partial"});
}

// The legacy default stream orders work of blocking streams: a synchronous cudaMemcpy before a
// collective on a cudaStreamCreate'd stream is no race; a non-blocking stream gets no such order.
TEST_P(AnalyzeCorpus, TheLegacyDefaultStreamOrdersBlockingStreams) {
  Analysis a = Analyze(CorpusFile("legacy_default_stream.cu"), GetParam());
  std::string via_copy, via_fill;
  for (const auto& e : a.edges) {
    if (a.ops[e.from].api == "cudaMemcpy") via_copy = e.via;
    if (a.ops[e.from].api == "fill") via_fill = e.via;
  }
  EXPECT_EQ(via_copy, "legacy default stream");
  EXPECT_EQ(via_fill, "unordered");
  int races = 0;
  for (const auto& w : a.warnings) races += w.find("a race") != std::string::npos;
  EXPECT_EQ(races, 1);
}

// A stream reached through a pointer to an array entry (`*cur`, `cur = &streams[k]`) blocks when
// every stream the program creates does: the kernels on the legacy default stream order the send
// and the receive (a Cannon GEMM's false races); one non-blocking creation anywhere and it is not
// known to.
TEST_P(AnalyzeCorpus, AStreamOfUnknownCreationBlocksWhenEveryCreatedOneDoes) {
  for (const char* file : {"stream_through_pointer.cu", "stream_through_pointer_nonblocking.cu"}) {
    Analysis a = Analyze(CorpusFile(file), GetParam());
    const bool blocking = std::string(file) == "stream_through_pointer.cu";
    int races = 0;
    for (const auto& w : a.warnings) races += w.find("a race") != std::string::npos;
    EXPECT_EQ(races, blocking ? 0 : 1) << file;
    bool legacy = false;
    for (const auto& e : a.edges) legacy |= e.via.rfind("legacy default stream", 0) == 0;
    EXPECT_EQ(legacy, blocking) << file;
  }
}

// An NCCL buffer that is the address of a variable (`&val`) is no device memory: a warning for each;
// `&d[off]`, an element of a device array, is none.
TEST_P(AnalyzeCorpus, AVariablesAddressAsAnNcclBufferIsFlagged) {
  Analysis a = Analyze(CorpusFile("variable_address_buffers.cu"), GetParam());
  std::vector<std::string> flagged;
  for (const auto& w : a.warnings)
    if (w.find("is the address of the variable") != std::string::npos) flagged.push_back(w);
  ASSERT_EQ(flagged.size(), 2u) << (flagged.empty() ? "" : flagged[0]);
  EXPECT_EQ(flagged[0].rfind("line 9: ncclAllReduce's send buffer `&val` is the address of the variable `val`", 0), 0u)
      << flagged[0];
  EXPECT_NE(flagged[1].find("receive buffer `&sum`"), std::string::npos) << flagged[1];
}

// Events in an array: a wait for `ready[buf]` may be the record of `ready[0]` before it (a SUMMA's
// primed panel: two false races were reported), never `ready[1]`'s for another number.
TEST_P(AnalyzeCorpus, AnEventArraysEntryByAVariableMayBeTheOneRecorded) {
  Analysis a = Analyze(CorpusFile("event_array_entries.cu"), GetParam());
  std::map<std::string, std::string> via;  // the consumer -> what orders it after its collective
  for (const auto& e : a.edges) via[a.ops[e.to].api] = e.via;
  EXPECT_EQ(via["use"], "event ready[0]");
  EXPECT_EQ(via["scale"], "unordered");
}

// A stream a getter hands out (`link.stream()`) is the member it returns, which the class's method
// names as `this->stream_`: one stream, no race (clang's parse: the getter's body is read).
TEST(GetterStream, AStreamFromAGetterIsTheMemberItReturns) {
  Analysis a = Analyze(CorpusFile("getter_stream.cu"), Mode::kDefault);
  std::map<std::string, std::string> via;  // buffer -> what orders its producer and its all-reduce
  for (const auto& e : a.edges) via[e.buffer] = e.via;
  EXPECT_EQ(via["c"], "stream");
  EXPECT_EQ(via["a"], "unordered");  // the kernel on `other`: a race all the same
  int races = 0;
  for (const auto& w : a.warnings) races += w.find("a race") != std::string::npos;
  EXPECT_EQ(races, 1);
}

// A sync inside a helper or a method orders the kernel before the call and the collective after it,
// through the helper's own helpers and a class template's method too; a helper that does not wait
// leaves the race.
TEST_P(AnalyzeCorpus, SyncsInsideHelpersOrderTheirCallers) {
  Analysis a = Analyze(CorpusFile("sync_in_helper.cu"), GetParam());
  std::map<std::string, std::string> via;  // buffer -> what orders its kernel and its all-reduce
  for (const auto& e : a.edges)
    if (a.ops[e.from].api == "fill" || a.ops[e.from].api == "cudaMemsetAsync") via[e.buffer] = e.via;
  EXPECT_EQ(via["a"].rfind("host sync (cudaDeviceSynchronize in wait:", 0), 0u) << via["a"];
  EXPECT_EQ(via["b"].rfind("host sync (cudaStreamSynchronize work in wait_for:", 0), 0u) << via["b"];
  EXPECT_EQ(via["c"].rfind("host sync (cudaDeviceSynchronize in settle:", 0), 0u) << via["c"];
  EXPECT_EQ(via["e"], "unordered");
  EXPECT_EQ(via["h"], "unordered");  // the helper waited for another stream than the kernel's
  EXPECT_EQ(via["f"].rfind("host sync (cudaDeviceSynchronize in wait_all:", 0), 0u) << via["f"];
  EXPECT_EQ(via["g"].rfind("host sync (cudaDeviceSynchronize in wait_all:", 0), 0u) << via["g"];
  int races = 0;
  for (const auto& w : a.warnings) races += w.find("a race") != std::string::npos;
  EXPECT_EQ(races, 2);
}

// rodhuega/tfgMatrixNccl: `matrixA->waitAllStreamsOfAllWorkers();` in a class template's method, a
// call clang left without a name, so its sync was not seen and two false races were reported.
TEST(DependentCallee, TheNameBeforeTheCallsParenthesis) {
  using analyze_internal::DependentCallee;
  EXPECT_EQ(DependentCallee("matrixA->waitAllStreamsOfAllWorkers();", 0), "waitAllStreamsOfAllWorkers");
  EXPECT_EQ(DependentCallee("workers[g(i)]->wait ();", 0), "wait");
  EXPECT_EQ(DependentCallee("f<T>(x);", 0), "");
  EXPECT_EQ(DependentCallee("(*fp)(x);", 0), "");
  EXPECT_EQ(DependentCallee("x = y; g();", 0), "");
}

TEST_P(AnalyzeCorpus, ProducersAndCollectivesInsideHelpers) {
  Analysis a = Analyze(CorpusFile("helper_functions.cu"), GetParam());
  const AnalyzedOp* produce = Find(a, "compute_grad");
  const AnalyzedOp* reduce = Find(a, "sync_grads");
  ASSERT_NE(produce, nullptr);
  ASSERT_NE(reduce, nullptr);
  EXPECT_EQ(produce->kind, "call");
  EXPECT_EQ(produce->function, "main");
  auto has = [](const std::vector<std::string>& v, const char* x) { return std::find(v.begin(), v.end(), x) != v.end(); };
  EXPECT_TRUE(has(produce->reads, "act"));
  EXPECT_TRUE(has(produce->writes, "grad"));
  if (GetParam() != Mode::kLexical) {  // clang knows act is const
    EXPECT_EQ(produce->writes, std::vector<std::string>{"grad"});
  }
  EXPECT_FALSE(produce->contains_comm);
  EXPECT_EQ(produce->stream, "stream");  // the helper's parameter s, seen from main
  EXPECT_EQ(reduce->kind, "call");
  EXPECT_TRUE(reduce->contains_comm);     // through sum_over_ranks, one level further down
  EXPECT_TRUE(has(reduce->writes, "grad"));
  // main's graph: compute_grad -> sync_grads (an all-reduce inside) -> sgd, ordered by the stream.
  EXPECT_TRUE(HasEdge(a, "compute_grad", "sync_grads", "grad"));
  EXPECT_TRUE(HasEdge(a, "sync_grads", "sgd", "grad"));
  for (const auto& e : a.edges)
    if (a.ops[e.from].function == "main") {
      EXPECT_EQ(e.via, "stream") << a.ops[e.from].api << " -> " << a.ops[e.to].api;
    }
  // The helpers' own parameters, and the collective where it is issued.
  for (const auto& f : a.functions)
    if (f.name == "sum_over_ranks") {
      EXPECT_EQ(f.params, (std::vector<std::string>{"buf", "n", "comm", "st"}));
    }
  EXPECT_EQ(Find(a, "ncclAllReduce")->function, "sum_over_ranks");
  EXPECT_EQ(Find(a, "sum_over_ranks")->function, "sync_grads");
  const std::string report = FormatAnalysis(a);
  EXPECT_NE(report.find("sync_grads:"), std::string::npos) << report;
  EXPECT_NE(report.find("(issues NCCL inside)"), std::string::npos) << report;
}

// Helpers that communicate on their object's members or on globals touch none of their caller's
// variables, yet they are how main reaches the communication: their calls stay in the graph.
TEST_P(AnalyzeCorpus, MethodsAndFunctionsOnMembersOrGlobalsReachTheCommunication) {
  Analysis a = Analyze(CorpusFile("member_state_helpers.cu"), GetParam());
  const AnalyzedOp* step = Find(a, "step");
  const AnalyzedOp* globals = Find(a, "sync_globals");
  ASSERT_NE(step, nullptr);
  ASSERT_NE(globals, nullptr);
  EXPECT_EQ(step->function, "main");
  EXPECT_EQ(step->kind, "call");
  EXPECT_TRUE(step->contains_comm);
  EXPECT_TRUE(globals->contains_comm);
  ASSERT_NE(Find(a, "reduce_gradients"), nullptr);
  EXPECT_EQ(Find(a, "reduce_gradients")->function, "step");
  // A helper touching nothing of its caller's that does not communicate adds nothing.
  EXPECT_EQ(Find(a, "backward"), nullptr);
}

// The communication in files main includes (an included .cu whose loop calls a header's
// send/recv): both join the analysis, each read from main's unit (the header uses a type main
// declares); an included header without communication does not.
TEST_P(AnalyzeCorpus, CommunicationInIncludedFilesIsAnalysed) {
  Analysis a = Analyze(CorpusFile("included_ring/main.cu"), GetParam());
  const AnalyzedOp* forward = Find(a, "forward");
  const AnalyzedOp* exchange = Find(a, "exchange");
  const AnalyzedOp* send = Find(a, "ncclSend");
  ASSERT_NE(forward, nullptr);
  ASSERT_NE(exchange, nullptr);
  ASSERT_NE(send, nullptr);
  EXPECT_EQ(forward->function, "main");
  EXPECT_TRUE(forward->contains_comm);
  EXPECT_EQ(exchange->function, "forward");
  EXPECT_EQ(std::filesystem::path(exchange->file).filename(), "ring.cu");
  EXPECT_EQ(send->function, "exchange");
  EXPECT_EQ(std::filesystem::path(send->file).filename(), "comm.h");
  EXPECT_EQ(send->send, "r.send");
  // A header that computes on its arguments (a kernel launch helper) joins too (stop 73: a GEMM
  // helper's writes were invisible to its callers).
  bool math = false;
  for (const auto& f : a.files) math |= std::filesystem::path(f).filename() == "math.h";
  EXPECT_TRUE(math);
  // Read from main's unit, the header has no error of its own (parsed alone, `Ring` is unknown).
  for (const auto& w : a.warnings) EXPECT_FALSE(w.rfind("comm.h: clang", 0) == 0 && w.find("error") != std::string::npos) << w;
}

TEST_P(AnalyzeCorpus, MpiFreeBootstrap) {
  Analysis a = Analyze(CorpusFile("mpi_free_bootstrap.cu"), GetParam());
  EXPECT_EQ(Find(a, "MPI_Init"), nullptr);
  ASSERT_NE(Find(a, "ncclGetUniqueId"), nullptr);
  EXPECT_EQ(Find(a, "ncclGetUniqueId")->function, "read_or_create_id");
  EXPECT_EQ(Find(a, "ncclCommSplit")->assigns, "half_comm");
  EXPECT_EQ(Find(a, "ncclCommSplit")->comm, "comm");
  EXPECT_EQ(Find(a, "ncclMemAlloc")->assigns, "weights");
  EXPECT_EQ(Find(a, "cudaMallocHost")->assigns, "loss");
  EXPECT_EQ(Find(a, "ncclBroadcast")->root, "0");
  EXPECT_EQ(Find(a, "ncclReduce")->comm, "half_comm");
}

TEST_P(AnalyzeCorpus, RepoGemmReduceScatterProgram) {
  Analysis a = Analyze(std::string(CUCO_SOURCE_DIR) + "/workloads/gemm_reducescatter_program/program.cu", GetParam());
  const AnalyzedOp* rs = Find(a, "ncclReduceScatter");
  ASSERT_NE(rs, nullptr);
  EXPECT_EQ(rs->function, "strategy_run");
  EXPECT_EQ(rs->send, "s.partial");
  EXPECT_EQ(rs->recv, "C");
  EXPECT_EQ(rs->stream, "stream");
  EXPECT_TRUE(HasEdge(a, "cublasLtMatmul", "ncclReduceScatter", "s.partial"));
  EXPECT_EQ(Find(a, "cudaMalloc")->assigns, "s.partial");
  ASSERT_NE(Find(a, "fill_inputs"), nullptr);
  EXPECT_EQ(Find(a, "fill_inputs")->kind, "kernel");
  EXPECT_NE(AnalysisPromptText(a).find("edge #"), std::string::npos);
}

// A source beside main's that defines no function, only its globals (eth-cscs' miniapp stats.cu:
// `namespace stats { unsigned int iters_cg; }`), joins the program with nothing to analyse in it,
// and says so; main's file without a function is still an error.
TEST_P(AnalyzeCorpus, ASourceOfGlobalsOnlyIsNoError) {
  AnalyzeOptions o;
  o.include_dirs = DefaultIncludeDirs();
  o.allow_full = GetParam() == Mode::kDefault;
  o.allow_clang = GetParam() != Mode::kLexical;
  const std::string main_text = std::string("#include <nccl.h>\nnamespace stats { extern unsigned iters; }\n") +
                                "int main() { stats::iters = 1; return 0; }\n";
  const std::string globals = "namespace stats {\n    unsigned int iters;\n    bool verbose;\n}\n";
  Result<Analysis> a = AnalyzeFiles({"/nowhere/main.cu", "/nowhere/stats.cu"}, {main_text, globals}, o);
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  bool said = false;
  for (const std::string& w : a->warnings) said |= w == "stats.cu: defines no function (declarations only): nothing to analyse in it";
  EXPECT_TRUE(said) << ::testing::PrintToString(a->warnings);
  EXPECT_FALSE(AnalyzeFiles({"/nowhere/stats.cu", "/nowhere/main.cu"}, {globals, main_text}, o).ok());
}

INSTANTIATE_TEST_SUITE_P(Paths, AnalyzeCorpus, ::testing::Values(Mode::kDefault, Mode::kStub, Mode::kLexical),
                         [](const auto& info) {
                           return std::string(info.param == Mode::kDefault ? "Default"
                                              : info.param == Mode::kStub  ? "Stub"
                                                                           : "Lexical");
                         });

TEST(Analyze, FullParseWorksWithTheseHeaders) {
  // Where the CUDA headers are installed, the real-header path must be the one used.
  if (!std::filesystem::exists("/usr/local/cuda/include/cuda_runtime.h")) GTEST_SKIP() << "no CUDA headers";
  Analysis a = Analyze(CorpusFile("allreduce_after_gemm.cu"), Mode::kDefault);
  EXPECT_EQ(a.parse_path, "clang");
}

// A header clang cannot find is named, with the line that includes it, as the reason the file was
// scanned lexically (cuco init said "libclang-14 did not load" and named main.cu instead).
TEST(Analyze, AMissingHeaderIsNamedWhereItIsIncluded) {
  std::string path = std::filesystem::temp_directory_path() / "cuco_analyze_missing_header.cu";
  std::ofstream(path) << "#include <nccl.h>\n#include <cub/not_there/block_reduce.cuh>\n"
                         "void f(float* x, ncclComm_t c) { ncclAllReduce(x, x, 1, ncclFloat, ncclSum, c, 0); }\n";
  AnalyzeOptions o;
  o.include_dirs = DefaultIncludeDirs();
  Result<Analysis> a = AnalyzeFile(path, o);
  ASSERT_TRUE(a.ok()) << a.status().message();
  EXPECT_EQ(a->parse_path, "lexical");
  ASSERT_EQ(a->parse_failures.size(), 1u);
  EXPECT_EQ(a->parse_failures[0], "cuco_analyze_missing_header.cu:2: header 'cub/not_there/block_reduce.cuh' not found");
  std::filesystem::remove(path);
}

// A program built with -std=c++14 that includes Thrust (HicrestLaboratory/Blink-GPU's gpu_ops.h):
// CUDA 13's Thrust refuses anything older than C++17 (clang's first error, of 278 in its headers).
// The analysis reads the standard as the harness builds it, C++17. What is left are errors in the
// toolkit's own device code (CUB's PTX asm, cooperative_groups' intrinsics) that a host-only parse
// cannot take: counted apart, they warn of nothing.
TEST(Analyze, AStandardOlderThanCpp17IsReadAsCpp17) {
  if (!std::filesystem::exists("/usr/local/cuda/include/cuda_runtime.h")) GTEST_SKIP() << "no CUDA headers";
  std::string path = std::filesystem::temp_directory_path() / "cuco_analyze_cpp14_thrust.cu";
  std::ofstream(path) << "#include <nccl.h>\n#include <thrust/reduce.h>\n#include <thrust/execution_policy.h>\n"
                         "void f(float* x, ncclComm_t c) { ncclAllReduce(x, x, 1, ncclFloat, ncclSum, c, 0); }\n"
                         "float g(float* x) { return thrust::reduce(thrust::device, x, x + 4); }\n";
  AnalyzeOptions o;
  o.include_dirs = DefaultIncludeDirs();
  o.program_flags = {"-std=c++14", "-isystem/usr/local/cuda/include/cccl"};  // as nvcc adds it (nvcc_includes.h)
  Result<Analysis> a = AnalyzeFile(path, o);
  ASSERT_TRUE(a.ok()) << a.status().message();
  EXPECT_EQ(a->parse_path, "clang") << (a->parse_failures.empty() ? "" : a->parse_failures[0]);
  for (const std::string& w : a->warnings) EXPECT_EQ(w.find("C++17"), std::string::npos) << w;
  for (const std::string& w : a->warnings) EXPECT_EQ(w.find("clang error(s)"), std::string::npos) << w;
  std::filesystem::remove(path);
}

// A tensor-core program names WMMA's namespaces at file scope (MattJBorowski1991/TensorParallelPTX's
// kernels/fp16_wmma.cu); mma.h declares them for nvcc only, so the host-only parse gets them from
// the prelude: no clang error in the analysed file.
TEST(Analyze, WmmaNamespacesAtFileScopeParse) {
  if (!std::filesystem::exists("/usr/local/cuda/include/cuda_runtime.h")) GTEST_SKIP() << "no CUDA headers";
  std::string path = std::filesystem::temp_directory_path() / "cuco_analyze_wmma.cu";
  std::ofstream(path) << "#include <mma.h>\n#include <nccl.h>\nusing namespace nvcuda;\nusing namespace nvcuda::wmma;\n"
                         "namespace wx = nvcuda::wmma::experimental;\n"
                         "__global__ void k(half* a) { wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> f; }\n"
                         "void f(float* x, ncclComm_t c) { ncclAllReduce(x, x, 1, ncclFloat, ncclSum, c, 0); }\n";
  AnalyzeOptions o;
  o.include_dirs = DefaultIncludeDirs();
  Result<Analysis> a = AnalyzeFile(path, o);
  ASSERT_TRUE(a.ok()) << a.status().message();
  EXPECT_EQ(a->parse_path, "clang");
  for (const std::string& w : a->warnings) EXPECT_EQ(w.find("clang error(s)"), std::string::npos) << w;
  std::filesystem::remove(path);
}

// The callers of a set of functions, through the analysis's `call` ops, transitively.
TEST(Analyze, AddCallersClosesOverCallOps) {
  Analysis a;
  auto call = [](const std::string& api, const std::string& fn) {
    AnalyzedOp op;
    op.kind = "call", op.api = api, op.function = fn;
    return op;
  };
  AnalyzedOp kernel;
  kernel.kind = "kernel", kernel.api = "k", kernel.function = "leaf";
  a.ops = {call("mid", "top"), call("leaf", "mid"), kernel, call("other", "main"), call("leaf", "")};
  std::set<std::string> names = {"leaf"};
  AddCallers(a, &names);
  EXPECT_EQ(names, (std::set<std::string>{"leaf", "mid", "top"}));  // not `main`, which calls `other`
}

TEST(Analyze, BufferBase) {
  EXPECT_EQ(BufferBase("(char*)s.buf + off"), "s.buf");
  EXPECT_EQ(BufferBase("&comm"), "comm");
  EXPECT_EQ(BufferBase("static_cast<const void*>(A)"), "A");
  EXPECT_EQ(BufferBase("reinterpret_cast<float*>(ws->out) + 4"), "ws->out");
  EXPECT_EQ(BufferBase("thrust::raw_pointer_cast(recv.data())"), "recv");
  EXPECT_EQ(BufferBase("raw_pointer_cast(v.data()) + 8"), "v");
  EXPECT_EQ(BufferBase("std::to_address(p)"), "p");
  EXPECT_EQ(BufferBase("(s == 0 ? st.x : st.recv) + m * n"), "st.x");  // a ternary: its first alternative
  EXPECT_EQ(BufferBase("l == last ? out : tmp[l % 2]"), "out");
  EXPECT_EQ(BufferBase("flag ? ns::buf : other"), "ns::buf");
  EXPECT_EQ(BufferBase("(void**)&p"), "p");
  EXPECT_EQ(BufferBase("bufs[rank] + 8"), "bufs");
  EXPECT_EQ(BufferBase("v.data()"), "v");
  EXPECT_EQ(BufferBase("(x)"), "x");
  EXPECT_EQ(BufferBase("42"), "42");
}

// A call with explicit template arguments names its function, a kernel's or a host function's
// (`time_it<float>(...)` two calls below main: its caller reached no communication); a comparison
// that happens to read `a < b ... > (c)` is no call.
TEST(Analyze, ExplicitTemplateArgumentsStillNameTheCall) {
  std::string name;
  std::vector<std::string> config, args;
  size_t end = 0;
  ASSERT_TRUE(analyze_internal::ReadCallAt("TimeIt<float, 4>(send, n);", 0, &name, &config, &args, &end));
  EXPECT_EQ(name, "TimeIt");
  EXPECT_TRUE(config.empty());
  EXPECT_EQ(args, (std::vector<std::string>{"send", "n"}));
  ASSERT_TRUE(analyze_internal::ReadCallAt("scale<T><<<g, b, 0, s>>>(x, n);", 0, &name, &config, &args, &end));
  EXPECT_EQ(name, "scale");
  EXPECT_EQ(config.size(), 4u);
  EXPECT_FALSE(analyze_internal::ReadCallAt("a < b && c > (d)", 0, &name, &config, &args, &end));
  EXPECT_FALSE(analyze_internal::ReadCallAt("a < b || c > (d)", 0, &name, &config, &args, &end));
  EXPECT_FALSE(analyze_internal::ReadCallAt("i < n; j > (k)", 0, &name, &config, &args, &end));
}

TEST(Analyze, SplitArgs) {
  EXPECT_EQ(SplitArgs("a, f(b, c), d[1, 2]"), (std::vector<std::string>{"a", "f(b, c)", "d[1, 2]"}));
  EXPECT_EQ(SplitArgs("static_cast<size_t>(x), y"), (std::vector<std::string>{"static_cast<size_t>(x)", "y"}));
  // Line splices (blinkplus's `comms[i], \` ending each line of a call) are not the arguments'.
  EXPECT_EQ(SplitArgs("comms[i], \\\n    streams[i]"), (std::vector<std::string>{"comms[i]", "streams[i]"}));
  EXPECT_TRUE(SplitArgs("").empty());
}

TEST(Analyze, MissingFileIsAnErrorNamingIt) {
  Result<Analysis> a = AnalyzeFile("/nonexistent/prog.cu");
  ASSERT_FALSE(a.ok());
  EXPECT_NE(a.status().message().find("/nonexistent/prog.cu"), std::string::npos);
}

// A template kernel clang sees launched but cannot read the body of (CUB's BlockReduce, which
// clang half-parses, here not declared at all): the kernel's text says what it reads and writes, as
// for a launch only the lexical cross-check found (without it `y` was read too).
TEST(Analyze, ATemplateKernelsTextSaysWhatItReadsAndWrites) {
  std::string path = std::filesystem::temp_directory_path() / "cuco_analyze_template_kernel.cu";
  std::ofstream(path) << "#include <nccl.h>\n"
                         "template <int BLOCK>\n"
                         "__global__ void scale(const float* in, float* out, int n) {\n"
                         "  typedef cub::BlockReduce<float, BLOCK> BlockReduce;\n"
                         "  __shared__ typename BlockReduce::TempStorage tmp;\n"
                         "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                         "  if (i < n) out[i] = 2 * in[i];\n"
                         "}\n"
                         "void step(float* x, float* y, int n, ncclComm_t c, cudaStream_t s) {\n"
                         "  scale<256><<<(n + 255) / 256, 256, 0, s>>>(x, y, n);\n"
                         "  ncclAllReduce(y, y, n, ncclFloat, ncclSum, c, s);\n"
                         "}\n";
  AnalyzeOptions o;
  o.include_dirs = DefaultIncludeDirs();
  Result<Analysis> a = AnalyzeFile(path, o);
  std::filesystem::remove(path);
  ASSERT_TRUE(a.ok()) << a.status().message();
  if (a->parse_path == "lexical") GTEST_SKIP() << "clang did not parse it";
  const AnalyzedOp* k = Find(*a, "scale");
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->reads, std::vector<std::string>{"x"});
  EXPECT_EQ(k->writes, std::vector<std::string>{"y"});
}

TEST(Analyze, UnparseableFileIsAnError) {
  std::string path = std::filesystem::temp_directory_path() / "cuco_analyze_garbage.cu";
  std::ofstream(path) << "))) garbage ((( <<<\n";
  AnalyzeOptions o;
  o.allow_full = false;
  Result<Analysis> a = AnalyzeFile(path, o);
  ASSERT_FALSE(a.ok());
  EXPECT_NE(a.status().message().find(path), std::string::npos);
  std::filesystem::remove(path);
}

TEST(Analyze, JsonAndTextOutputs) {
  Analysis a = Analyze(CorpusFile("grouped_sendrecv.cu"), Mode::kLexical);
  nlohmann::json j = AnalysisToJson(a);
  EXPECT_EQ(j["schema"], "cuco.analysis/1");
  EXPECT_EQ(j["parse_path"], "lexical");
  ASSERT_TRUE(j["ops"].is_array());
  ASSERT_EQ(j["groups"].size(), 1u);
  bool send = false;
  for (const auto& op : j["ops"])
    if (op["api"] == "ncclSend") send = op["peer"] == "peer" && op["kind"] == "p2p";
  EXPECT_TRUE(send);
  std::string report = FormatAnalysis(a);
  EXPECT_NE(report.find("communication dependency graph"), std::string::npos);
  EXPECT_NE(report.find("warning: lexical"), std::string::npos);
  std::string prompt = AnalysisPromptText(a);
  EXPECT_NE(prompt.find("group 0"), std::string::npos);
  EXPECT_NE(prompt.find("ncclSend"), std::string::npos);
}

}  // namespace
}  // namespace cuco
