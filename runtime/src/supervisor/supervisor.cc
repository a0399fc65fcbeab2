#include "supervisor/supervisor.h"

#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <condition_variable>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <optional>
#include <set>
#include <thread>

#include "common/channel.h"
#include "supervisor/candidate_process.h"
#include "supervisor/rank_report.h"
#include "supervisor/timed_loop.h"

namespace cuco::supervisor {

using protocol::MsgType;

void Log(const char* fmt, ...) {
  char buf[2048];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  std::fprintf(stderr, "[cuco-supervisor] %s\n", buf);
  std::fflush(stderr);
}

std::string TakeNonce() {
  char* v = std::getenv("CUCO_RUN_NONCE");
  if (v == nullptr) return "";
  std::string nonce = v;
  std::memset(v, 'x', std::strlen(v));
  ::unsetenv("CUCO_RUN_NONCE");
  return nonce;
}

uint64_t SecureU64() {
  uint64_t v = 0;
  size_t got = 0;
  while (got < sizeof v) {
    const ssize_t n = ::getrandom(reinterpret_cast<char*>(&v) + got, sizeof v - got, 0);
    if (n < 0) {
      if (errno == EINTR) continue;
      Fail(protocol::kExitSupervisor, "supervisor", std::string("getrandom: ") + std::strerror(errno));
    }
    got += static_cast<size_t>(n);
  }
  return v;
}

uint64_t SecureBelow(uint64_t n) {
  const uint64_t limit = UINT64_MAX - UINT64_MAX % n;
  for (;;) {
    const uint64_t v = SecureU64();
    if (v < limit) return v % n;
  }
}

double Percentile(std::vector<double> v, double q) {
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  const double pos = q * static_cast<double>(v.size() - 1);
  const size_t lo = static_cast<size_t>(std::floor(pos));
  const size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (v[hi] - v[lo]) * (pos - static_cast<double>(lo));
}

namespace {

constexpr int kCalibrationIters = 5;
constexpr int64_t kDefaultSampleRows = 32;
// The most timed iterations a bench checks against the reference. Each check runs the reference
// once more (a user's program: its whole iteration on one GPU), and a long bench (a noisy one timed
// again over hundreds of iterations) spent most of its time there: aicomm_tp_row at two GPUs, 296
// checks, 55 of a candidate's 64 s. The iterations checked are drawn after each ran, so a candidate
// wrong in a fraction f of them passes with probability (1-f)^32; to move the median it must be
// wrong in half (2^-32). Every timed iteration is still scanned for poison.
constexpr int kMaxTimedChecks = 32;
constexpr double kDefaultIterationLimitS = 600;


// A barrier for the rank threads that a failure on any rank opens for good.
class Barrier {
 public:
  explicit Barrier(int n) : n_(n) {}
  bool Wait() {
    std::unique_lock<std::mutex> lock(mu_);
    if (aborted_) return false;
    const uint64_t gen = generation_;
    if (++arrived_ == n_) {
      arrived_ = 0;
      ++generation_;
      cv_.notify_all();
      return true;
    }
    cv_.wait(lock, [&] { return generation_ != gen || aborted_; });
    return !aborted_;
  }
  void Abort() {
    std::lock_guard<std::mutex> lock(mu_);
    aborted_ = true;
    cv_.notify_all();
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  int n_, arrived_ = 0;
  uint64_t generation_ = 0;
  bool aborted_ = false;
};

// One rank's state while the stage runs; its figures are the RankReport written at the end.
struct Rank {
  RankReport report;
  std::unique_ptr<RankBackend> be;
  uint64_t poison[protocol::kMaxOutputSets] = {};
  bool poisoned[protocol::kMaxOutputSets] = {};
  std::string last_phase = "start";
  int last_iteration = -1;
  int64_t serial = 0;  // the GO/DONE value of the latest iteration
  int late_enqueues = 0;  // iterations in a row whose run had not returned within kEnqueueWaitS
};

// How long the driver waits, before it opens a window, for a candidate whose stream waits for GO
// to return from its run (its work then sits enqueued behind GO). A run that is not back by then
// waits inside itself for GO (a host synchronisation); after kEnqueueMisses such iterations in a
// row the driver stops waiting for that rank and opens the window first, as before.
constexpr double kEnqueueWaitS = 0.05;
constexpr int kEnqueueMisses = 3;

class Driver {
 public:
  Driver(const Args& args, const SupervisorIdentity& id)
      : args_(args), id_(id), barrier_(args.world), t0_(std::chrono::steady_clock::now()) {}

