// LEGACY: the in-process GPU harness cuco used until 2026-11-25, kept only so that
// bench/legacy/build_inprocess.sh can time a candidate the old way beside the supervisor (issue 15's
// timing comparison). It links the candidate into its own process, so a candidate can forge its
// figures: never use it to judge anything. cuco itself runs runtime/src/supervisor/.
//
// Build (what cuco's evaluator runs; $W = the workload folder, $NCCL / $CUDA = install prefixes):
//   FLAGS="-std=c++20 -O3 -gencode=arch=compute_90a,code=sm_90a -I runtime/include -I $W -I $NCCL/include -I $CUDA/include"
//   nvcc $FLAGS -c runtime/src/harness_main.cu -o harness_main.o
//   nvcc $FLAGS -c $W/reference.cu             -o reference.o
//   nvcc $FLAGS -c candidate.cu                -o candidate.o
//   nvcc -gencode=arch=compute_90a,code=sm_90a harness_main.o reference.o candidate.o -o harness
//        -L$NCCL/lib -l:libnccl.so.2 -Xlinker -rpath=$NCCL/lib -L$CUDA/lib64 -lcublasLt      (one line)
// No -lcuda is needed (NCCL loads the driver itself). Keep the CUDA runtime STATIC (nvcc's default;
// never -cudart shared): a candidate that defines a CUDA runtime symbol (a fake
// cudaEventElapsedTime, say) then fails to link instead of replacing the harness's timer.
//
// Run: one process per rank, with CUCO_RANK, CUCO_WORLD_SIZE, CUCO_LOCAL_RANK, CUCO_LOCAL_WORLD_SIZE,
// CUCO_RENDEZVOUS_DIR (fresh, shared), CUCO_RUN_NONCE, CUDA_VISIBLE_DEVICES, NCCL_NVLS_ENABLE=0:
//   harness --stage verify|bench --metrics-dir DIR --size M=1024 --size N=1024 --size K=1024
//           --warmup 5 --iters 20 --verify-runs 2 --verify-fraction 0.25 [--input-seed S] [--timing-only]
// --timing-only (bench stage only; cuco passes it for a workload's own bound parts, never for a
// candidate): everything but the reference checks (fresh inputs, poison, join, events, tails), and
// the metrics say "checked": false.
// Without CUCO_RANK the rank comes from Open MPI (OMPI_COMM_WORLD_RANK/SIZE/LOCAL_RANK/LOCAL_SIZE),
// MPICH/PMI (PMI_RANK/PMI_SIZE/MPI_LOCALRANKID/MPI_LOCALNRANKS) or Slurm (SLURM_PROCID/SLURM_NTASKS/
// SLURM_LOCALID); the rendezvous folder is then CUCO_RENDEZVOUS_DIR if set, else
// /tmp/cuco-rdv-<job id>, the job id being OMPI_MCA_ess_base_jobid, else PMIX_NAMESPACE, else
// SLURM_JOB_ID.SLURM_STEP_ID (that folder must be shared by the ranks: set CUCO_RENDEZVOUS_DIR to a
// shared file system across nodes). With none of these the process runs alone (rank 0 of 1).
//
// Exit status: 0 success (metrics written, no "error"); 2 bad arguments / environment / sizes;
// 3 the candidate failed (a failing Status, an exception, or a CUDA error surfacing right after its
// code ran; metrics carry "error"); 4 the harness itself hit a CUDA/NCCL/system error (stderr says
// which; metrics are written when possible). Metrics: runtime/METRICS.md.
#include <cuco/harness.h>
#include <cuco/impl/random.h>
#include <cuco/workload_spec.h>

#include "candidate/context_state.h"
#include "supervisor/json_writer.h"

#include <cublasLt.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <nccl.h>
#include <nccl_device.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace cuco_harness {

constexpr const char* kHarnessVersion = "cuco-gpu/1";
constexpr int kExitOk = 0;
constexpr int kExitUsage = 2;
constexpr int kExitCandidate = 3;
constexpr int kExitHarness = 4;
constexpr int kExitHang = 5;  // one iteration's GPU work outlived --iteration-limit
constexpr double kRendezvousTimeoutS = 60.0;
constexpr int kCalibrationIters = 5;
constexpr int64_t kDefaultSampleRows = 32;

// ---------------------------------------------------------------------------------------------
// Errors and logging

// Thrown for every failure; main() writes the metrics (when it can) and exits with exit_code.
struct HarnessError {
  int exit_code;
  std::string kind;  // usage | config | bootstrap | harness | candidate | candidate_exception | candidate_cuda
  std::string message;
};

int g_rank = -1;

void log(const char* fmt, ...) {
  char buf[2048];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  std::fprintf(stderr, "[cuco-harness r%d] %s\n", g_rank, buf);
  std::fflush(stderr);
}

[[noreturn]] void fail(int code, const std::string& kind, const std::string& message) {
  throw HarnessError{code, kind, message};
}

std::string where(const char* file, int line) { return std::string(file) + ":" + std::to_string(line); }

void cuda_ok(cudaError_t e, const char* expr, const char* file, int line, int code, const char* kind) {
  if (e != cudaSuccess)
    fail(code, kind,
         std::string("CUDA error ") + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ") from " + expr + " at " +
             where(file, line));
}

void nccl_ok(ncclResult_t r, const char* expr, const char* file, int line, int code, const char* kind) {
  if (r != ncclSuccess) {
    const char* last = ncclGetLastError(nullptr);
    fail(code, kind,
         std::string("NCCL error ") + ncclGetErrorString(r) + " from " + expr + " at " + where(file, line) +
             (last && last[0] ? std::string(": ") + last : std::string()));
  }
}

// Harness calls: a failure is the harness's (exit 4).
#define H_CUDA(expr) ::cuco_harness::cuda_ok((expr), #expr, __FILE__, __LINE__, kExitHarness, "harness")
#define H_NCCL(expr) ::cuco_harness::nccl_ok((expr), #expr, __FILE__, __LINE__, kExitHarness, "harness")
// Calls right after candidate code: an error surfacing there is the candidate's (exit 3).
#define C_CUDA(expr) ::cuco_harness::cuda_ok((expr), #expr, __FILE__, __LINE__, kExitCandidate, "candidate_cuda")

// ---------------------------------------------------------------------------------------------
// Randomness the candidate cannot predict or intercept: the getrandom system call, issued directly
// on x86-64 (a libc function could be replaced by a symbol the candidate defines), else
// std::random_device reading /dev/urandom.
uint64_t secure_u64() {
#if defined(__x86_64__)
  uint64_t value = 0;
  long ret;
  asm volatile("syscall"
               : "=a"(ret)
               : "0"(318L /* SYS_getrandom */), "D"(&value), "S"(8L), "d"(0L)
               : "rcx", "r11", "memory");
  if (ret == 8) return value;
#endif
  static std::random_device rd("/dev/urandom");
  return (static_cast<uint64_t>(rd()) << 32) ^ static_cast<uint64_t>(rd());
}

// Uniform in [0, n), n > 0, without modulo bias.
uint64_t secure_below(uint64_t n) {
  const uint64_t limit = UINT64_MAX - UINT64_MAX % n;
  for (;;) {
    const uint64_t v = secure_u64();
    if (v < limit) return v % n;
  }
}

std::string hex64(uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%016" PRIx64, v);
  return buf;
}

// ---------------------------------------------------------------------------------------------
// The metrics writer is the supervisor's (runtime/src/supervisor/json_writer.h).
using cuco::supervisor::Json;

// ---------------------------------------------------------------------------------------------
// Arguments

struct Args {
  std::string stage;
  std::string metrics_dir;
  std::vector<std::pair<std::string, int64_t>> sizes;
  int warmup = 5;
  int iters = 20;
  int verify_runs = 2;
  double verify_fraction = 0.25;
  bool has_input_seed = false;
  uint64_t input_seed = 0;
  bool timing_only = false;  // bench stage without reference checks (a bound part: compute or comm alone)
  double iteration_limit_s = 0;  // > 0: an iteration whose GPU work takes longer is a hang (exit 5)
};

