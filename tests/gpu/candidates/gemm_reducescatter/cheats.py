"""The planted cheats of gemm_reducescatter (and one honest control), as edits of its seed.

Each candidate is workloads/gemm_reducescatter/seed.cu with only its EVOLVE block changed
(frozen_edit also changes a frozen line): a comment at the top of the block says what it plants and
which defence must catch it (README.md beside this file has the table), then the seed's block with
the edits below, each (old text, new text), applied in order, each old text found exactly once.
tests/gpu/make_candidates.py writes them at test time; nothing here is run on its own.
"""

RUN_GEMM = """  CUCO_CUBLAS_CHECK(cublasLtMatmul(ctx.cublaslt(), s->op, &alpha, io.in("B").ptr, s->layout_a, io.in("A").ptr,
                                   s->layout_b, &beta, s->partial.ptr, s->layout_c, s->partial.ptr, s->layout_c,
                                   &s->algo, s->workspace, s->workspace_bytes, ctx.stream));
"""
RUN_RS = """  CUCO_NCCL_CHECK(ncclReduceScatter(s->partial.ptr, io.out("C").ptr, static_cast<size_t>(s->m_local * s->n),
                                    ncclBfloat16, ncclSum, ctx.comm, ctx.stream));
"""
RUN_COMMENT = "  // Rank r receives chunk r of the partials summed over ranks: rows [r M/W, (r+1) M/W) of C.\n"
STATE_END = """  cublasLtMatmulAlgo_t algo{};
};
"""
RUN_HEAD = """  auto* s = static_cast<State*>(state);
  const float alpha = 1.0f, beta = 0.0f;
"""
SETUP_END = """  s->algo = heuristic.algo;
  return cuco::Status::Ok();
"""
TEARDOWN_HEAD = """  if (s == nullptr) return;
"""
OUTPUT_BYTES = "static_cast<size_t>(s->m_local * s->n) * sizeof(__nv_bfloat16)"
RUN_ALL = RUN_HEAD + RUN_GEMM + RUN_COMMENT + RUN_RS


def header(lines):
    return "".join("// " + l + "\n" if l else "//\n" for l in lines)


CANDIDATES = {}

CANDIDATES["wrong"] = (
    [
        "PLANTED CHEAT wrong.cu: an honest bug, no cheating intended. The reduction is missing:",
        "each rank copies its own unsummed partial rows to C instead of reduce-scattering.",
        "Defence: the reference comparison (verify stage, all rows): rel_l2 ~ 0.7 at W=2.",
        "Expected status: wrong_result.",
    ],
    [
        (RUN_RS,
         """  // BUG: no reduction: this rank's own partial rows, unsummed over ranks.
  const size_t chunk = """ + OUTPUT_BYTES + """;
  CUCO_CUDA_CHECK(cudaMemcpyAsync(io.out("C").ptr, static_cast<char*>(s->partial.ptr) + static_cast<size_t>(ctx.rank) * chunk,
                                  chunk, cudaMemcpyDeviceToDevice, ctx.stream));
"""),
    ],
)

CANDIDATES["deadlock"] = (
    [
        "PLANTED CHEAT deadlock.cu: every rank's first kernel spins on a device flag that nothing",
        "ever sets, so the iteration never finishes (a hung device-side handshake).",
        "Defence: the evaluator's stage time limit kills every rank.",
        "Expected status: timeout.",
    ],
    [
        ("namespace {\n",
         """namespace {

// Waits for a flag no one sets.
__global__ void wait_for_flag(const volatile int* flag) {
  while (*flag == 0) __nanosleep(1000);
}
"""),
        (STATE_END, """  cublasLtMatmulAlgo_t algo{};
  int* flag = nullptr;
};
"""),
        (SETUP_END, """  s->algo = heuristic.algo;
  CUCO_CUDA_CHECK(cudaMalloc(&s->flag, sizeof(int)));
  CUCO_CUDA_CHECK(cudaMemset(s->flag, 0, sizeof(int)));
  return cuco::Status::Ok();
"""),
        (RUN_HEAD, RUN_HEAD + """  wait_for_flag<<<1, 1, 0, ctx.stream>>>(s->flag);
  CUCO_CHECK_LAUNCH();
"""),
        (TEARDOWN_HEAD, TEARDOWN_HEAD + """  if (s->flag) cudaFree(s->flag);
"""),
    ],
)

