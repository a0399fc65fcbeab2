// Standalone reproducer for the hang of the NCCL side-stream ring variants on 2 GPUs
// (bench/results/2026-11-23-x2-h200/README.md): the gemm_reducescatter ring without cuco. Each
// iteration has W = 2 ranks and C chunks:
//   step 0: for chunk j, a cuBLAS GEMM writes the partial on the main stream; the side stream waits
//           for it; then grouped ncclSend (to the peer) and ncclRecv (from the peer) on the side stream;
//   step 1: for chunk j, the main stream waits for the receive of chunk j, then another GEMM.
// One case = one fresh pair of processes. The case's settings flip one thing at a time away from
// what cuco's harness does (blocking streams, a high-priority side stream, the receive buffer in
// an NCCL symmetric window, an allreduce on a split communicator before every iteration, 16 MiB
// chunks), so the table says which of them the hang needs. A case that does not finish an iteration
// within --iteration-limit seconds is reported as HANG (exit 5 of the rank).
//
// Build (tests/gpu/run_nccl_probe.sh does it): nvcc -std=c++17 -O2 -arch=sm_90 nccl_side_stream_probe.cu
//   -lnccl -lcublas -o probe. Run: ./probe [--case NAME] [--iteration-limit S] (all cases by default).
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <nccl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {

struct Case {
  const char* name;
  const char* what;
  int rows, n, k, chunks;    // per chunk: rows x n partial of a rows x k by k x n GEMM
  bool blocking;             // streams created with cudaStreamDefault (cuco's harness) or NonBlocking
  bool high_priority;        // side stream at the greatest priority
  bool window_recv;          // receive buffer from ncclMemAlloc + ncclCommWindowRegister
  bool window_send;          // send buffer likewise (cuco's harness registers every input and output)
  bool gemm;                 // the GEMMs run (else the ring moves data only)
  bool split_barrier;        // an allreduce on a split communicator on the main stream before each iteration
};

// The first case is cuco's ring_nccl_p2p at 8192^3 as the harness runs it; each later one flips one setting.
// Every hang seen paired a window-registered buffer on one side with a cudaMalloc one on the other
// (RS: receive in a window; attention: send from the harness's registered input); MoE's NCCL
// variants, cudaMalloc on both sides, ran. The window cases below test that.
const Case kCases[] = {
    {"cuco", "as cuco ran it: 8192^3, 4 chunks of 16 MiB, receive in a window", 1024, 8192, 4096, 4, true, true, true, false, true, true},
    {"small", "1024^3 sizes (256 KiB chunks; cuco's verify size)", 128, 1024, 1024, 4, true, true, true, false, true, true},
    {"nonblocking", "streams created cudaStreamNonBlocking", 1024, 8192, 4096, 4, false, true, true, false, true, true},
    {"normal_prio", "side stream at normal priority", 1024, 8192, 4096, 4, true, false, true, false, true, true},
    {"malloc_both", "send and receive buffers from cudaMalloc", 1024, 8192, 4096, 4, true, true, false, false, true, true},
    {"window_both", "send and receive buffers both in windows", 1024, 8192, 4096, 4, true, true, true, true, true, true},
    {"window_send", "send buffer in a window, receive from cudaMalloc", 1024, 8192, 4096, 4, true, true, false, true, true, true},
    {"no_gemm", "no GEMMs: the sends and receives alone", 1024, 8192, 4096, 4, true, true, true, false, false, true},
    {"no_barrier", "no allreduce on the split communicator", 1024, 8192, 4096, 4, true, true, true, false, true, false},
    {"plain", "all of the above flipped except the size", 1024, 8192, 4096, 4, false, false, false, false, true, false},
};

#define CK(x)                                                                                         \
  do {                                                                                                \
    cudaError_t e_ = (x);                                                                             \
    if (e_ != cudaSuccess) {                                                                          \
      std::fprintf(stderr, "rank %d: %s: %s (line %d)\n", rank, #x, cudaGetErrorString(e_), __LINE__); \
      std::_Exit(3);                                                                                  \
    }                                                                                                 \
  } while (0)
#define NK(x)                                                                                          \
  do {                                                                                                 \
    ncclResult_t r_ = (x);                                                                             \
    if (r_ != ncclSuccess) {                                                                           \
      std::fprintf(stderr, "rank %d: %s: %s (line %d)\n", rank, #x, ncclGetErrorString(r_), __LINE__); \
      std::_Exit(3);                                                                                   \
    }                                                                                                  \
  } while (0)

// One rank of one case: returns through the exit status (0 ok, 5 hang, 3 error).
[[noreturn]] void RunRank(const Case& c, int rank, int id_pipe[2], double limit_s, int iterations) {
  ncclUniqueId id;
  if (rank == 0) {
    NK(ncclGetUniqueId(&id));
    if (write(id_pipe[1], &id, sizeof id) != sizeof id) std::_Exit(3);
  } else if (read(id_pipe[0], &id, sizeof id) != sizeof id) {
    std::_Exit(3);
  }
  CK(cudaSetDevice(rank));
  ncclComm_t comm, split;
  NK(ncclCommInitRank(&comm, 2, id, rank));
  ncclConfig_t cfg = NCCL_CONFIG_INITIALIZER;
  cfg.splitShare = 0;
  NK(ncclCommSplit(comm, 0, rank, &split, &cfg));
  const int peer = 1 - rank;
  int least = 0, greatest = 0;
  CK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
  const unsigned flags = c.blocking ? cudaStreamDefault : cudaStreamNonBlocking;
  cudaStream_t main_s, side_s;
  CK(cudaStreamCreateWithFlags(&main_s, flags));
  CK(cudaStreamCreateWithPriority(&side_s, flags, c.high_priority ? greatest : least));

  const size_t chunk = static_cast<size_t>(c.rows) * c.n;
  __nv_bfloat16 *a, *b, *send, *recv, *out;
  CK(cudaMalloc(&a, static_cast<size_t>(c.rows) * c.k * 2));
  CK(cudaMalloc(&b, static_cast<size_t>(c.k) * c.n * 2));
  CK(cudaMemset(a, 0, static_cast<size_t>(c.rows) * c.k * 2));
  CK(cudaMemset(b, 0, static_cast<size_t>(c.k) * c.n * 2));
  ncclWindow_t win = nullptr, send_win = nullptr;
  if (c.window_send) {
    NK(ncclMemAlloc(reinterpret_cast<void**>(&send), chunk * c.chunks * 2));
    NK(ncclCommWindowRegister(comm, send, chunk * c.chunks * 2, &send_win, NCCL_WIN_COLL_SYMMETRIC));
  } else {
    CK(cudaMalloc(&send, chunk * c.chunks * 2));
  }
  CK(cudaMalloc(&out, chunk * 2));
  if (c.window_recv) {
    NK(ncclMemAlloc(reinterpret_cast<void**>(&recv), chunk * c.chunks * 2));
    NK(ncclCommWindowRegister(comm, recv, chunk * c.chunks * 2, &win, NCCL_WIN_COLL_SYMMETRIC));
  } else {
    CK(cudaMalloc(&recv, chunk * c.chunks * 2));
  }
  int* bar;
  CK(cudaMalloc(&bar, 2 * sizeof(int)));
  cublasHandle_t blas;
  if (cublasCreate(&blas) != CUBLAS_STATUS_SUCCESS) std::_Exit(3);
  std::vector<cudaEvent_t> got(c.chunks);
  cudaEvent_t done, follow;
  for (auto& e : got) CK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
  CK(cudaEventCreateWithFlags(&follow, cudaEventDisableTiming));
  CK(cudaEventCreate(&done));
  const float alpha = 1, beta = 0;
  auto gemm = [&](__nv_bfloat16* dst) {
    if (!c.gemm) return;
    cublasSetStream(blas, main_s);
    // column-major: dst (n x rows) = B^T-shaped (n x k) * A (k x rows): the same FLOPs as rows x n x k.
    if (cublasGemmEx(blas, CUBLAS_OP_N, CUBLAS_OP_N, c.n, c.rows, c.k, &alpha, b, CUDA_R_16BF, c.n, a, CUDA_R_16BF,
                     c.k, &beta, dst, CUDA_R_16BF, c.n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT) != CUBLAS_STATUS_SUCCESS)
      std::_Exit(3);
  };

  for (int it = 0; it < iterations; ++it) {
    CK(cudaDeviceSynchronize());
    const auto t0 = std::chrono::steady_clock::now();
    if (c.split_barrier) NK(ncclAllReduce(bar, bar + 1, 1, ncclInt32, ncclSum, split, main_s));
    CK(cudaEventRecord(follow, main_s));
    CK(cudaStreamWaitEvent(side_s, follow, 0));
    for (int j = 0; j < c.chunks; ++j) {
      gemm(send + j * chunk);
      CK(cudaEventRecord(follow, main_s));
      CK(cudaStreamWaitEvent(side_s, follow, 0));
      NK(ncclGroupStart());
      NK(ncclSend(send + j * chunk, chunk, ncclBfloat16, peer, comm, side_s));
      NK(ncclRecv(recv + j * chunk, chunk, ncclBfloat16, peer, comm, side_s));
      NK(ncclGroupEnd());
      CK(cudaEventRecord(got[j], side_s));
    }
    for (int j = 0; j < c.chunks; ++j) {
      CK(cudaStreamWaitEvent(main_s, got[j], 0));
      gemm(out);
    }
    CK(cudaEventRecord(follow, side_s));
    CK(cudaStreamWaitEvent(main_s, follow, 0));
    CK(cudaEventRecord(done, main_s));
    for (;;) {
      const cudaError_t q = cudaEventQuery(done);
      if (q == cudaSuccess) break;
      if (q != cudaErrorNotReady) CK(q);
      if (std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() > limit_s) {
        std::fprintf(stderr, "rank %d: iteration %d did not finish within %.0f s\n", rank, it, limit_s);
        std::fflush(stdout);
        std::_Exit(5);
      }
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
    std::fprintf(stderr, "rank %d: iteration %d %.3f ms (host)\n", rank, it,
                std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::fflush(stdout);
  std::_Exit(0);  // no teardown: the probe only asks whether the iterations finish
}

// Runs one case in two fresh processes; returns "ok", "HANG" or "error".
std::string RunCase(const Case& c, double limit_s, int iterations) {
  int id_pipe[2];
  if (pipe(id_pipe) != 0) return "error";
  pid_t pids[2];
  for (int r = 0; r < 2; ++r) {
    pids[r] = fork();
    if (pids[r] == 0) RunRank(c, r, id_pipe, limit_s, iterations);
  }
  close(id_pipe[0]);
  close(id_pipe[1]);
  int worst = 0;
  const auto t0 = std::chrono::steady_clock::now();
  int left = 2;
  bool killed = false;
  while (left > 0) {
    int status = 0;
    const pid_t p = waitpid(-1, &status, WNOHANG);
    if (p > 0) {
      --left;
      const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      if (code == 5 || (worst != 5 && code > worst)) worst = code;
      if (code != 0 && !killed) {  // the peer cannot finish alone
        for (pid_t q : pids) kill(q, SIGKILL);
        killed = true;
      }
      continue;
    }
    if (std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() > limit_s * iterations + 60) {
      for (pid_t q : pids) kill(q, SIGKILL);
      killed = true;
      worst = 5;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return worst == 0 ? "ok" : worst == 5 ? "HANG" : "error (exit " + std::to_string(worst) + ")";
}

}  // namespace

int main(int argc, char** argv) {
  std::string only;
  double limit_s = 10;
  int iterations = 5;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--case")) only = argv[i + 1];
    else if (!std::strcmp(argv[i], "--iteration-limit")) limit_s = std::atof(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--iterations")) iterations = std::atoi(argv[i + 1]);
    else {
      std::fprintf(stderr, "usage: %s [--case NAME] [--iteration-limit S] [--iterations N]\n", argv[0]);
      return 2;
    }
  }
  std::printf("| case | what | result |\n|---|---|---|\n");
  std::fflush(stdout);
  for (const Case& c : kCases) {
    if (!only.empty() && only != c.name) continue;
    const std::string r = RunCase(c, limit_s, iterations);
    std::printf("| %s | %s | %s |\n", c.name, c.what, r.c_str());
    std::fflush(stdout);
  }
  return 0;
}
