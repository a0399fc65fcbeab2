// cuco/program/program.h: a user's host-driven CUDA+NCCL program run as a harness-mode workload.
//
// `cuco init` writes such a workload from the program's own files (docs/your-own-program.md). Its
// seed.cu and reference.cu are the program's files put one after the other, with three rewrites:
//   - `int main(...)` is renamed cuco_program_main and gets an entry point, cuco_program_entry;
//   - `#include <mpi.h>` becomes `#include <cuco/program/mpi.h>` (MPI calls answered by cuco);
//   - the program's timed loop becomes
//         cuco_program::serve([&](cuco_program::Binder& b) { b.input("x", x); b.output("y", y); },
//                             [&]() { <the loop's body> });
//     so main runs once up to there (its bootstrap, allocations, own initialisation and warm-up:
//     the harness's setup), then every harness iteration runs the body once. The binds name the
//     iteration's inputs and outputs by the program's own variables.
// Two sides implement this header, each in a header of its own:
//   candidate.h (seed.cu and every candidate): one rank per process; the program's communicator is
//     ctx.comm, its streams and events are ctx.stream, ctx.side_stream(i) and the harness's events,
//     and before each iteration the binds point the program's variables at the harness's buffers;
//   reference.h (reference.cu, in the supervisor; never linked with candidate code): every rank is
//     a thread of the supervisor on one GPU, NCCL is emulated between those threads, and the
//     program's own buffers hold the reference's inputs and outputs.
// A program that drives every GPU from one process (ncclCommInitAll, ncclCommInitRank in a group)
// runs on both sides once per rank, each rank doing only its own GPU's part (impl/projection.h).
// Threads: the program runs on a thread of its own (one per rank); every function below is called
// from such a thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <cstdio>
#include <string>
#include <thread>
#include <pthread.h>
#include <type_traits>
#include <utility>
#include <vector>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cuco/program/impl/pinned_host.h>

namespace cuco_program {

// What a bound buffer holds, for filling inputs and comparing outputs.
enum class Elem : int { kF32 = 0, kF64, kF16, kBF16, kI32, kI64, kU8, kOther };

template <class T>
constexpr Elem ElemOf() {
  using U = std::remove_cv_t<T>;
  if constexpr (std::is_same_v<U, float>) return Elem::kF32;
  else if constexpr (std::is_same_v<U, double>) return Elem::kF64;
  else if constexpr (std::is_same_v<U, __half>) return Elem::kF16;
  else if constexpr (std::is_same_v<U, __nv_bfloat16>) return Elem::kBF16;
  else if constexpr (std::is_integral_v<U> && sizeof(U) == 4) return Elem::kI32;
  else if constexpr (std::is_integral_v<U> && sizeof(U) == 8) return Elem::kI64;
  else if constexpr (std::is_integral_v<U> && sizeof(U) == 1) return Elem::kU8;
  else return Elem::kOther;
}

enum class Role : int { kInput = 0, kOutput, kInOut };

// The binds of serve(): each names one of the program's device pointers. Each side decides what a
// bind does (point the variable at a harness buffer; note the program's own buffer).
class Binder {
 public:
  virtual ~Binder() = default;
  template <class T>
  void input(const char* name, T*& var) { Typed(name, Role::kInput, Slot(var), sizeof(Pointee<T>), ElemOf<T>()); }
  template <class T>
  void output(const char* name, T*& var) { Typed(name, Role::kOutput, Slot(var), sizeof(Pointee<T>), ElemOf<T>()); }
  // Read before written and consumed at the end: the harness's input `name` and output `name_out`.
  template <class T>
  void inout(const char* name, T*& var) { Typed(name, Role::kInOut, Slot(var), sizeof(Pointee<T>), ElemOf<T>()); }
  // The next bind's element type where its pointer is untyped (void*, char*) and the program's
  // collectives move it as E (`ncclFloat`: `cuco_bind.as<float>().input("x", args->sendbuff)`):
  // fresh inputs are then values of E at the program's scale, not its own bytes. A typed
  // pointer keeps its own type.
  template <class E>
  Binder& as() {
    as_bytes_ = sizeof(E);
    as_elem_ = ElemOf<E>();
    return *this;
  }
  // The same where the program's own buffer must stay the one it uses (its iteration launches CUDA
  // graphs captured on it): the harness copies the input into it before the iteration and the output
  // out of it after, instead of pointing the variable at the harness's buffer.
  template <class T>
  void input_copy(const char* name, T*& var) { Copying c(this); input(name, var); }
  template <class T>
  void output_copy(const char* name, T*& var) { Copying c(this); output(name, var); }
  template <class T>
  void inout_copy(const char* name, T*& var) { Copying c(this); inout(name, var); }
  // The same for a device buffer no pointer variable of the program names: an object's storage
  // reached through its accessor (`cuco_bind.inout_copy("x", x.device_data())`, an object the
  // iteration hands whole to functions), its address read at the bind only.
  template <class T>
  void input_copy(const char* name, T* const& storage) { Unnamed(name, Role::kInput, storage); }
  template <class T>
  void output_copy(const char* name, T* const& storage) { Unnamed(name, Role::kOutput, storage); }
  template <class T>
  void inout_copy(const char* name, T* const& storage) { Unnamed(name, Role::kInOut, storage); }
  // Host memory the iteration copies its inputs from or its result to (main's std::vector, or its
  // array of `count` elements made by new[] or malloc, handed to a helper that copies it to and from
  // device buffers the helper makes each call): always by copy, the harness's buffer copied into the
  // program's host memory before the iteration and out of it after.
  template <class T, class A>
  void host_input(const char* name, std::vector<T, A>& v) { Host(name, Role::kInput, v.data(), v.size()); }
  template <class T, class A>
  void host_output(const char* name, std::vector<T, A>& v) { Host(name, Role::kOutput, v.data(), v.size()); }
  template <class T, class A>
  void host_inout(const char* name, std::vector<T, A>& v) { Host(name, Role::kInOut, v.data(), v.size()); }
  template <class T>
  void host_input(const char* name, T* p, size_t count) { Host(name, Role::kInput, p, count); }
  template <class T>
  void host_output(const char* name, T* p, size_t count) { Host(name, Role::kOutput, p, count); }
  template <class T>
  void host_inout(const char* name, T* p, size_t count) { Host(name, Role::kInOut, p, count); }