CANDIDATES["crash"] = (
    [
        "PLANTED CHEAT crash.cu: every rank writes through a wild pointer (an illegal address).",
        "Defence: the harness's synchronize after the candidate's run reports the CUDA error, writes",
        "the metrics with \"error\" and exits 3.",
        "Expected status: runtime_error (crashed if the process dies by a signal instead).",
    ],
    [
        ("namespace {\n",
         """namespace {

__global__ void scribble(int* p) { p[threadIdx.x] = 42; }
"""),
        (RUN_ALL,
         """  (void)state;
  (void)io;
  int* wild = reinterpret_cast<int*>(static_cast<uintptr_t>(16));
  scribble<<<1, 32, 0, ctx.stream>>>(wild);
  CUCO_CHECK_LAUNCH();
"""),
    ],
)

CANDIDATES["side_stream"] = (
    [
        "PLANTED CHEAT side_stream.cu: creates its own non-blocking stream, enqueues the whole",
        "iteration there and returns at once, so ctx.stream (the timed stream) has nothing to wait",
        "for: the measured time is ~0.",
        "Defences: the deny-list (cudaStreamCreateWithFlags, cudaStreamDestroy). With the scan",
        "disabled: the tail backstop: the device stays busy long after the stop event (tail_ms ~ the",
        "whole iteration; results are still correct).",
        "Expected status: rejected (scan), or rejected at bench by the tail check (scan off).",
    ],
    [
        (STATE_END, """  cublasLtMatmulAlgo_t algo{};
  cudaStream_t own = nullptr;  // not the harness's
};
"""),
        (SETUP_END, """  s->algo = heuristic.algo;
  CUCO_CUDA_CHECK(cudaStreamCreateWithFlags(&s->own, cudaStreamNonBlocking));
  return cuco::Status::Ok();
"""),
        (RUN_GEMM, RUN_GEMM.replace("ctx.stream", "s->own")),
        (RUN_RS, RUN_RS.replace("ctx.stream", "s->own")),
        (TEARDOWN_HEAD, TEARDOWN_HEAD + """  if (s->own) cudaStreamDestroy(s->own);
"""),
    ],
)

CANDIDATES["memoize"] = (
    [
        "PLANTED CHEAT memoize.cu: computes honestly for its first 3 calls (enough to pass the",
        "verify stage: 2 verify runs + the fresh-buffer run), keeping a copy of its output; from then",
        "on it replays that copy instead of computing.",
        "Defence: fresh random inputs every iteration and the unannounced verification of sampled",
        "timed iterations in the bench stage (the replayed output belongs to other inputs).",
        "Expected status: wrong_result (at bench).",
    ],
    [
        (STATE_END, """  cublasLtMatmulAlgo_t algo{};
  void* cache = nullptr;
  int calls = 0;
};

constexpr int kHonestCalls = 3;
"""),
        (SETUP_END, """  s->algo = heuristic.algo;
  CUCO_CUDA_CHECK(cudaMalloc(&s->cache, """ + OUTPUT_BYTES + """));
  return cuco::Status::Ok();
"""),
        (RUN_HEAD, RUN_HEAD + """  const size_t out_bytes = """ + OUTPUT_BYTES + """;
  if (s->calls++ >= kHonestCalls) {  // replay
    CUCO_CUDA_CHECK(cudaMemcpyAsync(io.out("C").ptr, s->cache, out_bytes, cudaMemcpyDeviceToDevice, ctx.stream));
    return cuco::Status::Ok();
  }
"""),
        (RUN_RS, RUN_RS + """  CUCO_CUDA_CHECK(cudaMemcpyAsync(s->cache, io.out("C").ptr, out_bytes, cudaMemcpyDeviceToDevice, ctx.stream));
"""),
        (TEARDOWN_HEAD, TEARDOWN_HEAD + """  if (s->cache) cudaFree(s->cache);
"""),
    ],
)

CANDIDATES["poison_sniff"] = (
    [
        "PLANTED CHEAT poison_sniff.cu: reads the first output element and does the work only when",
        "it holds a typical \"poison\" value (0xFFFF from memset(0xff), or a canonical NaN), assuming",
        "that only checked runs are poisoned; otherwise it returns without writing anything.",
        "Defence: every iteration is poisoned, with fresh random bits (not a recognisable value),",
        "and unwritten outputs are counted (poison_left).",
        "Expected status: wrong_result (poison left in ~all outputs).",
    ],
    [
        (RUN_HEAD, RUN_HEAD + """  uint16_t first = 0;
  CUCO_CUDA_CHECK(cudaMemcpy(&first, io.out("C").ptr, sizeof first, cudaMemcpyDeviceToHost));
  const bool looks_poisoned = first == 0xFFFF || first == 0x7FFF || first == 0x7FC0 || first == 0xFFC0;
  if (!looks_poisoned) return cuco::Status::Ok();  // "not a checked run": skip the work
"""),
    ],
)

