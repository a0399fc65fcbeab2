// cuco/program/impl/reference_engine.h: the reference side's ranks. Every rank of the program is a
// thread of the supervisor, all on one GPU (the device current at the first call). Each thread runs
// the program's main up to serve(), where its binds are noted (the program's own buffer behind each
// bound variable, its size from the cudaMalloc that made it, and its contents then: the scale of
// fresh float inputs, the values of integer ones). RunAll(seed) then fills every rank's inputs for
// `seed`, runs one iteration on every rank at once (NCCL emulated between the threads:
// nccl_emulation.h) and keeps every rank's outputs in host memory; the device copies are zeroed.
// runtime/src/program/ (reference_check.cu, nccl_emulation.cu) include this too: what reads the
// program's macros or calls its entry (NoteBinder, the rank threads, EnsureStarted, serve) is
// compiled in the program's reference only, behind #ifndef CUCO_PROGRAM_RUNTIME_UNIT.
#pragma once

#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <pthread.h>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cuco/harness.h>
#include <cuco/impl/host_value.h>
#include <cuco/impl/random.h>
#include <cuco/program/impl/emulated_groups.h>
#include <cuco/program/impl/left_alone.h>
#include <cuco/program/impl/mailbox.h>
#include <cuco/program/impl/mpi_device.h>
#include <cuco/program/impl/output_digest.h>
#include <cuco/program/impl/projection.h>
#include <cuco/program/impl/rank_barrier.h>
#include <cuco/program/program.h>