const char* kUsage =
    "usage: harness --stage verify|bench --metrics-dir DIR [--size NAME=VALUE]... [--warmup N] [--iters N]\n"
    "               [--verify-runs N] [--verify-fraction F] [--input-seed S] [--iteration-limit SECONDS]\n"
    "               [--timing-only]\n";

bool parse_i64(const std::string& s, int64_t* out) {
  if (s.empty()) return false;
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(s.c_str(), &end, 10);
  if (errno != 0 || end == s.c_str() || *end != '\0') return false;
  *out = v;
  return true;
}

bool parse_u64(const std::string& s, uint64_t* out) {
  if (s.empty() || s[0] == '-' || s[0] == '+') return false;
  errno = 0;
  char* end = nullptr;
  const int base = (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) ? 16 : 10;
  const unsigned long long v = std::strtoull(s.c_str(), &end, base);
  if (errno != 0 || end == s.c_str() || *end != '\0') return false;
  *out = v;
  return true;
}

bool parse_f64(const std::string& s, double* out) {
  if (s.empty()) return false;
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (errno != 0 || end == s.c_str() || *end != '\0' || !std::isfinite(v)) return false;
  *out = v;
  return true;
}

bool is_identifier(const std::string& s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  return true;
}

[[noreturn]] void usage_error(const std::string& msg) { fail(kExitUsage, "usage", msg + "\n" + kUsage); }

Args parse_args(int argc, char** argv) {
  Args a;
  std::set<std::string> seen;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      std::fputs(kUsage, stdout);
      std::fflush(stdout);
      std::_Exit(kExitOk);
    }
    if (arg.rfind("--", 0) != 0) usage_error("unexpected argument '" + arg + "'");
    std::string flag = arg, value;
    bool has_value = false;
    const size_t eq = arg.find('=');
    if (eq != std::string::npos) {
      flag = arg.substr(0, eq);
      value = arg.substr(eq + 1);
      has_value = true;
    }
    if (flag == "--timing-only") {  // the one flag without a value
      if (has_value) usage_error("--timing-only takes no value");
      if (!seen.insert(flag).second) usage_error("flag '" + flag + "' given twice");
      a.timing_only = true;
      continue;
    }
    static const std::set<std::string> kFlags = {"--stage", "--metrics-dir", "--size", "--warmup", "--iters",
                                                 "--verify-runs", "--verify-fraction", "--input-seed",
                                                 "--iteration-limit"};
    if (!kFlags.count(flag)) usage_error("unknown flag '" + flag + "'");
    if (!has_value) {
      if (i + 1 >= argc) usage_error("flag '" + flag + "' needs a value");
      value = argv[++i];
    }
    if (flag != "--size" && !seen.insert(flag).second) usage_error("flag '" + flag + "' given twice");
    if (flag == "--stage") {
      if (value != "verify" && value != "bench") usage_error("--stage must be 'verify' or 'bench', not '" + value + "'");
      a.stage = value;
    } else if (flag == "--metrics-dir") {
      if (value.empty()) usage_error("--metrics-dir must not be empty");
      a.metrics_dir = value;
    } else if (flag == "--size") {
      const size_t e = value.find('=');
      int64_t v = 0;
      if (e == std::string::npos || !is_identifier(value.substr(0, e)) || !parse_i64(value.substr(e + 1), &v) ||
          v < 0)
        usage_error("--size takes NAME=VALUE with an identifier and an integer >= 0, not '" + value + "'");
      const std::string name = value.substr(0, e);
      for (const auto& s : a.sizes)
        if (s.first == name) usage_error("size '" + name + "' given twice");
      if (name.size() >= static_cast<size_t>(cuco::Sizes::kMaxName)) usage_error("size name '" + name + "' is too long");
      if (a.sizes.size() >= static_cast<size_t>(cuco::Sizes::kMaxEntries)) usage_error("too many sizes");
      a.sizes.emplace_back(name, v);
    } else if (flag == "--warmup" || flag == "--iters" || flag == "--verify-runs") {
      int64_t v = 0;
      if (!parse_i64(value, &v) || v < 0 || v > 1000000) usage_error(flag + " takes an integer in [0, 1000000]");
      if (flag == "--warmup") a.warmup = static_cast<int>(v);
      if (flag == "--iters") a.iters = static_cast<int>(v);
      if (flag == "--verify-runs") a.verify_runs = static_cast<int>(v);
    } else if (flag == "--verify-fraction") {
      double f = 0;
      if (!parse_f64(value, &f) || f < 0 || f > 1) usage_error("--verify-fraction takes a number in [0, 1]");
      a.verify_fraction = f;
    } else if (flag == "--iteration-limit") {
      double f = 0;
      if (!parse_f64(value, &f) || !(f > 0) || f > 86400) usage_error("--iteration-limit takes seconds in (0, 86400]");
      a.iteration_limit_s = f;
    } else if (flag == "--input-seed") {
      if (!parse_u64(value, &a.input_seed)) usage_error("--input-seed takes an unsigned 64-bit integer (decimal or 0x hex)");
      a.has_input_seed = true;
    }
  }
  if (a.stage.empty()) usage_error("--stage is required");
  if (a.metrics_dir.empty()) usage_error("--metrics-dir is required");
  if (a.stage == "verify" && a.verify_runs < 1) usage_error("--verify-runs must be >= 1");
  if (a.stage == "bench" && a.iters < 2) usage_error("--iters must be >= 2 (cuco runs >= 20)");
  if (a.timing_only && a.stage != "bench") usage_error("--timing-only applies to the bench stage only");
  return a;
}

// ---------------------------------------------------------------------------------------------
// Launch environment

struct Launch {
  int rank = 0, world = 1, local_rank = 0, local_world = 1;
  std::string source;  // cuco | openmpi | pmi | slurm | single
  std::string rendezvous_dir;
};

bool env_int(const char* name, int* out) {
  const char* v = std::getenv(name);
  if (v == nullptr) return false;
  int64_t x = 0;
  if (!parse_i64(v, &x) || x < 0 || x > (1 << 24)) fail(kExitUsage, "usage", std::string("environment variable ") + name + "='" + v + "' is not a valid integer");
  *out = static_cast<int>(x);
  return true;
}

std::string env_str(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::string(v) : std::string();
}

std::string sanitize(const std::string& s) {
  std::string o;
  for (char c : s) o += (std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '_') ? c : '_';
  return o;
}