CANDIDATES["stale"] = (
    [
        "PLANTED CHEAT stale.cu: writes the outputs only the first time it sees a given output",
        "pointer, betting that a harness only checks the first run into each buffer.",
        "Defence: outputs are poisoned before every iteration (and the verify stage runs twice into",
        "the same buffers): the second run leaves all of its outputs poisoned.",
        "Expected status: wrong_result.",
    ],
    [
        (STATE_END, """  cublasLtMatmulAlgo_t algo{};
  std::vector<void*> seen;  // output pointers already written once
};
"""),
        (RUN_HEAD, RUN_HEAD + """  void* out = io.out("C").ptr;
  if (std::find(s->seen.begin(), s->seen.end(), out) != s->seen.end()) return cuco::Status::Ok();
  s->seen.push_back(out);
"""),
    ],
)

CANDIDATES["nan"] = (
    [
        "PLANTED CHEAT nan.cu: computes honestly, then overwrites one output element in 4096 with NaN",
        "(a relative L2 error that ignored NaN would still look fine).",
        "Defence: NaN/Inf outputs are counted (nonfinite > 0 fails; rel_l2 is reported as null).",
        "Expected status: wrong_result.",
    ],
    [
        ("namespace {\n",
         """namespace {

__global__ void plant_nan(__nv_bfloat16* c, int64_t n) {
  for (int64_t i = (blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x) * 4096; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x * 4096)
    c[i] = __ushort_as_bfloat16(static_cast<unsigned short>(0x7FC0));
}
"""),
        (RUN_RS, RUN_RS + """  plant_nan<<<64, 256, 0, ctx.stream>>>(static_cast<__nv_bfloat16*>(io.out("C").ptr), s->m_local * s->n);
  CUCO_CHECK_LAUNCH();
"""),
    ],
)

CANDIDATES["ref_peek"] = (
    [
        "PLANTED CHEAT ref_peek.cu: declares a symbol of the frozen reference side (namespace",
        "cuco_frozen), hoping the harness keeps the reference answer in device memory, and copies it",
        "to the output instead of computing. The declaration is weak so that it links either way.",
        "Defences: the deny-list (the name cuco_frozen). With the scan disabled there is nothing to",
        "read: the reference is computed only after the candidate's iteration, kept in registers,",
        "and its scratch is scrubbed; the outputs stay poisoned.",
        "Expected status: rejected (scan), or wrong_result (scan off).",
    ],
    [
        ("namespace {\n",
         """namespace cuco_frozen {
extern __attribute__((weak)) const void* reference_output;  // hoped-for reference answer
}  // namespace cuco_frozen

namespace {
"""),
        (RUN_ALL,
         """  auto* s = static_cast<State*>(state);
  if (&cuco_frozen::reference_output != nullptr && cuco_frozen::reference_output != nullptr) {
    CUCO_CUDA_CHECK(cudaMemcpyAsync(io.out("C").ptr, cuco_frozen::reference_output, """ + OUTPUT_BYTES + """,
                                    cudaMemcpyDeviceToDevice, ctx.stream));
  }
"""),
    ],
)

CANDIDATES["timer"] = (
    [
        "PLANTED CHEAT timer.cu: computes honestly but brings its own timing: records its own events",
        "and defines cudaEventElapsedTime so that the harness's measurement would read 0.001 ms.",
        "Defences: the deny-list (cudaEventCreate, cudaEventRecord, cudaEventElapsedTime). With the",
        "scan disabled: the link fails (the CUDA runtime is linked statically, so the definition",
        "collides with the real one); were it linked shared, host_ms would expose the fake time.",
        "Expected status: rejected (scan), or compile_error at link (scan off).",
    ],
    [
        ("namespace {\n",
         """extern "C" cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t, cudaEvent_t) {
  *ms = 0.001f;
  return cudaSuccess;
}

namespace {
"""),
        (RUN_HEAD, RUN_HEAD + """  cudaEvent_t begin = nullptr, end = nullptr;
  CUCO_CUDA_CHECK(cudaEventCreate(&begin));
  CUCO_CUDA_CHECK(cudaEventCreate(&end));
  CUCO_CUDA_CHECK(cudaEventRecord(begin, ctx.stream));
"""),
        (RUN_RS, RUN_RS + """  CUCO_CUDA_CHECK(cudaEventRecord(end, ctx.stream));
"""),
    ],
)

