// cuco/program/impl/candidate_side.h: the program's thread and the harness's three functions, on
// the candidate side (cuco/program/candidate.h says what they do).
// Their work is runtime/src/program/candidate_side.cu, compiled once for every program; what reads
// the program's macros or names its entry is here: serve's branch for another GPU's thread
// (CUCO_PROGRAM_THREADS), thread_failed, and cuco_candidate_setup/run/teardown, which hand the
// unit the program's entry. Defines those three: include it once, from the candidate file only.
#pragma once

#include <cstdint>
#include <functional>
#include <mutex>
#include <string>

#include <cuco/harness.h>
#include <cuco/program/program.h>
#include <cuco/program/impl/candidate_state.h>
#include <cuco/program/impl/projection.h>

namespace cuco_program {
namespace candidate_detail {

// Starts the program's thread, which runs `entry` (the program's renamed main) until it reaches
// serve(), and waits for that; an error if it ended first.
cuco::Status Setup(cuco::RankContext& ctx, const cuco::Sizes& sizes, void** state, int (*entry)(int, char**));
// One iteration: binds the harness's buffers of `io`, runs the loop's body once on the program's
// thread, and waits for it.
cuco::Status Run(void* state, const cuco::IO& io);
// Ends the program's thread (the code after its loop does not run) and destroys the graphs it left.
void Teardown(void* state);

// serve() of the rank's own thread: runs an iteration whenever Run asks, until Teardown (then
// throws Stop). Never returns.
[[noreturn]] void Serve(const std::function<void(Binder&)>& binds, const std::function<void()>& iteration_body);
// serve() of another GPU's thread (lock: S().mu, held): for every run of the own thread's body, one
// run of its own (`body`, every GPU call skipped since its GPU is not the rank's), until teardown.
// What the body throws is its own thread's: the rank's verdict is the own thread's alone.
void MirrorRuns(std::unique_lock<std::mutex>& lock, const std::function<void()>& body);

}  // namespace candidate_detail

#ifndef CUCO_PROGRAM_RUNTIME_UNIT
inline void serve(const std::function<void(Binder&)>& binds, const std::function<void()>& iteration_body) {
#ifdef CUCO_PROGRAM_THREADS
  if (!proj::Own()) {  // another GPU's thread (projection.h): it mirrors the own thread's runs
    std::unique_lock<std::mutex> lock(candidate_detail::S().mu);
    candidate_detail::MirrorRuns(lock, iteration_body);
    throw candidate_detail::Stop{};
  }
#endif
  candidate_detail::Serve(binds, iteration_body);
}

inline intptr_t thread_rank_token() { return 0; }  // one rank per process: nothing to carry
// Another GPU's thread (whose calls are skipped) may fail its own checks: only the rank's own counts.
inline void thread_failed(const std::string& what) {
  if (!proj::Own()) return;
  candidate_detail::Side& s = candidate_detail::S();
  std::lock_guard<std::mutex> lock(s.mu);
  if (s.error.empty()) s.error = what;
  s.ended = true;
  s.cv.notify_all();
}
inline void enter_thread_rank(intptr_t) {}
#endif  // CUCO_PROGRAM_RUNTIME_UNIT

}  // namespace cuco_program

#ifndef CUCO_PROGRAM_RUNTIME_UNIT
cuco::Status cuco_candidate_setup(cuco::RankContext& ctx, const cuco::Sizes& sizes, void** state) {
  return cuco_program::candidate_detail::Setup(ctx, sizes, state, &cuco_program_entry);
}
cuco::Status cuco_candidate_run(cuco::RankContext&, void* state, const cuco::IO& io) {
  return cuco_program::candidate_detail::Run(state, io);
}
void cuco_candidate_teardown(cuco::RankContext&, void* state) { cuco_program::candidate_detail::Teardown(state); }
#endif  // CUCO_PROGRAM_RUNTIME_UNIT