 protected:
  bool by_copy_ = false;  // the bind being made is a *_copy one
  // The bind being made is host memory of host_bytes_ bytes (host_*; by_copy_ is set too): its
  // `slot` holds the memory's address for the call only (no variable of the program is repointed).
  bool host_ = false;
  size_t host_bytes_ = 0;
  // The bind being made is device memory no variable holds (*_copy of an accessor's value; by_copy_
  // is set too): its `slot` holds the address for the call only.
  bool unnamed_ = false;
  // slot: the address of the program's pointer variable.
  virtual void Bind(const char* name, Role role, void** slot, size_t elem_bytes, Elem elem) = 0;

 private:
  template <class T>
  using Pointee = std::conditional_t<std::is_void_v<T>, unsigned char, T>;
  size_t as_bytes_ = 0;  // as<E>()'s type for the next bind (0: none)
  Elem as_elem_ = Elem::kOther;
  void Typed(const char* name, Role role, void** slot, size_t elem_bytes, Elem elem) {
    if (as_bytes_ != 0 && elem_bytes == 1) {  // bytes: void*, char*, uint8_t*
      elem_bytes = as_bytes_;
      elem = as_elem_;
    }
    as_bytes_ = 0;
    // Pinned host memory the program made (impl/pinned_host.h) bound like device memory: host memory
    // of the bytes from the pointer to its range's end, by copy; the program's variable keeps it.
    if (!host_ && *slot != nullptr) {
      if (const size_t bytes = pinned::BytesFrom(*slot)) {
        void* address = *slot;
        Copying c(this, bytes);
        Bind(name, role, &address, elem_bytes, elem);
        return;
      }
    }
    Bind(name, role, slot, elem_bytes, elem);
  }
  template <class T>
  void Unnamed(const char* name, Role role, T* p) {
    T* address = p;
    Copying c(this);
    unnamed_ = true;
    Typed(name, role, Slot(address), sizeof(Pointee<T>), ElemOf<T>());
  }
  template <class T>
  void Host(const char* name, Role role, T* p, size_t count) {
    void* address = const_cast<void*>(static_cast<const void*>(p));
    Copying c(this, count * sizeof(T));
    Bind(name, role, &address, sizeof(T), ElemOf<T>());
  }
  // A bind by copy while it lives (host memory of `host_bytes` bytes where given): reset however
  // the bind ends.
  struct Copying {
    explicit Copying(Binder* b) : b_(b) { b_->by_copy_ = true; }
    Copying(Binder* b, size_t host_bytes) : Copying(b) { b_->host_ = true, b_->host_bytes_ = host_bytes; }
    ~Copying() { b_->by_copy_ = false, b_->host_ = false, b_->host_bytes_ = 0, b_->unnamed_ = false; }
    Binder* b_;
  };
  template <class T>
  static void** Slot(T*& var) {
    return reinterpret_cast<void**>(const_cast<void*>(static_cast<const void*>(&var)));
  }
};

// What exit(code) or abort() in the program's code throws on both sides (impl/program_exit.h).
struct ProgramExit {
  int code;
  bool aborted = false;
  const char* via = nullptr;  // the call when it is neither exit nor abort ("MPI_Abort")
  std::string call() const {
    if (via != nullptr) return std::string(via) + "(" + std::to_string(code) + ")";
    return aborted ? "abort()" : "exit(" + std::to_string(code) + ")";
  }
};

// Ends the program's thread (or the iteration) as `e`, its own output first flushed: the message an
// error macro printed before exit() reaches the rank's log, not a buffer lost with the process.
[[noreturn]] inline void EndProgram(ProgramExit e) {
  std::fflush(nullptr);
  throw e;
}

// Thrown out of serve(), and out of a rank_thread's join(), when the harness is done with the
// program: it unwinds the program's threads. Each side catches it where a program thread starts.
struct StopProgram {};

// Whether the harness is done with the program (each side defines it).
bool program_stopping();

// A `break` of the program's timed loop, in a pass the harness serves (cuco init spells it `return
// cuco_program::loop_ended()`): the program's own loop would end there. Each side defines it; the
// reference's first run on fresh inputs tells by it whether they stop the program (a solver that
// gives up unconverged; reference_check.cu, DecideInputs).
void loop_ended();

// The calling thread's rank, carried into the threads the program starts (each side defines them).
intptr_t thread_rank_token();
void enter_thread_rank(intptr_t token);
// A thread the program started ended with `what` (exit(), abort(), an exception) instead of
// returning: each side records it for the thread's rank (never std::terminate of the process).
void thread_failed(const std::string& what);

// Runs the program's main (`entry`, started as the harness starts it: no arguments) on the calling
// thread until it ends: "" when the harness stopped it (StopProgram), else what ended it, said with
// `who` (" on rank 1", or "") and what it ended before (`before`: "reaching its timed loop").
inline std::string RunProgramMain(int (*entry)(int, char**), const std::string& who, const char* before) {
  static char arg0[] = "program";
  static char* argv[] = {arg0, nullptr};
  try {
    const int code = entry(1, argv);
    return "the program's main returned (" + std::to_string(code) + ")" + who + " before " + before;
  } catch (const StopProgram&) {
    return "";
  } catch (const ProgramExit& x) {
    return "the program called " + x.call() + who + " before " + before;
  } catch (const std::exception& e) {
    return "the program threw" + who + ": " + e.what();
  } catch (...) {
    return "the program threw an exception" + who;
  }
}

namespace thread_detail {
// Runs a program thread's function: a StopProgram ends it quietly, anything else is thread_failed.
template <class F>
void RunGuarded(F&& fn) {
  try {
    fn();
  } catch (const StopProgram&) {
  } catch (const ProgramExit& x) {
    thread_failed("a thread of the program called " + x.call());
  } catch (const std::exception& e) {
    thread_failed(std::string("a thread of the program threw: ") + e.what());
  } catch (...) {
    thread_failed("a thread of the program threw an exception");
  }
}
}  // namespace thread_detail

// std::thread as cuco init renames it in a program that runs a thread per GPU: the new thread
// belongs to its creator's rank; a StopProgram ends it quietly; a join() that returns once the
// harness is done throws StopProgram, so that the code after the program's joins does not run; and
// the threads not joined yet are joined as that unwinds.
class rank_thread : public std::thread {
 public:
  rank_thread() noexcept = default;
  template <class F, class... A, class = std::enable_if_t<!std::is_same_v<std::decay_t<F>, rank_thread>>>  // C++17
  explicit rank_thread(F&& f, A&&... args)
      : std::thread([token = thread_rank_token(), fn = std::bind(std::forward<F>(f), std::forward<A>(args)...)]() mutable {
          enter_thread_rank(token);
          thread_detail::RunGuarded(fn);
        }) {}
  rank_thread(rank_thread&&) noexcept = default;
  rank_thread& operator=(rank_thread&&) noexcept = default;
  // Joined, not std::terminate, when the program's thread unwinds past it at the end (every
  // program thread ends then).
  ~rank_thread() {
    if (joinable()) std::thread::join();
  }
  void join() {
    std::thread::join();
    if (program_stopping()) throw StopProgram{};
  }
};

// pthread_create and pthread_join as cuco init renames them in a program that runs a thread per GPU
// (like rank_thread): the new thread belongs to its creator's rank and a StopProgram ends it
// quietly; a join that returns once the harness is done throws StopProgram.
namespace thread_detail {
struct PthreadStart {
  intptr_t token;
  void* (*fn)(void*);
  void* arg;
};
inline void* RunPthread(void* p) {
  const PthreadStart s = *static_cast<PthreadStart*>(p);
  delete static_cast<PthreadStart*>(p);
  enter_thread_rank(s.token);
  void* out = nullptr;
  RunGuarded([&] { out = s.fn(s.arg); });
  return out;
}
}  // namespace thread_detail
inline int rank_pthread_create(pthread_t* t, const pthread_attr_t* attr, void* (*fn)(void*), void* arg) {
  auto* s = new thread_detail::PthreadStart{thread_rank_token(), fn, arg};
  const int rc = pthread_create(t, attr, &thread_detail::RunPthread, s);
  if (rc != 0) delete s;
  return rc;
}
inline int rank_pthread_join(pthread_t t, void** ret) {
  const int rc = pthread_join(t, ret);
  if (program_stopping()) throw StopProgram{};
  return rc;
}

// main's timed loop, as cuco init rewrites it. Returns never: the side ends the program's thread
// when the harness is done with it (the code after the loop does not run).
void serve(const std::function<void(Binder&)>& binds, const std::function<void()>& iteration);

// Which harness iteration this is (0, 1, ...). The rewritten loop's variable holds its first value
// instead: every harness iteration is the loop's first pass.
int64_t iteration();

// The workload's size `name` ([sizes.verify] or [sizes.bench] of the stage), or `fallback` when it has
// none: what cuco init's entry point passes as the program's own command-line options.
int64_t size_or(const char* name, int64_t fallback);

// From now on the program's getenv(`env`) answers size_or(`size`, `fallback`), in decimal: what cuco
// init's entry point registers for a size the program reads from its environment.
void env_size(const char* env, const char* size, int64_t fallback);

// This thread's rank and the number of ranks (MPI_Comm_rank / MPI_Comm_size, RANK / WORLD_SIZE).
int rank();
int world();

// Every rank's `bytes` bytes, in rank order, into recv (world() * bytes): what the MPI stand-ins
// are built on. Collective: every rank calls it, in the same order.
void host_allgather(const void* send, void* recv, size_t bytes);

// MPI's point-to-point messages between the ranks (cuco/program/impl/mpi_p2p.h), on host or device
// memory. A message is matched by its order between two ranks: the n-th receive `to` posts from
// `from` takes the n-th message `from` sent to `to`, of the same size (the reference refuses any
// other pairing, naming both; the candidate ignores tags). Each returns 0, or nonzero with the
// reason on stderr.
//   p2p_send: buffered: returns before the receiver has posted its receive. With `stays` the
//     bytes may be read as late as this rank's next p2p_receive or p2p_flush, and the caller keeps
//     them until then (MPI_Isend's until its wait, MPI_Sendrecv's send); without, they are copied
//     now (MPI_Send's, which the program may overwrite once it returns).
//   p2p_receive: every receive of `receives` complete (with every send this rank has pending).
//   p2p_flush: every send this rank has pending on its way (before a collective, at the end of
//     each iteration and of the program).
struct P2pReceive {
  void* data;
  size_t bytes;
  int from;  // a world rank
  int tag;
};
int p2p_send(const void* data, size_t bytes, int to, int tag, bool stays);
int p2p_receive(const P2pReceive* receives, int n);
int p2p_flush();

// A collective of cuco's MPI (cuco/program/mpi.h; MPI's types are ints there). The candidate moves
// one whose buffers are device memory, on the world communicator, of a type NCCL has (and, for a
// reduction, an operation it has) by NCCL on the harness's communicator and stream, under MPI's
// blocking contract (runtime/src/program/mpi_collectives.cu), as a CUDA-aware MPI built on NCCL
// does: `backend` "mpi" is NCCL's own call, "lsa" and "ce" the backend knob's (cuco/program/codesign.h).
// Returns MPI_SUCCESS or an MPI error code, or -1 where it does not move the call, which the caller
// then stages through host memory: every call of the reference (its rank threads exchange in host
// memory), and the candidate's calls NCCL cannot make.
struct MpiCollective {
  enum Kind { kAllreduce, kReduce, kBcast, kAllgather, kAlltoall, kReduceScatterBlock };
  Kind kind;
  const void* send;  // MPI_IN_PLACE as MPI has it
  void* recv;
  int count;         // Allgather, Alltoall: the count per rank of recv_type; Reduce_scatter_block: per rank
  int type;          // Allgather, Alltoall: the receive type
  int op;            // reductions only
  int root;          // Reduce, Bcast only
  int comm;
  int send_count = -1, send_type = -1;  // Allgather, Alltoall: the send side as given
};
int mpi_on_device(const MpiCollective& call, const char* backend);

// getenv as the program sees it: RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE and their MPI and
// Slurm spellings answer this thread's rank, a variable given to env_size its size; anything else
// is the process's environment. `char*`, as getenv's (`char* s = getenv(...)` builds); never written.
char* program_getenv(const char* name);

}  // namespace cuco_program

// Defined in the program's text (cuco init writes it after the renamed main).
#ifndef CUCO_PROGRAM_RUNTIME_UNIT
static int cuco_program_entry(int argc, char** argv);
#endif
