// runtime/src/program/candidate_side.cu: cuco/program/impl/candidate_side.h, the candidate side's
// program thread, iteration loop and harness functions, linked into every CUDA harness's candidate
// (a cuco runtime unit: compiled once, nothing here depends on the program's own macros; a candidate
// whose workload is not a program links it unused).
#define CUCO_PROGRAM_RUNTIME_UNIT 1

#include <cuco/program/impl/candidate_side.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <thread>
#include <vector>

#include <cuda_runtime.h>
#include <nccl.h>

#include <cuco/program/impl/iteration_graph.h>

namespace cuco_program {
namespace candidate_detail {
namespace {

// Points the bound variables at the harness's buffers of this iteration; key() is what it handed out.
// A *_copy bind leaves the variable on the program's buffer: its input is copied in now, and its
// output out by CopyOut() once the iteration's work is queued.
class IoBinder : public Binder {
 public:
  IoBinder(const cuco::IO& io, cuco::RankContext& ctx, std::string* error) : io_(io), ctx_(ctx), error_(error) {}
  const std::vector<void*>& key() const { return key_; }
  // Before the body: every stream the program made (`streams` side streams) waits for what the binds
  // queued on ctx.stream (a *_copy input copied in, an inout's input copied to its output), as
  // CopyOut joins them after. The harness orders the side streams after the iteration's start only,
  // which comes before these copies: a loop whose work is on a stream other than the program's first
  // (a helper made streams earlier) would read and write the bound buffers while they are copied.
  void JoinIn(int streams) {
    if (!queued_) return;
    Side& s = S();
    cudaError_t e = cudaSuccess;
    // Host memory bound by copy (host_*, pinned memory) is read and written by the program's host
    // code, which no stream orders: its copies are done before the body starts.
    if (host_copies_) e = ::cudaStreamSynchronize(ctx_.stream);
    if (e == cudaSuccess && s.binds_done == nullptr) e = ::cudaEventCreateWithFlags(&s.binds_done, cudaEventDisableTiming);
    if (e == cudaSuccess) e = ::cudaEventRecord(s.binds_done, ctx_.stream);
    for (int i = 0; e == cudaSuccess && i < streams && i < cuco::RankContext::kMaxSideStreams; ++i)
      e = ::cudaStreamWaitEvent(ctx_.side_stream(i), s.binds_done, 0);
    if (e != cudaSuccess && error_->empty())
      *error_ = std::string("ordering the program's streams after its inputs: ") + cudaGetErrorString(e);
  }
  // After the iteration: the copied outputs into the harness's buffers, on ctx.stream once every
  // stream the program made has joined it (`streams`: how many side streams it made).
  void CopyOut(int streams) {
    if (copies_.empty()) return;
    Side& s = S();
    for (int i = 0; i < streams && i < cuco::RankContext::kMaxSideStreams; ++i) {
      if (s.join_events[i] == nullptr) ::cudaEventCreateWithFlags(&s.join_events[i], cudaEventDisableTiming);
      ::cudaEventRecord(s.join_events[i], ctx_.side_stream(i));
      ::cudaStreamWaitEvent(ctx_.stream, s.join_events[i], 0);
    }
    for (const auto& c : copies_) Copy(c.dst, c.src, c.bytes, c.name);
  }

 protected:
  void Bind(const char* name, Role role, void** slot, size_t, Elem) override {
    // A buffer this rank does not have (the reference's variable was null: no halo from a previous
    // rank): the program's own variable is left as it is.
    if ((role == Role::kOutput ? io_.out(name) : io_.in(name)).bytes == 0) {
      key_.push_back(*slot);
      return;
    }
    if (by_copy_) {
      const cuco::Buffer* in = role == Role::kOutput ? nullptr : &io_.in(name);
      const cuco::Buffer* out =
          role == Role::kInput ? nullptr : &io_.out(role == Role::kInOut ? (std::string(name) + "_out").c_str() : name);
      // Host memory: at most its own bytes (the harness's buffer is the reference's size of it).
      auto fits = [&](size_t bytes) { return host_ && host_bytes_ < bytes ? host_bytes_ : bytes; };
      if (in != nullptr) Copy(*slot, in->ptr, fits(in->bytes), name);
      // An output starts as the harness's buffer holds it (its poison before a checked iteration),
      // as it would bound by pointer: what the iteration leaves unwritten is not a stale result.
      if (role == Role::kOutput) Copy(*slot, out->ptr, fits(out->bytes), name);
      if (out != nullptr) copies_.push_back({out->ptr, *slot, fits(out->bytes), name});
      host_copies_ = host_copies_ || host_;
      key_.push_back(*slot);
      return;
    }
    if (role == Role::kInput) {
      *slot = io_.in(name).ptr;
    } else if (role == Role::kOutput) {
      *slot = io_.out(name).ptr;
    } else {
      const cuco::Buffer& in = io_.in(name);
      const cuco::Buffer& out = io_.out((std::string(name) + "_out").c_str());
      const cudaError_t e = cudaMemcpyAsync(out.ptr, in.ptr, in.bytes < out.bytes ? in.bytes : out.bytes,
                                            cudaMemcpyDeviceToDevice, ctx_.stream);
      if (e != cudaSuccess && error_->empty()) *error_ = std::string("copying input ") + name + ": " + cudaGetErrorString(e);
      queued_ = true;
      *slot = out.ptr;
    }
    key_.push_back(*slot);
  }