namespace cuco_program::ref {

struct Stop : StopProgram {};  // ends a rank thread

struct Bound {
  std::string name;
  Role role = Role::kInput;
  void** slot = nullptr;  // null for host memory (host_*) and an accessor's storage, whose address no variable holds
  bool host = false;      // host memory (host_*): read and written with memcpy, filled through the GPU
  // The program's buffer the variable held at serve(): the variable is pointed back at it before
  // every iteration (a loop that swaps its pointers leaves them exchanged), and the reference's
  // inputs and outputs live there.
  void* buffer = nullptr;
  // bytes 0 with buffer null: the rank has no such buffer (the variable null at serve(): the first
  // rank's halo from a previous rank): nothing filled or compared there, the variable left null.
  size_t elem_bytes = 1, bytes = 0;
  Elem elem = Elem::kU8;
  std::vector<unsigned char> initial;  // the program's own contents at serve()
  double scale = 0;                    // fresh float inputs: uniform in [-scale, scale)
  // Floats that were all zero in the program at serve() (a cudaMemset, a fresh allocation): their
  // RMS gives no scale, and zeros would make every check of what they feed vacuous (a skipped
  // GEMM on zero weights still matches), so they are filled uniform in [-1, 1).
  bool zero_in_program = false;
  // Floats that held no finite value there (the program overflowed in its set-up or warm-up): filled
  // the same way, and said so where the program's output is then not finite.
  bool nonfinite_in_program = false;
};

struct Rank {
  std::thread thread;
  std::vector<Bound> bound;
  std::function<void(Binder&)> binds;
  std::function<void()> body;
  bool serving = false, ended = false;
  int64_t requested = 0, done = 0;
  std::string error;
  bool exited_in_iteration = false;  // the last run's error: the program's own check ended its pass
  bool ended_loop = false;           // a pass ended the program's loop (loop_ended), since cleared
};

struct Engine {
  std::mutex mu;  // the engine's state; one RunAll or fill at a time
  std::mutex state_mu;
  std::condition_variable cv;
  int world = 0, device = 0;
  bool started = false, ready = false, stopping = false;  // ready: every rank served or ended
  std::string error;
  std::string thread_error;  // a thread of the program that is none of the ranks reached the loop
  std::string refusal;       // the first call a shim refused (Refuse): why the program's check then failed
  std::vector<std::unique_ptr<Rank>> ranks;
  std::mutex alloc_mu;
  std::map<uintptr_t, size_t> allocations;  // cudaMalloc'd by the program: base -> bytes
  RankBarrier barrier;                      // host exchanges and collectives
  Mailbox mail;                             // MPI's point-to-point messages
  std::vector<const void*> slots;           // one per rank, for exchanges
  bool cached = false, determinism_checked = false;
  uint64_t cached_seed = 0;
  std::vector<std::vector<std::vector<unsigned char>>> outputs;  // [rank][output][bytes]
  // [rank][output][bytes]: the candidate's outputs as the last check read them (only the rows it
  // checked are current); kept so that no check allocates and faults in a whole output's memory.
  std::vector<std::vector<std::vector<unsigned char>>> candidate_outputs;
  std::set<std::string> unordered_outputs;  // compared without their order (output_order.h), by name
  // [rank][output]: the elements the iteration left alone on the cached seed (left_alone.h), found
  // on every seed while the first seed's run found any (probe_left_alone), on none after that.
  std::vector<std::vector<ElementRuns>> left_alone;
  bool probe_left_alone = true, left_alone_probed = false;
  std::vector<std::vector<std::vector<unsigned char>>> probe_outputs;  // the run from 0xFF bytes
  std::vector<FirstOutputs> first_outputs;  // [rank]: the first seed's outputs (output_digest.h)
  int64_t iterations = 0;
  cuco::Sizes sizes;  // the stage's sizes (size_or), as the first EnsureStarted got them
  // Float inputs are fresh (uniform at the program's own RMS) unless the program's own check ended
  // its first run on them: then they are its own state at the loop, scaled per seed (reference_check.cu,
  // DecideInputs), for the reference and every candidate alike.
  bool inputs_decided = false, own_state_inputs = false;
  std::string fresh_inputs_error;  // what the first run on fresh inputs ended with, then
};

inline Engine& E() {
  static Engine engine;
  return engine;
}

// A rank failed: no rank waits for it, in the world's barrier or a split's (emulated_groups.h).
inline void BreakBarriers(Engine& e) {
  e.barrier.Break();
  e.mail.Break();
  emu::AllGroups().BreakAll();
}

// After a run every rank ended with an error, none of them waiting: the barriers count again and
// no message of that run is left.
inline void MendBarriers(Engine& e) {
  e.barrier.Mend();
  e.mail.Reset();
  emu::AllGroups().MendAll();
}
inline thread_local int t_rank = -1;
constexpr double kWaitLimitS = 120;
constexpr int kSayEveryS = 20;

// Waits on E().cv (its state_mu held by `lock`) until `done()`, saying on stderr (the supervisor's
// log) every kSayEveryS seconds what for and which ranks `pending()` names, so that a program stuck
// in its own code (a barrier of its own, a call it waits on) shows where in the log of a stage that
// ends at its time limit (evaluate/stage_logs.h: the timeout's reason quotes the last such line).
template <class Done, class Pending>
void WaitSaying(std::unique_lock<std::mutex>& lock, const std::string& what, Done done, Pending pending) {
  for (int waited = kSayEveryS; !E().cv.wait_for(lock, std::chrono::seconds(kSayEveryS), done); waited += kSayEveryS)
    std::fprintf(stderr, "cuco reference: %s: still waiting for rank(s) %s after %d s\n", what.c_str(),
                 pending().c_str(), waited);
}

// The ranks, among e.ranks, for which `waiting(rank)` holds: "0, 2".
template <class Waiting>
std::string RanksWhere(Waiting waiting) {
  std::string out;
  for (size_t q = 0; q < E().ranks.size(); ++q)
    if (waiting(*E().ranks[q])) out += (out.empty() ? "" : ", ") + std::to_string(q);
  return out;
}

inline size_t AllocationBytes(const void* p) {
  Engine& e = E();
  std::lock_guard<std::mutex> lock(e.alloc_mu);
  return proj::BytesFrom(e.allocations, reinterpret_cast<uintptr_t>(p));
}

inline cuco_frozen::DType DTypeOf(Elem e) {
  switch (e) {
    case Elem::kF32: return cuco_frozen::DType::kF32;
    case Elem::kF64: return cuco_frozen::DType::kF64;
    case Elem::kF16: return cuco_frozen::DType::kF16;
    case Elem::kBF16: return cuco_frozen::DType::kBF16;
    case Elem::kI32: return cuco_frozen::DType::kI32;
    case Elem::kI64: return cuco_frozen::DType::kI64;
    default: return cuco_frozen::DType::kU8;
  }
}

inline double ElementValue(const unsigned char* p, Elem t) { return cuco_frozen::HostValue(p, DTypeOf(t)); }
inline bool IsFloat(Elem t) { return t == Elem::kF32 || t == Elem::kF64 || t == Elem::kF16 || t == Elem::kBF16; }
// How far (relative L2) two runs of the program on the same inputs may differ in an output of type
// `t` and still be one answer: a tenth of the check tolerance cuco init writes for that type
// (src/scaffold/harness_toml.cc), room for a float sum whose order atomics change between runs;
// integers exactly.
inline double RunsTolerance(Elem t) {
  switch (t) {
    case Elem::kF32: return 1e-5;
    case Elem::kF64: return 1e-10;
    case Elem::kF16: return 5e-4;
    case Elem::kBF16: return 1e-3;
    default: return 0;
  }
}

#ifndef CUCO_PROGRAM_RUNTIME_UNIT
// Notes the program's buffers at serve().
class NoteBinder : public Binder {
 public:
  NoteBinder(Rank& r, std::string* error) : r_(r), error_(error) {}