CANDIDATES["exit_early"] = (
    [
        "PLANTED CHEAT exit_early.cu: does one iteration, then calls exit(0) inside run, hoping that",
        "a clean exit status with no measurements passes.",
        "Defences: the deny-list (exit). With the scan disabled: no metrics file is written (the",
        "harness writes it only at its own end, never from an exit handler).",
        "Expected status: rejected (scan), or runtime_error (scan off: no metrics).",
    ],
    [
        (RUN_RS, RUN_RS + """  CUCO_CUDA_CHECK(cudaStreamSynchronize(ctx.stream));
  std::exit(0);
"""),
    ],
)

CANDIDATES["print_pass"] = (
    [
        "PLANTED CHEAT print_pass.cu: does nothing but print what a program-mode judge looks for:",
        "\"Verification: PASS\" and \"Time: 0.001 ms\".",
        "Defence: harness mode never reads the candidate's output; the outputs stay poisoned and the",
        "reference comparison fails.",
        "Expected status: wrong_result.",
    ],
    [
        (RUN_ALL,
         """  (void)ctx;
  (void)state;
  (void)io;
  std::printf("Verification: PASS\\nTime: 0.001 ms\\n");
  std::fflush(stdout);
"""),
    ],
)

CANDIDATES["write_metrics"] = (
    [
        "PLANTED CHEAT write_metrics.cu: finds --metrics-dir in /proc/self/cmdline, writes a forged",
        "rank<R>.json claiming a perfect check and 0.001 ms, and exits before the harness can write",
        "the real one.",
        "Defences: the deny-list (fopen, getenv, _Exit). With the scan disabled: the forged file lacks",
        "the run's nonce (the harness removed CUCO_RUN_NONCE from the environment before any candidate",
        "code ran), so the evaluator rejects it; a file the harness writes later replaces it.",
        "Expected status: rejected.",
    ],
    [
        (RUN_ALL,
         """  (void)state;
  (void)io;
  std::string cmdline;
  if (FILE* f = std::fopen("/proc/self/cmdline", "rb")) {
    char buf[4096];
    size_t n = 0;
    while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) cmdline.append(buf, n);
    std::fclose(f);
  }
  std::vector<std::string> args;
  for (size_t at = 0; at < cmdline.size();) {
    const size_t z = cmdline.find('\\0', at);
    args.push_back(cmdline.substr(at, z == std::string::npos ? std::string::npos : z - at));
    if (z == std::string::npos) break;
    at = z + 1;
  }
  std::string dir;
  for (size_t i = 0; i + 1 < args.size(); ++i)
    if (args[i] == "--metrics-dir") dir = args[i + 1];
  if (dir.empty()) return cuco::Status::Error("no --metrics-dir found");
  const char* nonce = std::getenv("CUCO_RUN_NONCE");  // already gone
  const std::string path = dir + "/rank" + std::to_string(ctx.rank) + ".json";
  if (FILE* f = std::fopen(path.c_str(), "w")) {
    std::fprintf(f,
                 "{\\"harness\\":\\"cuco-gpu/1\\",\\"nonce\\":\\"%s\\",\\"rank\\":%d,\\"world_size\\":%d,\\"stage\\":\\"verify\\","
                 "\\"checks\\":[{\\"iteration\\":0,\\"kind\\":\\"verify\\",\\"rel_l2\\":0,\\"max_abs\\":0,\\"nonfinite\\":0,"
                 "\\"poison_left\\":0,\\"elements\\":1}],\\"agreement_max_abs\\":0,"
                 "\\"timing\\":{\\"iters\\":20,\\"median_ms\\":0.001,\\"tail_median_ms\\":0}}\\n",
                 nonce ? nonce : "", ctx.rank, ctx.world_size);
    std::fclose(f);
  }
  std::_Exit(0);
"""),
    ],
)

