// The rewrites that let the harness run a program driving every GPU from one process
// (ncclCommInitAll, or ncclCommInitRank for each GPU in a group) one rank at a time: each rank runs
// the program's host code and does only its own GPU's part (runtime/include/cuco/program/impl/
// projection.h says what the runtime does). Here, on the program's text:
//   GuardLaunches       `k<<<...>>>(...)` -> `if (!cuco_program::proj::Own()) {} else k<<<...>>>(...)`;
//   ProjectionGuards    the guards of the CUDA, library and NCCL calls the program makes;
//   CrossGpuCopy        a copy between GPUs outside NCCL, which has no per-rank meaning;
//   ForeignBufferCall   an NCCL call for one GPU on a buffer of another, which its rank does not hold;
//   DeviceIndexing      which of main's arrays hold one entry per GPU (`comms[i]`, `stages[s]`), so
//                       that a buffer `d_w[i]` binds as `d_w[cuco_program::rank()]`;
//   LocalAliases        `Stage& st = stages[s];` and `float* p = d_x[i] + off;` in a lambda's text;
//   RenameStdThread     a program with a thread per GPU (task_starts.h finds the function they run):
//                       its threads made cuco_program::rank_thread (each knows its rank).
// Scans skip comments and literals; offsets are bytes of the text given.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "analyze/analysis.h"
#include "util/status.h"

namespace cuco::scaffold_internal {

// Every kernel launch in `text` guarded. kInvalidArgument naming `file`:line for a launch that is not
// a statement of its own (inside a macro's arguments or an expression), which cannot be guarded.
Result<std::string> GuardLaunches(const std::string& file, const std::string& text);

// The text written after the harness's include for a projected program: `#include`s of the
// libraries whose functions `code` calls, and a guard macro for each such call
// (CUCO_PROGRAM_GUARD, CUCO_PROGRAM_GUARD_COMM). `reference`: the reference side, whose streams and
// events are CUDA's own (the candidate's are the harness's stand-ins, which guard themselves).
std::string ProjectionGuards(const std::string& code, bool reference);

// The CUDA, library and NCCL functions `code` calls that get a guard (ProjectionGuards).
std::set<std::string> GuardedNames(const std::string& code, bool reference);

// "file:line: ::cudaMalloc" for the first call of one of `names` qualified with `::` in `text` (the
// guard is a macro, which `::name(` cannot go through), "" when none.
std::string QualifiedGuardedCall(const std::string& file, const std::string& text, const std::set<std::string>& names);

// "file:line: cudaMemcpyPeer" for the first copy between GPUs outside NCCL in `text`, "" when none.
std::string CrossGpuCopy(const std::string& file, const std::string& text);

// An NCCL call of the analysis (any of the program's sources, any collective or send/recv) on one
// GPU's communicator of a per-GPU array (`comms[myid]`) whose send or receive buffer is a fixed entry
// of a per-GPU array (`ncclSend(device_a[1] + off, ..., comms[myid], s[myid])`): every GPU sends
// GPU 1's buffer, which a rank of its own does not hold. "file:line: what (the entry it would be)",
// "" when none.
std::string ForeignBufferCall(const Analysis& analysis);

// The names of a buffer expression's chain, in order (`st.tmp[l]->x`: st, tmp, x; names inside a
// subscript too), each with the offset just past it and whether it heads the expression.
struct ChainName {
  std::string name;
  size_t end = 0;
  bool head = false;
};
std::vector<ChainName> ChainNames(const std::string& expr);

class DeviceIndexing {
 public:
  // `main_text`: main's text; `count`: the variable holding the number of GPUs (the ndev of
  // ncclCommInitAll, the nranks of ncclCommInitRank). An array is per GPU when main indexes it with
  // the variable of a loop that runs to `count` (`for (int i = 0; i < count; ++i)`), as `a[i]` or
  // a container's `a.at(i)`.
  DeviceIndexing(const std::string& main_text, const std::string& count);

  const std::set<std::string>& arrays() const { return arrays_; }
  // A buffer as the analysis names it (subscripts dropped: `stages.out` for `stages[s - 1].out`)
  // with `[index]` after the first per-GPU array of its chain (`stages[<index>].out`, `d_w[<index>]`,
  // an object's member `stressor.d_w[<index>]`).
  std::string Normalize(const std::string& base, const std::string& index) const;
  // Whether a part of `base` other than a per-GPU array Normalize indexed is subscripted somewhere in `code`
  // (`st.tmp[l % 2]`): the analysis dropped that subscript, so `base` names an array, not a pointer.
  bool NamesAnArray(const std::string& base, const std::string& code) const;

 private:
  std::set<std::string> arrays_;
};

// One of `functions` that main passes by name to a call (`run_example(argc, argv, allreduce)`: a
// function pointer another file calls, once per rank or from the threads it starts); "" when none.
std::string PassedFunction(const std::string& main_text, const std::set<std::string>& functions);

// The byte offset in `main_text` of the `{` opening the body of the lambda a program's threads run
// (`threads.emplace_back([&, r] { ... })`, `std::thread t([=]() mutable { ... })`), npos when none.
size_t ThreadLambdaBody(const std::string& main_text);

// `text` with `std::thread` spelled `cuco_program::rank_thread`, and `pthread_create(` /
// `pthread_join(` spelled `cuco_program::rank_pthread_create(` / `rank_pthread_join(`
// (cuco/program/program.h).
std::string RenameStdThread(const std::string& text);

// Local names of `text` that alias a buffer expression: `T& name = expr;`, `T* name = expr;`,
// `auto name = expr;` -> {name: expr without an offset}. A reference to an entry of an array
// (`Expert& e = experts[k];`) is that entry (`e.w1` is `experts[k].w1`), except in the arrays of
// `per_gpu_arrays` (a projected program's `Stage& st = stages[s];` is the array its rank's entry
// binds: `stages`). An alias of one of two buffers (`float* c = (buf == 0) ? ping : pong;`, double
// buffers) is the first; *second, when given, gets {name: the other} for each such alias.
std::map<std::string, std::string> LocalAliases(const std::string& text, const std::set<std::string>& per_gpu_arrays = {},
                                                std::map<std::string, std::string>* second = nullptr);

}  // namespace cuco::scaffold_internal