 protected:
  void Bind(const char* name, Role role, void** slot, size_t elem_bytes, Elem elem) override {
    Bound b;
    b.name = name;
    b.role = role;
    b.slot = host_ || unnamed_ ? nullptr : slot;
    b.host = host_;
    b.elem_bytes = elem == Elem::kOther ? 1 : elem_bytes;
    b.elem = elem == Elem::kOther ? Elem::kU8 : elem;
    b.buffer = *slot;
    b.bytes = *slot == nullptr ? 0 : host_ ? host_bytes_ : AllocationBytes(*slot);
    // A program driving every GPU may give a buffer to some GPUs only (projection.h): the
    // other ranks get one of the same size once every rank has bound (GiveMissingBuffers).
    if (b.bytes == 0 && *slot != nullptr && error_->empty() && !proj::kProjected)
      *error_ = std::string("the program's buffer '") + name +
                "' (bound at its timed loop) was not made by cudaMalloc before the loop, so its size is unknown";
    b.initial.resize(b.bytes);
    if (b.bytes && b.host) std::memcpy(b.initial.data(), *slot, b.bytes);
    if (b.bytes && !b.host && cudaMemcpy(b.initial.data(), *slot, b.bytes, cudaMemcpyDeviceToHost) != cudaSuccess && error_->empty())
      *error_ = std::string("reading the program's buffer '") + name + "' failed";
    if (IsFloat(b.elem)) {
      double sum = 0;
      size_t finite = 0;
      const size_t n = b.bytes / b.elem_bytes;
      for (size_t i = 0; i < n; ++i) {
        const double v = ElementValue(b.initial.data() + i * b.elem_bytes, b.elem);
        if (std::isfinite(v)) sum += v * v, ++finite;
      }
      const double rms = n ? std::sqrt(sum / static_cast<double>(n)) : 0;
      b.scale = rms * std::sqrt(3.0);  // uniform(-s, s) has the program's own RMS
      if (n && b.scale == 0 && b.role != Role::kOutput) {
        b.scale = 1.0;
        (finite == 0 ? b.nonfinite_in_program : b.zero_in_program) = true;
        if (t_rank == 0)
          std::fprintf(stderr,
                       "cuco reference: the input '%s' holds %s in the program at its timed loop: it is "
                       "filled uniform in [-1, 1) (its own scale would make every check of what it feeds vacuous)\n",
                       name, finite == 0 ? "no finite value (it overflowed before)" : "only zeros");
      }
    }
    r_.bound.push_back(std::move(b));
  }