Launch detect_launch() {
  Launch l;
  auto need = [](const char* name, int* out) {
    if (!env_int(name, out)) fail(kExitUsage, "usage", std::string("environment variable ") + name + " is missing");
  };
  if (std::getenv("CUCO_RANK") != nullptr) {
    l.source = "cuco";
    need("CUCO_RANK", &l.rank);
    need("CUCO_WORLD_SIZE", &l.world);
    if (!env_int("CUCO_LOCAL_RANK", &l.local_rank)) l.local_rank = l.rank;
    if (!env_int("CUCO_LOCAL_WORLD_SIZE", &l.local_world)) l.local_world = l.world;
  } else if (std::getenv("OMPI_COMM_WORLD_RANK") != nullptr) {
    l.source = "openmpi";
    need("OMPI_COMM_WORLD_RANK", &l.rank);
    need("OMPI_COMM_WORLD_SIZE", &l.world);
    if (!env_int("OMPI_COMM_WORLD_LOCAL_RANK", &l.local_rank)) l.local_rank = l.rank;
    if (!env_int("OMPI_COMM_WORLD_LOCAL_SIZE", &l.local_world)) l.local_world = l.world;
  } else if (std::getenv("PMI_RANK") != nullptr) {
    l.source = "pmi";
    need("PMI_RANK", &l.rank);
    need("PMI_SIZE", &l.world);
    if (!env_int("MPI_LOCALRANKID", &l.local_rank)) l.local_rank = l.rank;
    if (!env_int("MPI_LOCALNRANKS", &l.local_world)) l.local_world = l.world;
  } else if (std::getenv("SLURM_PROCID") != nullptr) {
    l.source = "slurm";
    need("SLURM_PROCID", &l.rank);
    need("SLURM_NTASKS", &l.world);
    if (!env_int("SLURM_LOCALID", &l.local_rank)) l.local_rank = l.rank;
    l.local_world = l.world;
  } else {
    l.source = "single";
  }
  if (l.world < 1 || l.rank >= l.world)
    fail(kExitUsage, "usage", "rank " + std::to_string(l.rank) + " is not below the world size " + std::to_string(l.world));
  if (l.local_world < 1) l.local_world = 1;

  l.rendezvous_dir = env_str("CUCO_RENDEZVOUS_DIR");
  if (l.rendezvous_dir.empty() && l.source != "cuco" && l.source != "single") {
    std::string job = env_str("OMPI_MCA_ess_base_jobid");
    if (job.empty()) job = env_str("PMIX_NAMESPACE");
    if (job.empty() && !env_str("SLURM_JOB_ID").empty()) {
      const std::string step = env_str("SLURM_STEP_ID");
      job = env_str("SLURM_JOB_ID") + "." + (step.empty() ? std::string("0") : step);
    }
    if (!job.empty()) l.rendezvous_dir = "/tmp/cuco-rdv-" + sanitize(job);
  }
  if (l.rendezvous_dir.empty() && l.world > 1)
    fail(kExitUsage, "usage",
         "no rendezvous folder: set CUCO_RENDEZVOUS_DIR to a folder shared by the " + std::to_string(l.world) + " ranks");
  return l;
}

void mkdir_p(const std::string& path) {
  std::string cur;
  size_t pos = 0;
  while (pos != std::string::npos) {
    pos = path.find('/', pos + 1);
    cur = path.substr(0, pos);
    if (cur.empty()) continue;
    if (::mkdir(cur.c_str(), 0775) != 0 && errno != EEXIST)
      fail(kExitHarness, "harness", "cannot create folder " + cur + ": " + std::strerror(errno));
  }
}

// Rank 0 writes the NCCL unique id to <dir>/nccl_id (tmp + rename); the others poll for it.
ncclUniqueId exchange_unique_id(const Launch& l) {
  ncclUniqueId id;
  std::memset(&id, 0, sizeof id);
  if (l.world == 1) {
    H_NCCL(ncclGetUniqueId(&id));
    return id;
  }
  const std::string path = l.rendezvous_dir + "/nccl_id";
  if (l.rank == 0) {
    mkdir_p(l.rendezvous_dir);
    H_NCCL(ncclGetUniqueId(&id));
    const std::string tmp = path + ".tmp." + std::to_string(::getpid());
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) fail(kExitHarness, "bootstrap", "cannot write " + tmp + ": " + std::strerror(errno));
    const ssize_t n = ::write(fd, &id, sizeof id);
    const int fs = ::fsync(fd);
    ::close(fd);
    if (n != static_cast<ssize_t>(sizeof id) || fs != 0) fail(kExitHarness, "bootstrap", "cannot write " + tmp);
    if (::rename(tmp.c_str(), path.c_str()) != 0)
      fail(kExitHarness, "bootstrap", "cannot rename " + tmp + " to " + path + ": " + std::strerror(errno));
    return id;
  }
  const auto t0 = std::chrono::steady_clock::now();
  for (;;) {
    const int fd = ::open(path.c_str(), O_RDONLY);
    if (fd >= 0) {
      const ssize_t n = ::read(fd, &id, sizeof id);
      ::close(fd);
      if (n == static_cast<ssize_t>(sizeof id)) return id;
    }
    const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (waited > kRendezvousTimeoutS)
      fail(kExitHarness, "bootstrap",
           "timed out after " + std::to_string(static_cast<int>(kRendezvousTimeoutS)) + " s waiting for " + path +
               " from rank 0 (is rank 0 running, and is the rendezvous folder shared by all ranks?)");
    ::usleep(10000);
  }
}

// ---------------------------------------------------------------------------------------------
// Device kernels of the harness: poisoning, scanning, comparing two runs (shared with the supervisor).
}  // namespace cuco_harness
#include "supervisor/check_kernels.cuh"
namespace cuco_harness {
using cuco::supervisor::agree_kernel;
using cuco::supervisor::poison_kernel;
using cuco::supervisor::scan_kernel;

// ---------------------------------------------------------------------------------------------
// State

// SymAlloc and ContextState are the candidate runtime's (runtime/src/candidate/context_state.h);
// the harness's own communicator is Harness::hcomm_.

struct HBuffer {
  cuco_frozen::BufferSpec spec;
  int index = 0;             // position in the spec list (poison stream id)
  void* ptr = nullptr;
  size_t bytes = 0;          // this rank's bytes
  size_t registered = 0;     // allocated and registered bytes (the same on every rank)
  ncclWindow_t window = nullptr;
};

struct CheckRecord {
  int iteration;
  std::string kind;  // verify | fresh_buffers | timed_sample
  uint64_t seed;
  cuco_frozen::CheckResult r;  // rel_l2 / max_abs over the finite compared elements
  int64_t nonfinite_whole;     // non-finite elements in the whole output buffers (harness scan)
  double time_ms;              // the iteration's time (ctx.stream start -> stop)
};

struct SeedRecord {
  int iteration;
  std::string phase;  // verify | fresh_buffers | warmup | timed
  uint64_t seed;
};

struct IterTimes {
  double time_ms = 0, tail_ms = 0, host_ms = 0;
};

struct Stats {
  double median = NAN, p10 = NAN, p90 = NAN, min = NAN, max = NAN, mean = NAN;
};

// Percentiles by linear interpolation between closest ranks (numpy's default).
double percentile(std::vector<double> v, double q) {
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  const double pos = q * static_cast<double>(v.size() - 1);
  const size_t lo = static_cast<size_t>(std::floor(pos));
  const size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (v[hi] - v[lo]) * (pos - static_cast<double>(lo));
}

Stats stats(const std::vector<double>& v) {
  Stats s;
  if (v.empty()) return s;
  s.median = percentile(v, 0.5);
  s.p10 = percentile(v, 0.1);
  s.p90 = percentile(v, 0.9);
  s.min = *std::min_element(v.begin(), v.end());
  s.max = *std::max_element(v.begin(), v.end());
  double sum = 0;
  for (double x : v) sum += x;
  s.mean = sum / static_cast<double>(v.size());
  return s;
}

// ---------------------------------------------------------------------------------------------
// The harness

class Harness {
 public:
  Harness(std::string nonce, const char* nonce_state) : nonce_(std::move(nonce)), nonce_state_(nonce_state) {}
  int run(int argc, char** argv);
  void write_metrics(const HarnessError* error);
  bool can_write_metrics() const { return launched_ && !args_.metrics_dir.empty(); }

 private:
  void init_sizes();
  void init_device_and_comms();
  void alloc_io();
  HBuffer alloc_buffer(const cuco_frozen::BufferSpec& spec, int index, size_t registered);
  cuco::IO make_io(const std::vector<HBuffer>& inputs, const std::vector<HBuffer>& outputs) const;
  void candidate_setup();
  void candidate_teardown();
  void stage_verify();
  void stage_bench();
  void cleanup();

  uint64_t agree_seed();
  void host_barrier();
  void prepare(const cuco::IO& io, const std::vector<HBuffer>& outputs, uint64_t seed);
  IterTimes iterate(const cuco::IO& io, bool call_candidate);
  void await_stop(std::chrono::steady_clock::time_point t0, bool call_candidate);
  void scan_outputs(const std::vector<HBuffer>& outputs, int64_t* poison_left, int64_t* nonfinite, int64_t* elements);
  cuco_frozen::CheckResult check(const cuco::IO& io, uint64_t seed, const cuco_frozen::CheckPlan& plan);
  cuco_frozen::CheckPlan sample_plan();
  void log_check(const CheckRecord& c);
  unsigned grid_for(int64_t n) const;