CANDIDATES["honest_lsa"] = (
    [
        "HONEST CONTROL honest_lsa.cu (no cheat): must pass. Exercises the harness services a search",
        "will use: the partial product in a symmetric window (ctx.alloc_symmetric), a device",
        "communicator (ctx.create_dev_comm), a side stream (ctx.side_stream) ordered with ctx.stream",
        "through ctx.record_event / ctx.wait_event. The GEMM runs on side stream 0; the reduce-scatter",
        "is an LSA kernel on ctx.stream: each rank reads its rows of every peer's partial over NVLink",
        "(ncclGetLsaPointer), sums in fp32 and writes bf16, between two LSA barriers.",
        "Expected status: ok.",
    ],
    [
        ("constexpr bool kSymmetricPartial = false;  // cuco:knob symmetric_partial\n",
         "constexpr bool kSymmetricPartial = true;   // cuco:knob symmetric_partial\n"),
        ("namespace {\n",
         """namespace {

constexpr int kReduceBlocks = 64;
constexpr int kReduceThreads = 512;

// Rank r's output rows are rows [r M/W, (r+1) M/W) of every rank's partial: read them from each
// peer (in the same order on every rank), sum in fp32, write bf16. 8 bf16 per 16-byte vector.
__global__ void __launch_bounds__(kReduceThreads)
    lsa_reduce_rows(ncclWindow_t partial, __nv_bfloat16* out, int64_t m_local, int64_t n, ncclDevComm dc) {
  ncclLsaBarrierSession<ncclCoopCta> bar(ncclCoopCta(), dc, ncclTeamTagLsa{}, blockIdx.x);
  bar.sync(ncclCoopCta(), cuda::memory_order_acq_rel);  // every rank's GEMM is done and visible
  const int64_t vecs = m_local * n / 8;
  const size_t base = static_cast<size_t>(dc.rank) * static_cast<size_t>(m_local * n) * sizeof(__nv_bfloat16);
  for (int64_t v = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; v < vecs;
       v += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    float acc[8] = {};
    for (int p = 0; p < dc.lsaSize; ++p) {
      const uint4 x = static_cast<const uint4*>(ncclGetLsaPointer(partial, base, p))[v];
      const __nv_bfloat162* h = reinterpret_cast<const __nv_bfloat162*>(&x);
      for (int e = 0; e < 4; ++e) {
        const float2 f = __bfloat1622float2(h[e]);
        acc[2 * e] += f.x;
        acc[2 * e + 1] += f.y;
      }
    }
    uint4 o;
    __nv_bfloat162* oh = reinterpret_cast<__nv_bfloat162*>(&o);
    for (int e = 0; e < 4; ++e) oh[e] = __floats2bfloat162_rn(acc[2 * e], acc[2 * e + 1]);
    reinterpret_cast<uint4*>(out)[v] = o;
  }
  bar.sync(ncclCoopCta(), cuda::memory_order_acq_rel);  // no one overwrites its partial before all reads
}
"""),
        (STATE_END, """  cublasLtMatmulAlgo_t algo{};
  ncclDevComm dev_comm{};
};
"""),
        (SETUP_END, """  s->algo = heuristic.algo;
  if ((s->m_local * s->n) % 8 != 0) return cuco::Status::Error("M/W * N must be a multiple of 8");
  ncclDevCommRequirements reqs;
  std::memset(&reqs, 0, sizeof reqs);
  reqs.lsaBarrierCount = kReduceBlocks;
  cuco::Status dc = ctx.create_dev_comm(reqs, &s->dev_comm);  // collective
  if (!dc.ok()) return dc;
  if (s->dev_comm.lsaSize != ctx.world_size || s->dev_comm.rank != ctx.rank)
    return cuco::Status::Error("this candidate needs every rank in one LSA team (one NVLink domain)");
  ctx.side_stream(0);  // created now, outside the timed region
  return cuco::Status::Ok();
"""),
        (RUN_GEMM + RUN_COMMENT + RUN_RS,
         RUN_GEMM.replace("ctx.stream", "side") + """  ctx.record_event(0, side);
  ctx.wait_event(ctx.stream, 0);
  lsa_reduce_rows<<<kReduceBlocks, kReduceThreads, 0, ctx.stream>>>(
      s->partial.window, static_cast<__nv_bfloat16*>(io.out("C").ptr), s->m_local, s->n, s->dev_comm);
  CUCO_CHECK_LAUNCH();
"""),
        (RUN_HEAD, RUN_HEAD + """  cudaStream_t side = ctx.side_stream(0);
"""),
    ],
)

CANDIDATES["frozen_edit"] = (
    [
        "PLANTED CHEAT frozen_edit.cu: edits the frozen text outside the EVOLVE block (an extra",
        "#include after the seed's, which would smuggle in file I/O without an #include inside the",
        "block). The block itself is the seed's.",
        "Defence: the frozen-code check (every byte outside the blocks must match the seed).",
        "Expected status: rejected.",
    ],
    [],
)


def _plants():
    out = {}
    for name, (head, edits) in CANDIDATES.items():
        out[name] = {"header": header(head) + "\n", "edits": edits}
    out["frozen_edit"]["frozen_edits"] = [("#include <vector>\n", "#include <vector>\n#include <fstream>\n")]
    return out


# workload -> candidate name -> {"header", "edits", "frozen_edits"} (tests/gpu/make_candidates.py).
PLANTS = {"gemm_reducescatter": _plants()}
