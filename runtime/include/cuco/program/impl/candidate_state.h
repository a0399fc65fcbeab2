// cuco/program/impl/candidate_state.h: the candidate side's one state of the program's rank (the
// harness's context, this iteration's buffers, the program's thread) and what reads it. Shared by
// the candidate file (candidate_side.h) and cuco's frozen program units (runtime/src/program/):
// S() is one object in the executable, whichever object file calls it. Nothing here may depend on
// the program's own macros (CUCO_PROGRAM_PROJECTED, CUCO_PROGRAM_THREADS): those units are compiled
// once for every program.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include <cuda_runtime.h>

#include <cuco/harness.h>
#include <cuco/program/program.h>
#include <cuco/program/impl/iteration_graph.h>
#include <cuco/program/impl/comm_ctas_knob.h>
#include <cuco/program/impl/part_knob.h>
#include <cuco/program/impl/program_graphs.h>

namespace cuco_program {
namespace candidate_detail {

struct Stop : StopProgram {};  // thrown out of serve() at teardown: unwinds the program's thread

struct Side {
  cuco::RankContext* ctx = nullptr;
  std::mutex mu;
  std::condition_variable cv;
  bool serving = false, ended = false;         // the program reached serve() / its thread ended
  bool run_requested = false, run_done = false, stop_requested = false;
  bool iterating = false;                      // the program's thread runs an iteration's body
  const cuco::IO* io = nullptr;
  std::string error;                           // the last iteration's failure, or the program's
  int main_code = 0;
  std::function<void(Binder&)> binds;
  std::function<void()> body;
  int64_t iteration = 0;
  std::thread thread;
  int streams_made = 0, events_made = 0;
  // What the set-up made (-1 before the first iteration): every iteration starts from it, so the
  // streams and events an iteration creates are its own, and the next one's get the same handles
  // (a program creating an event per pass never runs out of the harness's).
  int setup_streams = -1, setup_events = -1;
  cudaStream_t event_stream[cuco::RankContext::kMaxEvents] = {};
  IterationGraphs graphs;  // the graph knob's captures (cuco/program/codesign.h)
  ProgramGraphs program_graphs;  // the program's own graphs (program_graphs.h)
  cudaEvent_t join_events[cuco::RankContext::kMaxSideStreams] = {};  // IoBinder::CopyOut's
  cudaEvent_t binds_done = nullptr;  // IoBinder::JoinIn's: recorded on ctx.stream after the binds' copies
  cuco::Sizes sizes;       // the stage's sizes (size_or)
  // A thread per GPU (CUCO_PROGRAM_THREADS): the other GPUs' threads mirror every run of the own
  // thread's body with theirs, their GPU work skipped, so that host synchronisation between the
  // program's threads inside the iteration (a barrier every GPU's thread reaches) is met.
  int64_t body_runs = 0;   // runs of the own thread's body so far
  int64_t mirror_runs = 0; // runs the mirroring threads finished, summed over them
  int mirrors = 0;         // the other GPUs' threads waiting in serve()
};

inline Side& S() {
  static Side side;
  return side;
}

}  // namespace candidate_detail

inline int64_t iteration() { return candidate_detail::S().iteration; }
inline int64_t size_or(const char* name, int64_t fallback) { return candidate_detail::S().sizes.get_or(name, fallback); }
inline int rank() { return candidate_detail::S().ctx->rank; }
inline int world() { return candidate_detail::S().ctx->world_size; }

// The harness's RankContext, for code in the EVOLVE blocks.
inline cuco::RankContext& ctx() { return *candidate_detail::S().ctx; }

}  // namespace cuco_program