 private:
  struct Pending {
    void* dst;
    const void* src;
    size_t bytes;
    std::string name;
  };
  void Copy(void* dst, const void* src, size_t bytes, const std::string& name) {
    // cudaMemcpyDefault: a host_* bind's side is the program's host memory.
    const cudaError_t e = cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, ctx_.stream);
    if (e != cudaSuccess && error_->empty()) *error_ = "copying " + name + ": " + cudaGetErrorString(e);
    queued_ = true;
  }
  std::vector<Pending> copies_;
  bool queued_ = false;  // the binds queued work on ctx.stream (JoinIn)
  bool host_copies_ = false;  // some of it copies into host memory (JoinIn waits for it)
  std::vector<void*> key_;
  const cuco::IO& io_;
  cuco::RankContext& ctx_;
  std::string* error_;
};

// The side streams the program has made so far (its streams after the first: ctx.side_stream(0, 1, ...)).
int SideStreamsMade(const Side& s) { return std::min(std::max(s.streams_made - 1, 0), cuco::RankContext::kMaxSideStreams); }

void ProgramThread(int (*entry)(int, char**)) {
  Side& s = S();
  cudaSetDevice(s.ctx->device);
  const std::string error = RunProgramMain(entry, "", "reaching its timed loop");
  std::lock_guard<std::mutex> lock(s.mu);
  if (!error.empty() && s.error.empty()) s.error = error;
  s.ended = true;
  s.cv.notify_all();
}

// The own thread's body, run with the other GPUs' threads mirroring it (a thread per GPU), or alone.
void MirroredBody() {
  Side& s = S();
  std::unique_lock<std::mutex> lock(s.mu);
  const int64_t run = ++s.body_runs;
  s.cv.notify_all();
  lock.unlock();
  s.body();
  lock.lock();
  s.cv.wait(lock, [&] { return s.mirror_runs >= run * s.mirrors || s.stop_requested; });
}

}  // namespace

void MirrorRuns(std::unique_lock<std::mutex>& lock, const std::function<void()>& body) {
  Side& s = S();
  ++s.mirrors;
  int64_t done = 0;  // from the first run: a thread still in its set-up when the first run began catches up
  for (;;) {
    s.cv.wait(lock, [&] { return s.body_runs > done || s.stop_requested; });
    if (s.stop_requested) return;
    ++done;
    lock.unlock();
    try {
      body();
    } catch (const StopProgram&) {
      lock.lock();
      throw;
    } catch (...) {
    }
    lock.lock();
    ++s.mirror_runs;
    s.cv.notify_all();
  }
}

void Serve(const std::function<void(Binder&)>& binds, const std::function<void()>& iteration_body) {
  Side& s = S();
  std::unique_lock<std::mutex> lock(s.mu);
  s.binds = binds;
  s.body = iteration_body;
  s.serving = true;
  s.cv.notify_all();
  for (;;) {
    s.cv.wait(lock, [&] { return s.run_requested || s.stop_requested; });
    if (s.stop_requested) throw Stop{};
    s.run_requested = false;
    lock.unlock();
    std::string error;
    if (s.setup_events < 0) s.setup_streams = s.streams_made, s.setup_events = s.events_made;
    s.streams_made = s.setup_streams, s.events_made = s.setup_events;
    try {
      IoBinder b(*s.io, *s.ctx, &error);
      s.binds(b);
      b.JoinIn(SideStreamsMade(s));
      const GraphKnob& graph = Graph();
      if (error.empty() && !graph.unknown().empty())
        error = "graph knob: unknown value \"" + graph.unknown() + "\" (the values are \"off\" and \"on\")";
      s.iterating = error.empty();
      if (s.iterating && graph.on())  // the program's streams after the first are ctx.side_stream(0, 1, ...)
        error = s.graphs.Run(b.key(), *s.ctx, SideStreamsMade(s), s.events_made, MirroredBody);
      else if (s.iterating)
        MirroredBody();
      // MPI's sends still waiting (MPI_Send at the body's end): the receiver's iteration waits for them.
      if (s.iterating && p2p_flush() != 0) error = "the iteration's MPI sends failed (said above)";
      if (s.iterating) b.CopyOut(SideStreamsMade(s));
    } catch (const Stop&) {
      throw;
    } catch (const ProgramExit& x) {
      error = "the iteration called " + x.call() + " (the program's own error check)" + s.graphs.TakeInterruptedCapture();
    } catch (const std::exception& e) {
      error = std::string("the iteration threw: ") + e.what();
    } catch (...) {
      error = "the iteration threw an exception";
    }
    s.iterating = false;
    lock.lock();
    s.error = error;
    ++s.iteration;
    s.run_done = true;
    s.cv.notify_all();
  }
}

cuco::Status Setup(cuco::RankContext& ctx, const cuco::Sizes& sizes, void** state, int (*entry)(int, char**)) {
  Side& s = S();
  s.ctx = &ctx;
  s.sizes = sizes;
  *state = &s;
  // A program that reads its rank from the environment (torchrun, Open MPI, Slurm) finds the harness's.
  const std::string r = std::to_string(ctx.rank), w = std::to_string(ctx.world_size);
  const std::string lr = std::to_string(ctx.local_rank), lw = std::to_string(ctx.local_world_size);
  for (const char* k : {"RANK", "OMPI_COMM_WORLD_RANK", "PMI_RANK", "SLURM_PROCID"}) setenv(k, r.c_str(), 1);
  for (const char* k : {"WORLD_SIZE", "OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_NTASKS"}) setenv(k, w.c_str(), 1);
  for (const char* k : {"LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_RANK", "SLURM_LOCALID"}) setenv(k, lr.c_str(), 1);
  for (const char* k : {"LOCAL_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_SIZE"}) setenv(k, lw.c_str(), 1);
  // Where a torchrun-style program meets (every rank alike; the ranks' sandbox has its own network).
  setenv("MASTER_ADDR", "127.0.0.1", 0);
  setenv("MASTER_PORT", "29500", 0);
  s.thread = std::thread(ProgramThread, entry);
  std::unique_lock<std::mutex> lock(s.mu);
  s.cv.wait(lock, [&] { return s.serving || s.ended; });
  if (!s.serving) return cuco::Status::Error("program setup: " + s.error);
  return cuco::Status::Ok();
}

cuco::Status Run(void* state, const cuco::IO& io) {
  auto& s = *static_cast<Side*>(state);
  std::unique_lock<std::mutex> lock(s.mu);
  s.io = &io;
  s.run_done = false;
  s.run_requested = true;
  s.cv.notify_all();
  s.cv.wait(lock, [&] { return s.run_done || s.ended; });
  if (!s.run_done) return cuco::Status::Error("the program's thread ended: " + s.error);
  if (!s.error.empty()) return cuco::Status::Error(s.error);
  return cuco::Status::Ok();
}

void Teardown(void* state) {
  auto& s = *static_cast<Side*>(state);
  {
    std::lock_guard<std::mutex> lock(s.mu);
    s.stop_requested = true;
    s.cv.notify_all();
  }
  if (s.thread.joinable()) s.thread.join();
  s.graphs.Clear();
  s.program_graphs.DestroyAll();
}

}  // namespace candidate_detail