 private:
  Rank& r_;
  std::string* error_;
};

#endif  // CUCO_PROGRAM_RUNTIME_UNIT

// A call of the program the reference cannot serve: said on stderr, and kept so that the error the
// program's own check then makes (exit(1) after a failed NCCLCHECK) names it.
inline void Refuse(const std::string& why) {
  std::fprintf(stderr, "cuco reference: %s\n", why.c_str());
  std::lock_guard<std::mutex> lock(E().state_mu);
  if (E().refusal.empty()) E().refusal = why;
}

#ifndef CUCO_PROGRAM_RUNTIME_UNIT
inline void RankThread(int q) {
  Engine& e = E();
  t_rank = q;
  cudaSetDevice(e.device);
  std::string error = RunProgramMain(&cuco_program_entry, " on rank " + std::to_string(q), "reaching its timed loop");
  if (!error.empty()) BreakBarriers(e);
  std::lock_guard<std::mutex> lock(e.state_mu);
  if (!error.empty() && !e.refusal.empty()) error += " (after cuco refused a call: " + e.refusal + ")";
  Rank& r = *e.ranks[static_cast<size_t>(q)];
  if (!error.empty() && r.error.empty()) r.error = error;
  r.ended = true;
  e.cv.notify_all();
}

// A program running a thread per GPU, run once as it runs itself (proj::kThreads): main on this
// thread (rank 0's until a thread selects its GPU, reference_shims.h SetDevice), each thread it starts
// the rank of the GPU it selects. An end before every thread reached the timed loop fails them all.
inline void DriverThread() {
  Engine& e = E();
  t_rank = 0;
  cudaSetDevice(e.device);
  const std::string error = RunProgramMain(&cuco_program_entry, "", "every thread reached its timed loop");
  if (!error.empty()) BreakBarriers(e);
  std::lock_guard<std::mutex> lock(e.state_mu);
  for (auto& r : e.ranks)
    if (!r->serving) {
      if (!error.empty() && r->error.empty()) r->error = error;
      r->ended = true;
    }
  e.cv.notify_all();
}

#endif  // CUCO_PROGRAM_RUNTIME_UNIT

// After every rank bound (projected programs): a buffer some ranks did not make (bytes 0) is made
// for them, zeroed, at the size of the largest rank's, with its element scale. "" or the reason.
inline std::string GiveMissingBuffers() {
  Engine& e = E();
  const size_t n = e.ranks.empty() ? 0 : e.ranks[0]->bound.size();
  for (size_t j = 0; j < n; ++j) {
    const Bound* widest = nullptr;
    for (auto& r : e.ranks)
      if (widest == nullptr || r->bound[j].bytes > widest->bytes) widest = &r->bound[j];
    bool none = true;  // every rank's variable null: a buffer no rank has (one rank's halos)
    for (auto& r : e.ranks) none = none && r->bound[j].buffer == nullptr;
    if (none || widest->host) continue;  // host memory: a rank with an empty one has none
    if (widest->bytes == 0)
      return "the program's buffer '" + widest->name +
             "' (bound at its timed loop) was not made by cudaMalloc before the loop on any rank, so its size is unknown";
    for (auto& r : e.ranks) {
      Bound& b = r->bound[j];
      if (b.bytes != 0) continue;
      void* p = nullptr;
      if (::cudaMalloc(&p, widest->bytes) != cudaSuccess || cudaMemset(p, 0, widest->bytes) != cudaSuccess)
        return "making the buffer '" + b.name + "' for a rank that has none failed";
      {
        std::lock_guard<std::mutex> lock(e.alloc_mu);
        e.allocations[reinterpret_cast<uintptr_t>(p)] = widest->bytes;
      }
      *b.slot = b.buffer = p;
      b.bytes = widest->bytes;
      b.initial.assign(b.bytes, 0);
      b.scale = widest->scale;
      b.zero_in_program = widest->zero_in_program;
      b.nonfinite_in_program = widest->nonfinite_in_program;
    }
  }
  return "";
}

// The first error of any rank ("" when none).
inline std::string FirstError() {
  if (!E().thread_error.empty()) return E().thread_error;
  for (auto& r : E().ranks)
    if (!r->error.empty()) return r->error;
  return "";
}

#ifndef CUCO_PROGRAM_RUNTIME_UNIT
// Starts the rank threads once; every later call must give the same world (and sizes).
inline cuco::Status EnsureStarted(int world, const cuco::Sizes& sizes) {
  Engine& e = E();
  std::unique_lock<std::mutex> lock(e.state_mu);
  if (e.started) {  // started by another of the supervisor's threads: wait until its ranks are ready
    if (world != e.world)
      return cuco::Status::Error("the reference runs " + std::to_string(e.world) + " ranks, not " + std::to_string(world));
    e.cv.wait(lock, [&] { return e.ready; });
    return e.error.empty() ? cuco::Status::Ok() : cuco::Status::Error(e.error);
  }
  e.started = true;
  e.world = world;
  e.sizes = sizes;
  cudaGetDevice(&e.device);
  e.barrier.Reset(world);
  e.mail.Reset();
  e.slots.assign(static_cast<size_t>(world), nullptr);
  for (int q = 0; q < world; ++q) e.ranks.push_back(std::make_unique<Rank>());
  if (proj::kThreads)
    e.ranks[0]->thread = std::thread(DriverThread);
  else
    for (int q = 0; q < world; ++q) e.ranks[static_cast<size_t>(q)]->thread = std::thread(RankThread, q);
  auto setting_up = [](const Rank& r) { return !r.serving && !r.ended; };
  WaitSaying(
      lock, "the program's set-up, up to its timed loop",
      [&] { return RanksWhere(setting_up).empty(); }, [&] { return RanksWhere(setting_up); });
  e.error = FirstError();
  if (e.error.empty())
    for (auto& r : e.ranks)
      if (r->bound.size() != e.ranks[0]->bound.size()) e.error = "the ranks bound different buffers at the timed loop";
  if (e.error.empty() && proj::kProjected) e.error = GiveMissingBuffers();
  if (!e.error.empty()) e.error = "the program, run as the reference: " + e.error;
  e.ready = true;
  e.cv.notify_all();
  return e.error.empty() ? cuco::Status::Ok() : cuco::Status::Error(e.error);
}

#endif  // CUCO_PROGRAM_RUNTIME_UNIT

}  // namespace cuco_program::ref