  int Run(const std::function<std::unique_ptr<RankBackend>()>& make_backend);

 private:
  void RankInit(Rank& r);
  void Calibrate(Rank& r, std::vector<double>* out);
  void RankMain(Rank& r);
  void Handshake(Rank& r);
  void StageVerify(Rank& r);
  void StageBench(Rank& r);
  double Iterate(Rank& r, int set, uint64_t seed, const std::string& phase, int iteration);
  // The reference check of the rank's snapshot, timed (its check_s), as the record of `iteration`.
  CheckRecord Check(Rank& r, int iteration, const char* kind, uint64_t seed, const std::vector<int64_t>& rows,
                    const ScanFigures& scan, double ms);
  void CheckLate(Rank& r, int set, const std::string& phase, int iteration);
  // `what` from `r` within limit_s, else a hang: `why` names what else it may be ("(a hang)" by default).
  protocol::Received Expect(Rank& r, MsgType type, double limit_s, const std::string& what,
                            const std::string& why = "(a hang)");
  // As Expect, but nothing (no failure) when no message came within limit_s.
  std::optional<protocol::Received> TryExpect(Rank& r, MsgType type, double limit_s, const std::string& what);
  void Send(Rank& r, const protocol::Message& m, const void* payload = nullptr, size_t bytes = 0,
            const std::vector<int>& fds = {});
  [[noreturn]] void CandidateGone(Rank& r, const std::string& what);
  void Record(const SupervisorError& e, int rank);
  bool Aborted() {
    std::lock_guard<std::mutex> lock(mu_);
    return error_.has_value();
  }
  double IterationLimit() const { return args_.iteration_limit_s > 0 ? args_.iteration_limit_s : kDefaultIterationLimitS; }
  std::vector<uint64_t> DrawSeeds(int n);
  // Appends `what`, now, to r's timeline (only r's own thread, or the main thread between them).
  void Mark(Rank& r, const char* what) {
    r.report.timeline.push_back(
        {what, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count()});
  }