  // Inputs
  std::string nonce_;
  const char* nonce_state_;
  Args args_;
  Launch launch_;
  cuco::Sizes sizes_;
  std::string device_name_;
  int cc_major_ = 0, cc_minor_ = 0;
  int nccl_version_ = 0, runtime_version_ = 0, driver_version_ = 0;

  // Resources
  ContextState st_;
  ncclComm_t hcomm_ = nullptr;  // the harness's (ncclCommSplit of st_.comm)
  cuco::RankContext* ctx_ = nullptr;
  cudaStream_t hstream_ = nullptr;
  cudaEvent_t ev_stop_ = nullptr, ev_tail_ = nullptr;
  int* dbar_ = nullptr;                 // [0] send, [1] recv: device barrier on ctx.stream
  int* hbar_ = nullptr;                 // [0] send, [1] recv: host barrier; [2] send, [3] recv: status vote
  uint64_t* dseed_ = nullptr;           // [0] send, [1] recv: seed agreement
  unsigned long long* counters_ = nullptr;  // scan / agreement results
  std::vector<HBuffer> inputs_, outputs_, fresh_outputs_;
  void* candidate_state_ = nullptr;
  uint64_t poison_seed_ = 0;            // of the latest prepare()
  bool launched_ = false;               // launch_ is known