void loop_ended() {}  // the candidate's passes: what its loop would do is the reference's to tell

bool program_stopping() {
  candidate_detail::Side& s = candidate_detail::S();
  std::lock_guard<std::mutex> lock(s.mu);
  return s.stop_requested;
}

// Over ctx.comm: a real exchange between the candidate's ranks.
void host_allgather(const void* send, void* recv, size_t bytes) {
  cuco::RankContext& ctx = *candidate_detail::S().ctx;
  if (bytes == 0) return;
  bool ok = p2p_flush() == 0;  // MPI's waiting sends first: a rank may wait for them before it comes here
  unsigned char* d = nullptr;
  const size_t total = bytes * static_cast<size_t>(ctx.world_size);
  ok = ok && cudaMalloc(&d, total) == cudaSuccess;
  ok = ok && cudaMemcpy(d + bytes * ctx.rank, send, bytes, cudaMemcpyHostToDevice) == cudaSuccess;
  ok = ok && ncclAllGather(d + bytes * ctx.rank, d, bytes, ncclUint8, ctx.comm, ctx.stream) == ncclSuccess;
  ok = ok && cudaStreamSynchronize(ctx.stream) == cudaSuccess;
  ok = ok && cudaMemcpy(recv, d, total, cudaMemcpyDeviceToHost) == cudaSuccess;
  if (d != nullptr) cudaFree(d);
  if (!ok) {
    std::fprintf(stderr, "cuco: an MPI call of the program failed (its exchange over the harness's communicator)\n");
    std::fflush(stderr);
    std::exit(1);
  }
}

}  // namespace cuco_program