  const Args& args_;
  SupervisorIdentity id_;
  Barrier barrier_;
  std::chrono::steady_clock::time_point t0_;
  CandidateProcess candidate_;
  std::mutex mu_;
  std::optional<SupervisorError> error_;
  int error_rank_ = -1;
  std::vector<uint64_t> seeds_;  // one per iteration slot of the stage, shared by every rank
  std::vector<double> warmup_pace_ms_;  // each rank's warm-up pace (WarmupPaceMs), for a sized timed loop
  std::mutex id_mu_;
  std::condition_variable id_cv_;
  std::optional<std::vector<char>> comm_id_;
  int64_t sample_rows_ = kDefaultSampleRows;
  std::vector<protocol::WireSize> sizes_;
  int output_sets_ = 1;
  bool watcher_done_ = false;
};

void Driver::Record(const SupervisorError& e, int rank) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (error_.has_value()) return;
    error_ = e;
    error_rank_ = rank;
  }
  Log("rank %d: error (%s): %s", rank, e.kind.c_str(), e.message.c_str());
  barrier_.Abort();
  {
    std::lock_guard<std::mutex> lock(id_mu_);
    id_cv_.notify_all();
  }
}

void Driver::Send(Rank& r, const protocol::Message& m, const void* payload, size_t bytes, const std::vector<int>& fds) {
  const std::string err = protocol::SendMessage(candidate_.socket(r.report.rank), m, payload, bytes, fds);
  if (!err.empty()) CandidateGone(r, "sending to it failed (" + err + ")");
}

void Driver::CandidateGone(Rank& r, const std::string& what) {
  // The socket closed or broke: the rank (or the whole sandbox) ended. Give it a moment to be reaped.
  for (int i = 0; i < 200 && !candidate_.Poll(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  const int st = candidate_.first_abnormal_status();
  const std::string where = r.last_phase + (r.last_iteration >= 0 ? " iteration " + std::to_string(r.last_iteration) : "");
  if (st != 0 && WIFSIGNALED(st))
    Fail(protocol::kExitCandidateCrashed, "candidate_crashed",
         "candidate rank " + std::to_string(r.report.rank) + " died during " + where + ": " + CandidateProcess::Describe(st));
  if (st != 0 && WIFEXITED(st) && WEXITSTATUS(st) > 128)  // the rank spawner's 128 + signal
    Fail(protocol::kExitCandidateCrashed, "candidate_crashed",
         "candidate rank " + std::to_string(r.report.rank) + " died during " + where + ": signal " +
             std::to_string(WEXITSTATUS(st) - 128) + " (" + strsignal(WEXITSTATUS(st) - 128) + ")");
  Fail(protocol::kExitCandidateExited, "candidate_exited",
       "candidate rank " + std::to_string(r.report.rank) + " " + what + " during " + where +
           (st != 0 ? " (" + CandidateProcess::Describe(st) + ")" : " (it exited without being told to)"));
}

protocol::Received Driver::Expect(Rank& r, MsgType type, double limit_s, const std::string& what, const std::string& why) {
  std::optional<protocol::Received> got = TryExpect(r, type, limit_s, what);
  if (!got)
    Fail(protocol::kExitHang, "candidate_hang",
         "candidate rank " + std::to_string(r.report.rank) + ": " + what + " did not happen within " +
             std::to_string(static_cast<int64_t>(std::ceil(limit_s))) + " s " + why);
  return std::move(*got);
}

std::optional<protocol::Received> Driver::TryExpect(Rank& r, MsgType type, double limit_s, const std::string& what) {
  protocol::Received got;
  std::string err;
  const auto status = protocol::RecvMessage(candidate_.socket(r.report.rank), static_cast<int>(limit_s * 1000), &got, &err);
  if (status == protocol::RecvStatus::kClosed) CandidateGone(r, "closed its socket");
  if (status == protocol::RecvStatus::kTimeout) return std::nullopt;
  if (status == protocol::RecvStatus::kBad)
    Fail(protocol::kExitProtocol, "protocol", "candidate rank " + std::to_string(r.report.rank) + " sent " + err);
  if (got.msg.type != static_cast<uint32_t>(type)) {
    for (int fd : got.fds) ::close(fd);
    Fail(protocol::kExitProtocol, "protocol",
         "candidate rank " + std::to_string(r.report.rank) + " sent message type " + std::to_string(got.msg.type) +
             " while the supervisor waited for " + what);
  }
  if (type != MsgType::kBuffers) {
    for (int fd : got.fds) ::close(fd);
    got.fds.clear();
  }
  return got;
}

std::vector<uint64_t> Driver::DrawSeeds(int n) {
  std::vector<uint64_t> s;
  std::set<uint64_t> seen;
  while (static_cast<int>(s.size()) < n) {
    const uint64_t v = SecureU64();
    if (seen.insert(v).second) s.push_back(v);
  }
  return s;
}

void Driver::RankInit(Rank& r) {
  r.be->Init(r.report.rank, args_.world, output_sets_);
  r.report.initialized = true;
  Mark(r, "backend_ready");
  r.be->ReadDeviceState("before");  // no candidate process exists yet
  if (args_.stage == "bench") Calibrate(r, &r.report.null_before);
  Mark(r, "calibrated");
}

// Null iterations run on every rank together, as the iterations do: a host barrier, then each
// rank's window, which crosses the backend's start line (start_line.h) like a real one.
void Driver::Calibrate(Rank& r, std::vector<double>* out) {
  for (int c = 0; c < kCalibrationIters; ++c) {
    if (!barrier_.Wait()) return;  // another rank failed
    out->push_back(r.be->NullIteration(SecureU64()));
  }
}

void Driver::Handshake(Rank& r) {
  r.last_phase = "start-up";
  const double limit = args_.setup_limit_s;
  const protocol::Received hello = Expect(r, MsgType::kHello, limit, "its hello (start-up)");
  Mark(r, "hello");
  if (hello.msg.a != protocol::kVersion)
    Fail(protocol::kExitProtocol, "protocol",
         "candidate rank " + std::to_string(r.report.rank) + " speaks protocol version " + std::to_string(hello.msg.a) +
             ", the supervisor " + std::to_string(protocol::kVersion) + " (stale candidate runtime?)");
  protocol::WireConfig cfg{};
  cfg.rank = cfg.local_rank = r.report.rank;
  cfg.world = cfg.local_world = args_.world;
  cfg.n_sizes = static_cast<int32_t>(sizes_.size());
  for (size_t i = 0; i < sizes_.size(); ++i) cfg.sizes[i] = sizes_[i];
  const auto buffers = r.be->Buffers();
  if (buffers.size() > static_cast<size_t>(protocol::kMaxBuffers))
    Fail(protocol::kExitSupervisor, "supervisor", "the workload has more buffers than the protocol carries");
  cfg.n_buffers = static_cast<int32_t>(buffers.size());
  for (size_t i = 0; i < buffers.size(); ++i) cfg.buffers[i] = buffers[i];
  cfg.output_sets = output_sets_;
  Send(r, protocol::MakeMessage(MsgType::kConfig), &cfg, sizeof cfg, r.be->ConfigFds());
  if (r.be->WantsCommId()) {
    if (r.report.rank == 0) {
      const protocol::Received id = Expect(r, MsgType::kNcclId, limit, "its communicator id");
      std::lock_guard<std::mutex> lock(id_mu_);
      comm_id_ = id.payload;
      id_cv_.notify_all();
    }
    std::vector<char> id;
    {
      std::unique_lock<std::mutex> lock(id_mu_);
      id_cv_.wait(lock, [&] { return comm_id_.has_value() || Aborted(); });
      if (!comm_id_.has_value()) return;
      id = *comm_id_;
    }
    Send(r, protocol::MakeMessage(MsgType::kNcclId), id.data(), id.size());
  }
  if (r.be->WantsBuffers()) {
    protocol::Received b = Expect(r, MsgType::kBuffers, limit, "its buffers");
    r.be->AcceptBuffers(b);
  }
  r.last_phase = "setup";
  const protocol::Received ready = Expect(r, MsgType::kReady, limit, "cuco_candidate_setup returning");
  Mark(r, "setup_done");
  const std::string err = protocol::TextOf(ready.msg);
  if (!err.empty()) Fail(protocol::kExitCandidate, "candidate", "cuco_candidate_setup: " + err);
}

void Driver::CheckLate(Rank& r, int set, const std::string& phase, int iteration) {
  if (!r.poisoned[set]) return;
  const int64_t n = r.be->ChangedSincePoison(set, r.poison[set]);
  if (n > 0) {
    r.report.late.push_back({phase, iteration, n});
    Log("rank %d: %" PRId64 " output elements written after the window of %s iteration %d had closed", r.report.rank, n,
        phase.c_str(), iteration);
  }
}

double Driver::Iterate(Rank& r, int set, uint64_t seed, const std::string& phase, int iteration) {
  for (int s = 0; s < output_sets_; ++s) CheckLate(r, s, r.last_phase, r.last_iteration);
  if (!barrier_.Wait()) Fail(protocol::kExitSupervisor, "aborted", "another rank failed");
  r.last_phase = phase;
  r.last_iteration = iteration;
  r.report.seeds.push_back({iteration, phase, seed});
  const int64_t serial = ++r.serial;
  const std::string what = "its run call for " + phase + " iteration " + std::to_string(iteration);
  // Where the candidate's stream waits for GO, its run is enqueued before the window opens, so the
  // window holds the GPU's work and not the candidate process's host latency, as a loop in one
  // process runs ahead of its GPU. (The window opens at a start line, so the ranks' differing
  // waits here stay out of it; the inputs are written only after that line.)
  const bool enqueue_first = r.be->CandidateWaitsForGo() && r.late_enqueues < kEnqueueMisses;
  std::optional<protocol::Received> early;
  if (enqueue_first) {
    Send(r, protocol::MakeMessage(MsgType::kIter, serial, set));
    early = TryExpect(r, MsgType::kIterDone, kEnqueueWaitS, what);
    r.late_enqueues = early ? 0 : r.late_enqueues + 1;
  }
  r.be->Begin(seed, set, serial);
  try {
    if (!enqueue_first) Send(r, protocol::MakeMessage(MsgType::kIter, serial, set));
    const protocol::Received done =
        early ? std::move(*early)
              : Expect(r, MsgType::kIterDone, IterationLimit(), what,
                       "(a hang, or an iteration slower than that: workload.toml's [limits] iteration_s raises it)");
    if (done.msg.a != serial)
      Fail(protocol::kExitProtocol, "protocol",
           "candidate rank " + std::to_string(r.report.rank) + " answered iteration " + std::to_string(done.msg.a) +
               " when asked for " + std::to_string(serial));
    const std::string err = protocol::TextOf(done.msg);
    if (!err.empty()) Fail(protocol::kExitCandidate, "candidate", "cuco_candidate_run (" + phase + " iteration " +
                                                                      std::to_string(iteration) + "): " + err);
  } catch (const SupervisorError&) {
    r.be->Unblock();
    throw;
  }
  const double ms = r.be->End(set, serial, IterationLimit());
  // The window is closed: from here on the candidate's memory is only read through the snapshot.
  // Fresh poison now; anything that changes it before the next window opens is a late write.
  const uint64_t next = SecureU64();
  r.be->Poison(set, next);
  r.poison[set] = next;
  r.poisoned[set] = true;
  return ms;
}

CheckRecord Driver::Check(Rank& r, int iteration, const char* kind, uint64_t seed, const std::vector<int64_t>& rows,
                          const ScanFigures& scan, double ms) {
  const auto start = std::chrono::steady_clock::now();
  const CheckFigures figures = r.be->CheckSnapshot(seed, rows);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return CheckRecord{iteration, kind, seed, figures, scan, ms, seconds};
}

void Driver::StageVerify(Rank& r) {
  uint64_t last_seed = 0;
  for (int s = 0; s < output_sets_; ++s) {
    r.poison[s] = SecureU64();
    r.be->Poison(s, r.poison[s]);
    r.poisoned[s] = true;
  }
  for (int v = 0; v < args_.verify_runs; ++v) {
    const uint64_t seed = (v == 0 && args_.has_input_seed) ? args_.input_seed : seeds_[v];
    const uint64_t poison = r.poison[0];
    const double ms = Iterate(r, 0, seed, "verify", v);
    const ScanFigures scan = r.be->ScanSnapshot(poison);
    r.report.checks.push_back(Check(r, v, "verify", seed, {}, scan, ms));
    last_seed = seed;
  }
  r.be->KeepSnapshot();
  const int it = args_.verify_runs;
  const uint64_t poison = r.poison[1];
  const double ms = Iterate(r, 1, last_seed, "fresh_buffers", it);
  const ScanFigures scan = r.be->ScanSnapshot(poison);
  r.report.checks.push_back(Check(r, it, "fresh_buffers", last_seed, {}, scan, ms));
  r.report.agreement = r.be->AgreeWithKept();
  r.report.have_agreement = true;
}

void Driver::StageBench(Rank& r) {
  r.poison[0] = SecureU64();
  r.be->Poison(0, r.poison[0]);
  r.poisoned[0] = true;
  for (int w = 0; w < args_.warmup; ++w) r.report.warmup_ms.push_back(Iterate(r, 0, seeds_[w], "warmup", w));
  Mark(r, "warmed_up");
  // Every rank times the same count: sized after the warm-up (--timed-seconds) from the slowest
  // rank's pace, which each rank publishes before the barrier and reads after it.
  int iters = args_.iters;
  if (args_.timed_seconds > 0) {
    warmup_pace_ms_[r.report.rank] = WarmupPaceMs(r.report.warmup_ms);
    if (!barrier_.Wait()) Fail(protocol::kExitSupervisor, "aborted", "another rank failed");
    iters = SizedTimedIterations(warmup_pace_ms_, args_.timed_seconds, args_.iters, args_.max_iters);
  }
  r.report.sized_iters = iters;
  const int k = args_.timing_only
                    ? 0
                    : std::min({iters, kMaxTimedChecks,
                                std::max(2, static_cast<int>(std::ceil(args_.verify_fraction * iters - 1e-9)))});
  int remaining = k;
  const int64_t rows = r.be->OutputRows();
  for (int i = 0; i < iters; ++i) {
    const uint64_t seed = seeds_[args_.warmup + i];
    const uint64_t poison = r.poison[0];
    const double ms = Iterate(r, 0, seed, "timed", i);
    r.report.raw_ms.push_back(ms);
    const ScanFigures scan = r.be->ScanSnapshot(poison);
    r.report.scan_poison.push_back(scan.poison_left);
    r.report.scan_nonfinite.push_back(scan.nonfinite);
    r.report.scan_elements = scan.elements;
    r.report.scan_poison_expected = scan.poison_expected;
    // Whether this iteration is checked is drawn only now, after it ran.
    const bool verify = remaining > 0 &&
                        SecureBelow(static_cast<uint64_t>(iters - i)) < static_cast<uint64_t>(remaining);
    if (!verify) continue;
    --remaining;
    r.report.verified.push_back(i);
    std::vector<int64_t> sample;
    if (sample_rows_ < rows) {
      std::set<int64_t> chosen;
      while (static_cast<int64_t>(chosen.size()) < sample_rows_)
        chosen.insert(static_cast<int64_t>(SecureBelow(static_cast<uint64_t>(rows))));
      sample.assign(chosen.begin(), chosen.end());
    }
    r.report.checks.push_back(Check(r, i, "timed_sample", seed, sample, scan, ms));
  }
  r.report.bench_done = true;
}

void Driver::RankMain(Rank& r) {
  try {
    Mark(r, "candidate_started");
    Handshake(r);
    if (Aborted()) return;
    if (args_.stage == "verify") StageVerify(r);
    else StageBench(r);
    Mark(r, "iterations_done");
    for (int s = 0; s < output_sets_; ++s) CheckLate(r, s, r.last_phase, r.last_iteration);
    r.last_phase = "teardown";
    r.last_iteration = -1;
    Send(r, protocol::MakeMessage(MsgType::kTeardown));
    const protocol::Received bye = Expect(r, MsgType::kBye, args_.setup_limit_s, "cuco_candidate_teardown returning");
    Mark(r, "bye");
    const std::string err = protocol::TextOf(bye.msg);
    if (!err.empty()) Fail(protocol::kExitCandidate, "candidate", "cuco_candidate_teardown: " + err);
  } catch (const SupervisorError& e) {
    Record(e, r.report.rank);
  } catch (const std::exception& e) {
    Record(SupervisorError{protocol::kExitSupervisor, "supervisor", e.what()}, r.report.rank);
  }
}

int Driver::Run(const std::function<std::unique_ptr<RankBackend>()>& make_backend) {
  for (const auto& [name, value] : args_.sizes) {
    protocol::WireSize s{};
    if (name.size() >= sizeof s.name || sizes_.size() >= static_cast<size_t>(protocol::kMaxSizes))
      Fail(protocol::kExitUsage, "usage", "too many sizes, or a size name too long: " + name);
    std::memcpy(s.name, name.c_str(), name.size());
    s.value = value;
    sizes_.push_back(s);
  }
  if (auto it = args_.sizes.find("sample_rows"); it != args_.sizes.end()) sample_rows_ = it->second;
  if (sample_rows_ < 1) Fail(protocol::kExitUsage, "config", "size sample_rows must be >= 1");
  output_sets_ = args_.stage == "verify" ? 2 : 1;
  const int slots = args_.stage == "verify" ? args_.verify_runs
                                            : args_.warmup + std::max(args_.iters, args_.timed_seconds > 0 ? args_.max_iters : 0);
  seeds_ = DrawSeeds(slots);
  warmup_pace_ms_.assign(args_.world, 0);

  std::vector<Rank> ranks(args_.world);
  for (int i = 0; i < args_.world; ++i) {
    ranks[i].report.rank = i;
    ranks[i].be = make_backend();
  }
  // 1. Backends and the calibration, before any candidate process exists.
  {
    std::vector<std::thread> threads;
    for (auto& r : ranks)
      threads.emplace_back([&] {
        try {
          RankInit(r);
        } catch (const SupervisorError& e) {
          Record(e, r.report.rank);
          r.be->Unblock();  // no other rank's calibration waits for this one at the start line
        }
      });
    for (auto& t : threads) t.join();
  }
  // 2. The candidate, then one driver thread per rank.
  if (!Aborted()) {
    std::vector<std::string> logs;
    for (int i = 0; i < args_.world; ++i) logs.push_back(args_.log_dir + "/candidate-rank" + std::to_string(i) + ".log");
    std::vector<std::string> env = args_.candidate_env;
    const std::string err = candidate_.Start(args_.sandbox_argv, {args_.candidate}, args_.world, logs, env);
    if (!err.empty()) Record(SupervisorError{protocol::kExitSupervisor, "supervisor", "cannot start the candidate: " + err}, 0);
  }
  if (!Aborted()) {
    std::vector<std::thread> threads;
    for (auto& r : ranks) threads.emplace_back([&] { RankMain(r); });
    // A failing rank ends the candidate so that the other threads' waits end too.
    std::thread watcher([&] {
      while (true) {
        bool all_done;
        {
          std::lock_guard<std::mutex> lock(mu_);
          all_done = watcher_done_;
        }
        if (all_done) return;
        if (Aborted()) {
          candidate_.Kill();
          for (auto& r : ranks)
            if (r.report.initialized) r.be->Unblock();
          return;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
    });
    for (auto& t : threads) t.join();
    {
      std::lock_guard<std::mutex> lock(mu_);
      watcher_done_ = true;
    }
    watcher.join();
  }
  // 3. The candidate ends (it was told to, or is killed); then the last late-write scan and the
  // second calibration, with no candidate process left.
  const std::string ended = candidate_.WaitOrKill(Aborted() ? 0.5 : 10.0);
  Log("candidate processes ended: %s", ended.c_str());
  for (auto& r : ranks) Mark(r, "candidate_ended");
  if (!Aborted()) {
    // Told to tear down, every rank said goodbye: anything but a clean exit now is the candidate's.
    const int st = candidate_.first_abnormal_status();
    if (st != 0 && WIFEXITED(st) && WEXITSTATUS(st) == protocol::kSandboxLeftovers)
      Record(SupervisorError{protocol::kExitProtocol, "protocol",
                             "the candidate left processes running after its ranks exited (daemons or orphans; the "
                             "sandbox killed them)"},
             0);
    else if (st != 0 && (WIFSIGNALED(st) || (WIFEXITED(st) && WEXITSTATUS(st) > 128)))
      Record(SupervisorError{protocol::kExitCandidateCrashed, "candidate_crashed",
                             "a candidate rank crashed after teardown: " + ended +
                                 (WIFEXITED(st) ? " (the rank spawner's 128 + signal " +
                                                      std::to_string(WEXITSTATUS(st) - 128) + ")"
                                                : "")},
             0);
    else if (st != 0)
      Record(SupervisorError{protocol::kExitCandidateExited, "candidate_exited",
                             "the candidate's processes ended badly after teardown: " + ended},
             0);
  }
  {
    std::vector<std::thread> threads;  // every rank at once: the calibration crosses the start line
    for (auto& r : ranks)
      threads.emplace_back([&] {
        try {
          if (r.report.initialized) {
            for (int s = 0; s < output_sets_; ++s) CheckLate(r, s, "after_exit", -1);
            r.be->ReadDeviceState("after");  // every candidate process has ended
            if (args_.stage == "bench" && !Aborted()) Calibrate(r, &r.report.null_after);
            Mark(r, "after_checked");
          } else {
            barrier_.Abort();  // (only after a failure) nobody waits for a rank that never started
          }
        } catch (const SupervisorError& e) {
          Record(e, r.report.rank);
          r.be->Unblock();
        }
      });
    for (auto& t : threads) t.join();
  }
  std::optional<SupervisorError> error;
  {
    std::lock_guard<std::mutex> lock(mu_);
    error = error_;
  }
  for (const auto& r : ranks)
    WriteRankMetrics(args_, id_, r.report, r.report.initialized ? r.be.get() : nullptr, error, error_rank_, sample_rows_);
  return error.has_value() ? error->exit_code : protocol::kExitOk;
}

}  // namespace

int RunSupervisor(const Args& args, const SupervisorIdentity& id,
                  const std::function<std::unique_ptr<RankBackend>()>& make_backend) {
  Driver d(args, id);
  try {
    return d.Run(make_backend);
  } catch (const SupervisorError& e) {
    Log("error (%s): %s", e.kind.c_str(), e.message.c_str());
    return e.exit_code;
  }
}

}  // namespace cuco::supervisor