  // Results
  std::vector<SeedRecord> seeds_;
  std::vector<CheckRecord> checks_;
  double agreement_max_abs_ = NAN;
  int64_t agreement_mismatches_ = -1;
  int64_t agreement_elements_ = 0;
  bool have_agreement_ = false;
  std::vector<double> times_, tails_, hosts_;
  std::vector<int64_t> scan_poison_, scan_nonfinite_;
  int64_t scan_elements_ = 0;
  std::vector<int> verified_;
  std::vector<double> cal_times_, cal_tails_, cal_hosts_;
  bool bench_done_ = false;
  int64_t sample_rows_ = kDefaultSampleRows;
};

unsigned Harness::grid_for(int64_t n) const {
  const int64_t cap = std::max(1, st_.sm_count) * 8;
  const int64_t need = (n + 255) / 256;
  return static_cast<unsigned>(std::max<int64_t>(1, std::min(cap, need)));
}

void Harness::init_sizes() {
  for (const auto& s : args_.sizes)
    if (!sizes_.set(s.first.c_str(), s.second)) usage_error("cannot store size '" + s.first + "'");
  const cuco::Status v = cuco_frozen::validate_sizes(sizes_, launch_.world);
  if (!v.ok()) fail(kExitUsage, "config", std::string(cuco_frozen::workload_name()) + ": " + v.message());
  sample_rows_ = sizes_.get_or("sample_rows", kDefaultSampleRows);
  if (sample_rows_ < 1) fail(kExitUsage, "config", "size sample_rows must be >= 1");
}

void Harness::init_device_and_comms() {
  int count = 0;
  H_CUDA(cudaGetDeviceCount(&count));
  if (launch_.local_rank >= count)
    fail(kExitUsage, "config",
         "local rank " + std::to_string(launch_.local_rank) + " has no GPU: " + std::to_string(count) +
             " visible (CUDA_VISIBLE_DEVICES='" + env_str("CUDA_VISIBLE_DEVICES") + "')");
  st_.device = launch_.local_rank;
  H_CUDA(cudaSetDevice(st_.device));
  cudaDeviceProp prop;
  H_CUDA(cudaGetDeviceProperties(&prop, st_.device));
  device_name_ = prop.name;
  cc_major_ = prop.major;
  cc_minor_ = prop.minor;
  H_CUDA(cudaDeviceGetAttribute(&st_.sm_count, cudaDevAttrMultiProcessorCount, st_.device));
  H_CUDA(cudaRuntimeGetVersion(&runtime_version_));
  H_CUDA(cudaDriverGetVersion(&driver_version_));
  H_NCCL(ncclGetVersion(&nccl_version_));

  st_.rank = launch_.rank;
  st_.world = launch_.world;
  st_.local_rank = launch_.local_rank;
  st_.local_world = launch_.local_world;

  // Communicators: the candidate's from the unique id, the harness's split from it (collective,
  // the same call on every rank right after init; splitShare = 0 so it shares no resources).
  const ncclUniqueId id = exchange_unique_id(launch_);
  H_NCCL(ncclCommInitRank(&st_.comm, launch_.world, id, launch_.rank));
  ncclConfig_t cfg = NCCL_CONFIG_INITIALIZER;
  cfg.splitShare = 0;
  cfg.commName = "cuco-harness";
  H_NCCL(ncclCommSplit(st_.comm, 0, launch_.rank, &hcomm_, &cfg));
  int n = 0;
  H_NCCL(ncclCommCount(st_.comm, &n));
  if (n != launch_.world) fail(kExitHarness, "harness", "communicator has " + std::to_string(n) + " ranks, expected " + std::to_string(launch_.world));
  // Every rank has read the id once init returned; remove it so a reused folder holds no stale id.
  if (launch_.rank == 0 && launch_.world > 1) ::unlink((launch_.rendezvous_dir + "/nccl_id").c_str());

  // Streams: blocking with respect to the legacy default stream, so that work a candidate puts on
  // stream 0 is ordered with (and timed by) ctx.stream. Diagnostic: CUCO_HARNESS_NONBLOCKING_STREAMS=1
  // creates ctx.stream and the side streams non-blocking (then stream-0 work escapes the timer and
  // is rejected as escaped work); it tells whether an implicit legacy-stream dependency is what
  // hangs a candidate (bench/results/2026-11-23-x2-h200, the NCCL side-stream hang).
  if (const char* nb = std::getenv("CUCO_HARNESS_NONBLOCKING_STREAMS"); nb != nullptr && std::string(nb) == "1") {
    st_.stream_flags = cudaStreamNonBlocking;
    log("diagnostic: ctx.stream and side streams are non-blocking (CUCO_HARNESS_NONBLOCKING_STREAMS=1)");
  }
  H_CUDA(cudaStreamCreateWithFlags(&st_.stream, st_.stream_flags));
  H_CUDA(cudaStreamCreateWithFlags(&hstream_, cudaStreamDefault));
  H_CUDA(cudaEventCreate(&st_.ev_start));
  H_CUDA(cudaEventCreate(&ev_stop_));
  H_CUDA(cudaEventCreate(&ev_tail_));
  for (auto& e : st_.user_events) H_CUDA(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
  if (cublasLtCreate(&st_.lt) != CUBLAS_STATUS_SUCCESS) fail(kExitHarness, "harness", "cublasLtCreate failed");

  H_CUDA(cudaMalloc(&dbar_, 2 * sizeof(int)));
  H_CUDA(cudaMalloc(&hbar_, 4 * sizeof(int)));
  H_CUDA(cudaMalloc(&dseed_, 2 * sizeof(uint64_t)));
  H_CUDA(cudaMalloc(&counters_, 2 * sizeof(unsigned long long)));
  H_CUDA(cudaMemset(dbar_, 0, 2 * sizeof(int)));
  H_CUDA(cudaMemset(hbar_, 0, 4 * sizeof(int)));
  H_CUDA(cudaMemset(dseed_, 0, 2 * sizeof(uint64_t)));
  H_CUDA(cudaDeviceSynchronize());

  ctx_ = new cuco::RankContext(&st_, st_.rank, st_.world, st_.local_rank, st_.local_world, st_.device, st_.sm_count,
                               st_.comm, st_.stream);
}

HBuffer Harness::alloc_buffer(const cuco_frozen::BufferSpec& spec, int index, size_t registered) {
  HBuffer b;
  b.spec = spec;
  b.index = index;
  b.bytes = static_cast<size_t>(spec.elements) * cuco_frozen::dtype_bytes(spec.dtype);
  b.registered = registered;
  H_NCCL(ncclMemAlloc(&b.ptr, registered));
  H_NCCL(ncclCommWindowRegister(st_.comm, b.ptr, registered, &b.window, NCCL_WIN_COLL_SYMMETRIC));
  st_.windows.push_back(SymAlloc{b.ptr, b.window, true});
  H_CUDA(cudaMemsetAsync(b.ptr, 0, registered, hstream_));
  return b;
}

// Registered size of buffer i: the largest any rank needs, rounded up to 4 KiB, so that the
// (collective, symmetric) registration has the same size on every rank.
static size_t registered_size(const cuco::Sizes& sizes, int world, size_t i) {
  size_t m = 0;
  for (int r = 0; r < world; ++r) {
    const auto specs = cuco_frozen::buffers(sizes, r, world);
    m = std::max(m, static_cast<size_t>(specs[i].elements) * cuco_frozen::dtype_bytes(specs[i].dtype));
  }
  m = std::max<size_t>(m, 1);
  return (m + 4095) / 4096 * 4096;
}

void Harness::alloc_io() {
  const auto specs = cuco_frozen::buffers(sizes_, st_.rank, st_.world);
  // The spec list must have the same shape on every rank (collective registration order).
  for (int r = 0; r < st_.world; ++r) {
    const auto other = cuco_frozen::buffers(sizes_, r, st_.world);
    bool same = other.size() == specs.size();
    for (size_t i = 0; same && i < specs.size(); ++i)
      same = other[i].name == specs[i].name && other[i].role == specs[i].role && other[i].dtype == specs[i].dtype;
    if (!same) fail(kExitHarness, "harness", "the workload's buffer list differs between ranks");
  }
  if (specs.size() > static_cast<size_t>(cuco::IO::kMaxBuffers)) fail(kExitHarness, "harness", "too many buffers");
  for (size_t i = 0; i < specs.size(); ++i) {
    if (specs[i].elements < 0) fail(kExitHarness, "harness", "negative buffer size for " + specs[i].name);
    HBuffer b = alloc_buffer(specs[i], static_cast<int>(i), registered_size(sizes_, st_.world, i));
    (specs[i].role == cuco_frozen::Role::kOutput ? outputs_ : inputs_).push_back(b);
  }
  if (outputs_.empty()) fail(kExitHarness, "harness", "the workload declares no output buffer");
  H_CUDA(cudaDeviceSynchronize());
}

cuco::IO Harness::make_io(const std::vector<HBuffer>& inputs, const std::vector<HBuffer>& outputs) const {
  cuco::IO io;
  for (const auto& b : inputs) io.add(b.spec.name.c_str(), false, cuco::Buffer{b.ptr, b.bytes, b.window});
  for (const auto& b : outputs) io.add(b.spec.name.c_str(), true, cuco::Buffer{b.ptr, b.bytes, b.window});
  return io;
}

template <typename F>
cuco::Status guarded(F&& f) {
  try {
    return f();
  } catch (const HarnessError&) {
    throw;
  } catch (const std::exception& e) {
    return cuco::Status::Error(std::string("exception thrown by the candidate: ") + e.what());
  } catch (...) {
    return cuco::Status::Error("unknown exception thrown by the candidate");
  }
}

uint64_t Harness::agree_seed() {
  // Every rank contributes random bits; the seed is their sum, so no single rank chooses it. With
  // --input-seed the contributions are S from rank 0 and 0 elsewhere (for reproduction only).
  uint64_t contrib = args_.has_input_seed ? (st_.rank == 0 ? args_.input_seed : 0) : secure_u64();
  uint64_t agreed = 0;
  H_CUDA(cudaMemcpyAsync(&dseed_[0], &contrib, sizeof contrib, cudaMemcpyHostToDevice, hstream_));
  H_NCCL(ncclAllReduce(&dseed_[0], &dseed_[1], 1, ncclUint64, ncclSum, hcomm_, hstream_));
  H_CUDA(cudaMemcpyAsync(&agreed, &dseed_[1], sizeof agreed, cudaMemcpyDeviceToHost, hstream_));
  H_CUDA(cudaStreamSynchronize(hstream_));
  return agreed;
}

void Harness::host_barrier() {
  H_NCCL(ncclAllReduce(&hbar_[0], &hbar_[1], 1, ncclInt32, ncclSum, hcomm_, hstream_));
  H_CUDA(cudaStreamSynchronize(hstream_));
}

// Fresh inputs from `seed`, fresh poison in every output, then wait for the whole device (which
// also drains anything a previous iteration left running).
void Harness::prepare(const cuco::IO& io, const std::vector<HBuffer>& outputs, uint64_t seed) {
  const cuco::Status s = cuco_frozen::fill_inputs(sizes_, st_.rank, st_.world, seed, io, hstream_);
  if (!s.ok()) fail(kExitHarness, "harness", std::string("fill_inputs: ") + s.message());
  poison_seed_ = secure_u64();
  for (const auto& b : outputs) {
    const int eb = static_cast<int>(cuco_frozen::dtype_bytes(b.spec.dtype));
    const int64_t n = b.spec.elements;
    const uint64_t key = cuco_frozen::stream_key(poison_seed_, cuco_frozen::kPoisonTensorBase + b.index, st_.rank);
    if (n > 0) {
      poison_kernel<<<grid_for(n), 256, 0, hstream_>>>(b.ptr, n, eb, cuco_frozen::dtype_is_float(b.spec.dtype) ? 1 : 0, key);
      H_CUDA(cudaGetLastError());
    }
  }
  H_CUDA(cudaDeviceSynchronize());
}

// One iteration. Every rank has prepared its buffers; the host barrier makes sure that all ranks
// have (a candidate may write into a peer's output: that must come after the peer's poisoning).
IterTimes Harness::iterate(const cuco::IO& io, bool call_candidate) {
  host_barrier();
  const auto t0 = std::chrono::steady_clock::now();
  // Device barrier on ctx.stream so that the ranks start together, then the start event.
  H_NCCL(ncclAllReduce(&dbar_[0], &dbar_[1], 1, ncclInt32, ncclSum, hcomm_, st_.stream));
  H_CUDA(cudaEventRecord(st_.ev_start, st_.stream));
  for (int i = 0; i < cuco::RankContext::kMaxSideStreams; ++i)
    if (st_.side[i] != nullptr) H_CUDA(cudaStreamWaitEvent(st_.side[i], st_.ev_start, 0));
  cuco::Status s;
  if (call_candidate) {
    st_.in_iteration = true;
    s = guarded([&] { return cuco_candidate_run(*ctx_, candidate_state_, io); });
    st_.in_iteration = false;
  }
  const cudaError_t launch_error = cudaGetLastError();
  if (!s.ok()) fail(kExitCandidate, "candidate", "cuco_candidate_run: " + s.message());
  if (!st_.sticky_error.empty()) fail(kExitCandidate, "candidate", st_.sticky_error);
  C_CUDA(launch_error);
  // Join every side stream handed out (including those created during this call), then stop.
  for (int i = 0; i < cuco::RankContext::kMaxSideStreams; ++i) {
    if (st_.side[i] == nullptr) continue;
    C_CUDA(cudaEventRecord(st_.side_join[i], st_.side[i]));
    C_CUDA(cudaStreamWaitEvent(st_.stream, st_.side_join[i], 0));
  }
  C_CUDA(cudaEventRecord(ev_stop_, st_.stream));
  await_stop(t0, call_candidate);
  C_CUDA(cudaDeviceSynchronize());
  const auto t1 = std::chrono::steady_clock::now();
  // Backstop: work that escaped the join (a stream the candidate made itself) kept the device
  // busy after the stop event; the synchronize above waited for it, so this event lands late.
  H_CUDA(cudaEventRecord(ev_tail_, st_.stream));
  H_CUDA(cudaEventSynchronize(ev_tail_));
  // Every rank's iteration is over before anyone checks: a peer may still be writing into this
  // rank's outputs until its own work is done.
  host_barrier();
  float ms = 0, tail = 0;
  H_CUDA(cudaEventElapsedTime(&ms, st_.ev_start, ev_stop_));
  H_CUDA(cudaEventElapsedTime(&tail, ev_stop_, ev_tail_));
  IterTimes t;
  t.time_ms = ms;
  t.tail_ms = tail;
  t.host_ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
  return t;
}

// Waits for the stop event. With --iteration-limit, GPU work still running past it is a hang: the
// harness names the iteration and exits (5) instead of waiting for the stage limit. Polling the
// event does not touch the measurement (CUDA events time the iteration on the GPU).
void Harness::await_stop(std::chrono::steady_clock::time_point t0, bool call_candidate) {
  if (args_.iteration_limit_s <= 0) return;
  for (int polls = 0;; ++polls) {
    const cudaError_t q = cudaEventQuery(ev_stop_);
    if (q == cudaSuccess) return;
    if (q != cudaErrorNotReady) C_CUDA(q);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (s > args_.iteration_limit_s) {
      std::string which = "a calibration iteration (no candidate call)";
      if (call_candidate && !seeds_.empty())
        which = seeds_.back().phase + " iteration " + std::to_string(seeds_.back().iteration);
      fail(kExitHang, "candidate_hang",
           which + ": the GPU work queued in it did not finish within " + std::to_string(static_cast<int64_t>(std::ceil(args_.iteration_limit_s))) +
               " s (--iteration-limit): a hang, e.g. a kernel waiting for a flag or a peer's kernel that never comes");
    }
    if (polls > 1000) std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
}

void Harness::scan_outputs(const std::vector<HBuffer>& outputs, int64_t* poison_left, int64_t* nonfinite,
                           int64_t* elements) {
  *poison_left = 0;
  *nonfinite = 0;
  *elements = 0;
  for (const auto& b : outputs) {
    const int64_t n = b.spec.elements;
    *elements += n;
    if (n == 0) continue;
    const int eb = static_cast<int>(cuco_frozen::dtype_bytes(b.spec.dtype));
    const uint64_t key = cuco_frozen::stream_key(poison_seed_, cuco_frozen::kPoisonTensorBase + b.index, st_.rank);
    H_CUDA(cudaMemsetAsync(counters_, 0, 2 * sizeof(unsigned long long), hstream_));
    scan_kernel<<<grid_for(n), 256, 0, hstream_>>>(b.ptr, n, eb, static_cast<int>(b.spec.dtype),
                                                     cuco_frozen::dtype_is_float(b.spec.dtype) ? 1 : 0, key, counters_);
    H_CUDA(cudaGetLastError());
    unsigned long long h[2] = {0, 0};
    H_CUDA(cudaMemcpyAsync(h, counters_, sizeof h, cudaMemcpyDeviceToHost, hstream_));
    H_CUDA(cudaStreamSynchronize(hstream_));
    *poison_left += static_cast<int64_t>(h[0]);
    *nonfinite += static_cast<int64_t>(h[1]);
  }
}

cuco_frozen::CheckResult Harness::check(const cuco::IO& io, uint64_t seed, const cuco_frozen::CheckPlan& plan) {
  cuco_frozen::CheckResult r;
  const cuco::Status s = cuco_frozen::check(sizes_, st_.rank, st_.world, seed, io, plan, hstream_, &r);
  if (!s.ok()) fail(kExitHarness, "harness", std::string("check: ") + s.message());
  H_CUDA(cudaDeviceSynchronize());
  return r;
}

cuco_frozen::CheckPlan Harness::sample_plan() {
  cuco_frozen::CheckPlan plan;
  const int64_t rows = cuco_frozen::output_rows(sizes_, st_.rank, st_.world);
  if (sample_rows_ >= rows) return plan;  // all rows
  plan.all_rows = false;
  std::set<int64_t> chosen;
  while (static_cast<int64_t>(chosen.size()) < sample_rows_)
    chosen.insert(static_cast<int64_t>(secure_below(static_cast<uint64_t>(rows))));
  plan.rows.assign(chosen.begin(), chosen.end());
  return plan;
}

static int64_t record_nonfinite(const CheckRecord& c) { return std::max(c.r.nonfinite, c.nonfinite_whole); }

void Harness::log_check(const CheckRecord& c) {
  log("%s #%d: rel_l2=%.3e max_abs=%.3e nonfinite=%" PRId64 " poison_left=%" PRId64 "/%" PRId64 " rows=%" PRId64
      " time=%.3f ms",
      c.kind.c_str(), c.iteration, c.r.rel_l2, c.r.max_abs, record_nonfinite(c), c.r.poison_left, c.r.poison_elements,
      c.r.rows_checked, c.time_ms);
}

void Harness::candidate_setup() {
  cuco::Status s = guarded([&] { return cuco_candidate_setup(*ctx_, sizes_, &candidate_state_); });
  const cudaError_t launch_error = cudaGetLastError();
  if (s.ok() && st_.sticky_error.empty()) {
    C_CUDA(launch_error);
    C_CUDA(cudaDeviceSynchronize());
  }
  // Vote, so that one rank's failing setup does not leave the others waiting in a collective.
  std::string err;
  if (!s.ok()) err = "cuco_candidate_setup: " + s.message();
  else if (!st_.sticky_error.empty()) err = st_.sticky_error;
  const int mine = err.empty() ? 0 : 1;
  int total = 0;
  H_CUDA(cudaMemcpyAsync(&hbar_[2], &mine, sizeof mine, cudaMemcpyHostToDevice, hstream_));
  H_NCCL(ncclAllReduce(&hbar_[2], &hbar_[3], 1, ncclInt32, ncclSum, hcomm_, hstream_));
  H_CUDA(cudaMemcpyAsync(&total, &hbar_[3], sizeof total, cudaMemcpyDeviceToHost, hstream_));
  H_CUDA(cudaStreamSynchronize(hstream_));
  if (total > 0)
    fail(kExitCandidate, "candidate",
         err.empty() ? std::string("cuco_candidate_setup failed on another rank") : err);
}

void Harness::candidate_teardown() {
  st_.in_teardown = true;
  try {
    cuco_candidate_teardown(*ctx_, candidate_state_);
  } catch (const std::exception& e) {
    fail(kExitCandidate, "candidate_exception", std::string("exception thrown by cuco_candidate_teardown: ") + e.what());
  } catch (...) {
    fail(kExitCandidate, "candidate_exception", "unknown exception thrown by cuco_candidate_teardown");
  }
  C_CUDA(cudaGetLastError());
  C_CUDA(cudaDeviceSynchronize());
  if (!st_.sticky_error.empty()) fail(kExitCandidate, "candidate", st_.sticky_error);
}

void Harness::stage_verify() {
  const cuco::IO io = make_io(inputs_, outputs_);
  const cuco_frozen::CheckPlan all_rows;
  uint64_t last_seed = 0;
  for (int v = 0; v < args_.verify_runs; ++v) {
    const uint64_t seed = agree_seed();
    seeds_.push_back({v, "verify", seed});
    prepare(io, outputs_, seed);
    const IterTimes t = iterate(io, true);
    CheckRecord c{v, "verify", seed, check(io, seed, all_rows), 0, t.time_ms};
    scan_outputs(outputs_, &c.r.poison_left, &c.nonfinite_whole, &c.r.poison_elements);
    checks_.push_back(c);
    log_check(c);
    last_seed = seed;
  }

  // A fresh second set of output buffers (collective: the same order on every rank), poisoned, on
  // the same inputs as the last run. First keep a copy of the last run's outputs for agreement.
  std::vector<void*> snapshots;
  for (const auto& b : outputs_) {
    void* snap = nullptr;
    H_CUDA(cudaMalloc(&snap, std::max<size_t>(b.bytes, 1)));
    H_CUDA(cudaMemcpyAsync(snap, b.ptr, b.bytes, cudaMemcpyDeviceToDevice, hstream_));
    snapshots.push_back(snap);
  }
  H_CUDA(cudaStreamSynchronize(hstream_));
  for (const auto& b : outputs_) fresh_outputs_.push_back(alloc_buffer(b.spec, b.index, b.registered));
  H_CUDA(cudaDeviceSynchronize());
  const cuco::IO fresh = make_io(inputs_, fresh_outputs_);
  const int it = args_.verify_runs;
  seeds_.push_back({it, "fresh_buffers", last_seed});
  prepare(fresh, fresh_outputs_, last_seed);  // refills the inputs: the candidate may have changed them
  const IterTimes t = iterate(fresh, true);
  CheckRecord c{it, "fresh_buffers", last_seed, check(fresh, last_seed, all_rows), 0, t.time_ms};
  scan_outputs(fresh_outputs_, &c.r.poison_left, &c.nonfinite_whole, &c.r.poison_elements);
  checks_.push_back(c);
  log_check(c);

  // Agreement between the two runs on the same inputs.
  double max_abs = 0;
  int64_t mismatches = 0, elements = 0;
  for (size_t i = 0; i < outputs_.size(); ++i) {
    const HBuffer& b = fresh_outputs_[i];
    const int64_t n = b.spec.elements;
    elements += n;
    if (n == 0) continue;
    H_CUDA(cudaMemsetAsync(counters_, 0, 2 * sizeof(unsigned long long), hstream_));
    agree_kernel<<<grid_for(n), 256, 0, hstream_>>>(snapshots[i], b.ptr, n,
                                                      static_cast<int>(cuco_frozen::dtype_bytes(b.spec.dtype)),
                                                      static_cast<int>(b.spec.dtype), counters_);
    H_CUDA(cudaGetLastError());
    unsigned long long h[2] = {0, 0};
    H_CUDA(cudaMemcpyAsync(h, counters_, sizeof h, cudaMemcpyDeviceToHost, hstream_));
    H_CUDA(cudaStreamSynchronize(hstream_));
    double m = 0;
    std::memcpy(&m, &h[0], sizeof m);
    max_abs = std::max(max_abs, m);
    mismatches += static_cast<int64_t>(h[1]);
  }
  for (void* p : snapshots) H_CUDA(cudaFree(p));
  agreement_max_abs_ = max_abs;
  agreement_mismatches_ = mismatches;
  agreement_elements_ = elements;
  have_agreement_ = true;
  log("agreement between runs: max_abs=%.3e mismatches=%" PRId64 "/%" PRId64, max_abs, mismatches, elements);
}

void Harness::stage_bench() {
  const cuco::IO io = make_io(inputs_, outputs_);
  for (int w = 0; w < args_.warmup; ++w) {
    const uint64_t seed = agree_seed();
    seeds_.push_back({w, "warmup", seed});
    prepare(io, outputs_, seed);
    iterate(io, true);
  }
  // Calibration: the same iteration with no candidate call, for the evaluator's baselines.
  for (int c = 0; c < kCalibrationIters; ++c) {
    const IterTimes t = iterate(io, false);
    cal_times_.push_back(t.time_ms);
    cal_tails_.push_back(t.tail_ms);
    cal_hosts_.push_back(t.host_ms);
  }
  // Which timed iterations are verified is decided after each one has run, from fresh system
  // randomness (sequential sampling: exactly k of the iters, uniformly), so nothing the candidate
  // can see before or during an iteration tells whether that iteration will be checked.
  // --timing-only: none (a bound part computes a deliberately incomplete result).
  const int k = args_.timing_only ? 0
                                  : std::min(args_.iters, std::max(2, static_cast<int>(std::ceil(
                                                                          args_.verify_fraction * args_.iters - 1e-9))));
  int remaining = k;
  for (int i = 0; i < args_.iters; ++i) {
    const uint64_t seed = agree_seed();
    seeds_.push_back({i, "timed", seed});
    prepare(io, outputs_, seed);
    const IterTimes t = iterate(io, true);
    times_.push_back(t.time_ms);
    tails_.push_back(t.tail_ms);
    hosts_.push_back(t.host_ms);
    int64_t poison = 0, nonfinite = 0, elements = 0;
    scan_outputs(outputs_, &poison, &nonfinite, &elements);
    scan_poison_.push_back(poison);
    scan_nonfinite_.push_back(nonfinite);
    scan_elements_ = elements;
    const bool verify = remaining > 0 && secure_below(static_cast<uint64_t>(args_.iters - i)) <
                                             static_cast<uint64_t>(remaining);
    if (verify) {
      --remaining;
      verified_.push_back(i);
      CheckRecord c{i, "timed_sample", seed, check(io, seed, sample_plan()), nonfinite, t.time_ms};
      c.r.poison_left = poison;
      c.r.poison_elements = elements;
      checks_.push_back(c);
      log_check(c);
    }
  }
  bench_done_ = true;
  const Stats s = stats(times_);
  log("bench: median %.4f ms (p10 %.4f, p90 %.4f) over %d iterations; tail median %.4f ms%s", s.median, s.p10, s.p90,
      args_.iters, percentile(tails_, 0.5), args_.timing_only ? " (timing only: no reference checks)" : "");
}

void Harness::cleanup() {
  H_CUDA(cudaDeviceSynchronize());
  // Collective releases in the same order on every rank: device communicators in creation order,
  // then windows in reverse registration order.
  for (const auto& dc : st_.dev_comms) H_NCCL(ncclDevCommDestroy(st_.comm, &dc));
  st_.dev_comms.clear();
  for (auto it = st_.windows.rbegin(); it != st_.windows.rend(); ++it) {
    H_NCCL(ncclCommWindowDeregister(st_.comm, it->window));
    H_NCCL(ncclMemFree(it->ptr));
  }
  st_.windows.clear();
  for (int i = 0; i < cuco::RankContext::kMaxSideStreams; ++i) {
    if (st_.side[i] != nullptr) H_CUDA(cudaStreamDestroy(st_.side[i]));
    if (st_.side_join[i] != nullptr) H_CUDA(cudaEventDestroy(st_.side_join[i]));
  }
  H_CUDA(cudaEventDestroy(st_.ev_start));
  for (auto& e : st_.user_events) H_CUDA(cudaEventDestroy(e));
  H_CUDA(cudaEventDestroy(ev_stop_));
  H_CUDA(cudaEventDestroy(ev_tail_));
  H_CUDA(cudaFree(dbar_));
  H_CUDA(cudaFree(hbar_));
  H_CUDA(cudaFree(dseed_));
  H_CUDA(cudaFree(counters_));
  if (cublasLtDestroy(st_.lt) != CUBLAS_STATUS_SUCCESS) fail(kExitHarness, "harness", "cublasLtDestroy failed");
  H_CUDA(cudaStreamDestroy(st_.stream));
  H_CUDA(cudaStreamDestroy(hstream_));
  H_NCCL(ncclCommDestroy(hcomm_));
  H_NCCL(ncclCommDestroy(st_.comm));
  delete ctx_;
  ctx_ = nullptr;
}

int Harness::run(int argc, char** argv) {
  args_ = parse_args(argc, argv);
  launch_ = detect_launch();
  launched_ = true;
  g_rank = launch_.rank;
  init_sizes();
  init_device_and_comms();
  log("%s stage on %s (device %d, %d SMs), rank %d of %d, NCCL %d", args_.stage.c_str(), device_name_.c_str(),
      st_.device, st_.sm_count, st_.rank, st_.world, nccl_version_);
  alloc_io();
  candidate_setup();
  if (args_.stage == "verify") stage_verify();
  else stage_bench();
  candidate_teardown();
  write_metrics(nullptr);
  cleanup();
  return kExitOk;
}

// ---------------------------------------------------------------------------------------------
// Metrics (schema: runtime/METRICS.md)

static void write_stats(Json& j, const std::string& prefix, const std::vector<double>& v) {
  const Stats s = stats(v);
  j.kv(prefix + "median_ms", s.median).kv(prefix + "p10_ms", s.p10).kv(prefix + "p90_ms", s.p90);
  j.kv(prefix + "min_ms", s.min).kv(prefix + "max_ms", s.max).kv(prefix + "mean_ms", s.mean);
}

static void write_array(Json& j, const std::string& k, const std::vector<double>& v) {
  j.key(k).begin_array();
  for (double x : v) j.num(x);
  j.end_array();
}

static void write_array(Json& j, const std::string& k, const std::vector<int64_t>& v) {
  j.key(k).begin_array();
  for (int64_t x : v) j.i64(x);
  j.end_array();
}

void Harness::write_metrics(const HarnessError* error) {
  Json j;
  j.begin_object();
  j.kv("harness", kHarnessVersion);
  j.kv("nonce", nonce_);
  j.kv("nonce_state", nonce_state_);
  j.kv("status", error ? "error" : "ok");
  if (error) {
    j.kv("error", error->message).kv("error_kind", error->kind).kv("exit_code", error->exit_code);
  } else {
    j.key("error").null().key("error_kind").null().kv("exit_code", kExitOk);
  }
  j.kv("workload", cuco_frozen::workload_name());
  j.kv("stage", args_.stage);
  j.kv("checked", !args_.timing_only);
  j.kv("rank", launch_.rank).kv("world_size", launch_.world);
  j.kv("local_rank", launch_.local_rank).kv("local_world_size", launch_.local_world);
  j.key("launch").begin_object().kv("source", launch_.source).kv("rendezvous_dir", launch_.rendezvous_dir).end_object();
  j.kv("device", device_name_).kv("device_index", st_.device).kv("sm_count", st_.sm_count);
  j.kv("compute_capability", std::to_string(cc_major_) + "." + std::to_string(cc_minor_));
  j.key("versions").begin_object();
  j.kv("nccl", nccl_version_).kv("cuda_runtime", runtime_version_).kv("cuda_driver", driver_version_);
  j.end_object();
  j.key("sizes").begin_object();
  for (const auto& s : args_.sizes) j.kv(s.first, s.second);
  j.end_object();
  j.key("settings").begin_object();
  j.kv("warmup", args_.warmup).kv("iters", args_.iters).kv("verify_runs", args_.verify_runs);
  j.kv("verify_fraction", args_.verify_fraction).kv("sample_rows", sample_rows_);
  j.kv("input_seed_fixed", args_.has_input_seed).kv("timing_only", args_.timing_only);
  if (args_.has_input_seed) j.kv("input_seed", hex64(args_.input_seed));
  else j.key("input_seed").null();
  j.end_object();

  j.key("input_seeds").begin_array();
  for (const auto& s : seeds_)
    j.begin_object().kv("iteration", s.iteration).kv("phase", s.phase).kv("seed", hex64(s.seed)).end_object();
  j.end_array();

  j.key("checks").begin_array();
  for (const auto& c : checks_) {
    const int64_t nonfinite = record_nonfinite(c);
    j.begin_object();
    j.kv("iteration", c.iteration).kv("kind", c.kind).kv("input_seed", hex64(c.seed));
    j.kv("rows_checked", c.r.rows_checked).kv("elements", c.r.elements_checked);
    j.kv("rel_l2", nonfinite > 0 ? NAN : c.r.rel_l2).kv("max_abs", nonfinite > 0 ? NAN : c.r.max_abs);
    j.kv("rel_l2_finite", c.r.rel_l2).kv("max_abs_finite", c.r.max_abs);
    j.kv("nonfinite", nonfinite).kv("nonfinite_checked", c.r.nonfinite);
    j.kv("poison_left", c.r.poison_left).kv("output_elements", c.r.poison_elements);
    j.kv("time_ms", c.time_ms);
    j.end_object();
  }
  j.end_array();

  // Present only when computed (verify stage): an absent key means "not measured", while null
  // means a non-finite difference (NaN/Inf in one run and not in the other).
  if (have_agreement_) {
    j.kv("agreement_max_abs", agreement_max_abs_).kv("agreement_mismatches", agreement_mismatches_);
    j.kv("agreement_elements", agreement_elements_);
  }

  if (args_.stage == "bench") {
    j.key("timing").begin_object();
    j.kv("complete", bench_done_).kv("iters", static_cast<int64_t>(times_.size()));
    write_array(j, "times_ms", times_);
    write_stats(j, "", times_);
    write_array(j, "tail_ms", tails_);
    j.kv("tail_median_ms", percentile(tails_, 0.5));
    j.kv("tail_max_ms", tails_.empty() ? NAN : *std::max_element(tails_.begin(), tails_.end()));
    write_array(j, "host_ms", hosts_);
    j.kv("host_median_ms", percentile(hosts_, 0.5));
    j.key("verified_iterations").begin_array();
    for (int v : verified_) j.i64(v);
    j.end_array();
    write_array(j, "scan_poison_left", scan_poison_);
    write_array(j, "scan_nonfinite", scan_nonfinite_);
    j.kv("scan_elements", scan_elements_);
    j.key("calibration").begin_object();
    j.kv("iters", static_cast<int64_t>(cal_times_.size()));
    j.kv("empty_median_ms", percentile(cal_times_, 0.5));
    j.kv("tail_median_ms", percentile(cal_tails_, 0.5));
    j.kv("host_median_ms", percentile(cal_hosts_, 0.5));
    j.end_object();
    j.end_object();
  } else {
    j.key("timing").null();
  }
  j.end_object();

  std::string text = j.text();
  text += '\n';
  mkdir_p(args_.metrics_dir);
  const std::string final_path = args_.metrics_dir + "/rank" + std::to_string(launch_.rank) + ".json";
  const std::string tmp = args_.metrics_dir + "/.rank" + std::to_string(launch_.rank) + ".json.tmp." +
                          std::to_string(::getpid());
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) fail(kExitHarness, "harness", "cannot write " + tmp + ": " + std::strerror(errno));
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n <= 0) {
      ::close(fd);
      fail(kExitHarness, "harness", "cannot write " + tmp + ": " + std::strerror(errno));
    }
    done += static_cast<size_t>(n);
  }
  ::fsync(fd);
  ::close(fd);
  if (::rename(tmp.c_str(), final_path.c_str()) != 0)
    fail(kExitHarness, "harness", "cannot rename " + tmp + " to " + final_path + ": " + std::strerror(errno));
}

}  // namespace cuco_harness