namespace cuco_program {

#ifndef CUCO_PROGRAM_RUNTIME_UNIT
inline void serve(const std::function<void(Binder&)>& binds, const std::function<void()>& body) {
  using namespace ref;
  Engine& e = E();
  if (t_rank < 0 || t_rank >= e.world) {  // a thread the program started some way cuco does not follow
    {
      std::lock_guard<std::mutex> lock(e.state_mu);
      if (e.thread_error.empty())
        e.thread_error = "the program reached its timed loop on a thread that is none of its ranks (one it started "
                         "some way cuco init did not see; cuco follows std::thread, its emplace_back and pthread_create)";
    }
    BreakBarriers(e);
    e.cv.notify_all();
    // Only this thread ends (its destructors run): an exception would leave the program's thread
    // function uncaught, and std::terminate would take the supervisor down with it.
    pthread_exit(nullptr);
  }
  Rank& r = *e.ranks[static_cast<size_t>(t_rank)];
  if (proj::kThreads) {  // each thread is its GPU's rank: two on one GPU cannot both be it
    std::lock_guard<std::mutex> lock(e.state_mu);
    if (r.serving || !r.bound.empty())
      throw std::runtime_error("two of the program's threads reached the timed loop on GPU " + std::to_string(t_rank));
  }
  std::string error;
  if (const cudaError_t c = cudaDeviceSynchronize(); c != cudaSuccess)
    error = std::string("the program's set-up failed on the GPU: ") + cudaGetErrorString(c);
  NoteBinder note(r, &error);
  binds(note);
  std::unique_lock<std::mutex> lock(e.state_mu);
  r.binds = binds;
  r.body = body;
  r.error = error;
  r.serving = error.empty();
  r.ended = !error.empty();
  e.cv.notify_all();
  if (!error.empty()) throw Stop{};
  for (;;) {
    e.cv.wait(lock, [&] { return r.requested > r.done || e.stopping; });
    if (e.stopping) throw Stop{};
    for (Bound& b : r.bound)
      if (b.slot != nullptr) *b.slot = b.buffer;
    lock.unlock();
    std::string err;
    bool exited = false;
    try {
      body();
      const cudaError_t c = cudaDeviceSynchronize();
      if (c != cudaSuccess) err = std::string("the iteration failed on the GPU: ") + cudaGetErrorString(c);
    } catch (const Stop&) {
      throw;
    } catch (const ProgramExit& x) {
      err = "the iteration called " + x.call() + " (the program's own error check)";
      exited = true;
    } catch (const std::exception& ex) {
      err = std::string("the iteration threw: ") + ex.what();
    } catch (...) {
      err = "the iteration threw an exception";
    }
    if (!err.empty()) BreakBarriers(e);
    lock.lock();
    if (!err.empty() && r.error.empty()) r.error = err + " (rank " + std::to_string(t_rank) + ")";
    r.exited_in_iteration = r.exited_in_iteration || exited;
    r.done = r.requested;
    e.cv.notify_all();
  }
}

#endif  // CUCO_PROGRAM_RUNTIME_UNIT

inline bool program_stopping() {
  ref::Engine& e = ref::E();
  std::lock_guard<std::mutex> lock(e.state_mu);
  return e.stopping;
}
inline void loop_ended() {
  ref::Engine& e = ref::E();
  std::lock_guard<std::mutex> lock(e.state_mu);
  if (ref::t_rank >= 0 && ref::t_rank < static_cast<int>(e.ranks.size())) e.ranks[static_cast<size_t>(ref::t_rank)]->ended_loop = true;
}
inline intptr_t thread_rank_token() { return ref::t_rank; }
inline void thread_failed(const std::string& what) {
  ref::Engine& e = ref::E();
  BreakBarriers(e);
  std::lock_guard<std::mutex> lock(e.state_mu);
  const int q = ref::t_rank >= 0 && ref::t_rank < e.world ? ref::t_rank : 0;
  if (q >= static_cast<int>(e.ranks.size())) return;
  ref::Rank& r = *e.ranks[static_cast<size_t>(q)];
  if (r.error.empty()) r.error = what + " (rank " + std::to_string(q) + ")";
  r.ended = true;
  e.cv.notify_all();
}
inline void enter_thread_rank(intptr_t token) { ref::t_rank = static_cast<int>(token); }

inline int64_t iteration() { return ref::E().iterations; }
inline int64_t size_or(const char* name, int64_t fallback) { return ref::E().sizes.get_or(name, fallback); }
inline int rank() { return ref::t_rank; }
inline int world() { return ref::E().world; }

// Between the rank threads: every rank's bytes, in rank order.
inline void host_allgather(const void* send, void* recv, size_t bytes) {
  ref::Engine& e = ref::E();
  e.slots[static_cast<size_t>(ref::t_rank)] = send;
  bool ok = e.barrier.ArriveAndWait(ref::kWaitLimitS);
  if (ok)
    for (int q = 0; q < e.world; ++q)
      std::memcpy(static_cast<unsigned char*>(recv) + bytes * static_cast<size_t>(q), e.slots[static_cast<size_t>(q)], bytes);
  ok = ok && e.barrier.ArriveAndWait(ref::kWaitLimitS);
  if (!ok) throw std::runtime_error("an MPI exchange waited " + std::to_string(ref::kWaitLimitS) + " s for the other ranks");
}

// MPI's messages between the rank threads (impl/mailbox.h), device memory staged through the host
// with the synchronous cudaMemcpy (the program orders its streams before the call, as CUDA-aware
// MPI asks). A refusal is the rank's failure, thrown as host_allgather's is.
inline int p2p_send(const void* data, size_t bytes, int to, int tag, bool) {
  mpi::Staged host(data, bytes, true, false);  // device memory: a host copy (impl/mpi_device.h)
  if (!host.ok()) throw std::runtime_error("an MPI send could not read its device buffer");
  ref::E().mail.Send(ref::t_rank, to, tag, host.get(), bytes);
  return 0;
}
inline int p2p_receive(const P2pReceive* receives, int n) {
  for (int i = 0; i < n; ++i) {
    const P2pReceive& r = receives[i];
    const bool device = mpi::OnDevice(r.data);
    std::vector<unsigned char> staged(device ? r.bytes : 0);
    void* into = device ? staged.data() : r.data;
    const std::string why = ref::E().mail.Receive(r.from, ref::t_rank, r.tag, into, r.bytes, ref::kWaitLimitS);
    if (!why.empty()) throw std::runtime_error("MPI: " + why);
    if (device && cudaMemcpy(r.data, into, r.bytes, cudaMemcpyHostToDevice) != cudaSuccess)
      throw std::runtime_error("an MPI receive could not write its device buffer");
  }
  return 0;
}
inline int p2p_flush() { return 0; }
// The reference's rank threads exchange every MPI collective through host memory (program.h).
inline int mpi_on_device(const MpiCollective&, const char*) { return -1; }

}  // namespace cuco_program