// ---------------------------------------------------------------------------------------------
// RankContext services: runtime/src/candidate/rank_context.cu (linked in).

// ---------------------------------------------------------------------------------------------

int main(int argc, char** argv) {
  // Before anything else (and so before any candidate code but static initialisers): take the run
  // nonce out of the environment, and make sure NVLink multicast stays off.
  char* nonce_env = std::getenv("CUCO_RUN_NONCE");
  const std::string nonce = nonce_env ? std::string(nonce_env) : std::string();
  const char* nonce_state = nonce_env ? "present" : "absent";
  // Overwrite the value in place first: unsetenv only drops the pointer, and the original
  // string would stay readable in /proc/self/environ.
  if (nonce_env) std::memset(nonce_env, 'x', std::strlen(nonce_env));
  ::unsetenv("CUCO_RUN_NONCE");
  ::setenv("NCCL_NVLS_ENABLE", "0", 1);

  cuco_harness::Harness harness(nonce, nonce_state);
  int code = cuco_harness::kExitOk;
  try {
    code = harness.run(argc, argv);
  } catch (const cuco_harness::HarnessError& e) {
    cuco_harness::log("error (%s): %s", e.kind.c_str(), e.message.c_str());
    code = e.exit_code;
    if (harness.can_write_metrics()) {
      try {
        harness.write_metrics(&e);
      } catch (const cuco_harness::HarnessError& e2) {
        cuco_harness::log("could not write metrics: %s", e2.message.c_str());
      }
    }
  } catch (const std::exception& e) {
    cuco_harness::log("error (harness): %s", e.what());
    code = cuco_harness::kExitHarness;
    if (harness.can_write_metrics()) {
      cuco_harness::HarnessError he{code, "harness", e.what()};
      try {
        harness.write_metrics(&he);
      } catch (...) {
      }
    }
  }
  std::fflush(stdout);
  std::fflush(stderr);
  if (code != cuco_harness::kExitOk) std::_Exit(code);  // no teardown of a possibly broken CUDA/NCCL state
  return code;
}
