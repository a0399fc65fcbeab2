// StopSignals: what Ctrl-C (SIGINT) and SIGTERM do while a search session runs (session.h: `cuco
// evolve`, `cuco run`'s search).
// Installed for the life of the object:
//   - the first answers at once on stderr ("stopping: N candidates in flight; Ctrl-C again to
//     abort them") and sets stop(): the search proposes nothing more, lets the evaluations in
//     flight finish and stores them; the session ends kStopped (the command exits kExitStopped);
//   - the second sets abort() and kills the process groups of every evaluation in flight (and
//     keeps killing those that start until the object goes): their candidates stay pending, so
//     --resume evaluates them again; the session ends kAborted (exit kExitAborted);
//   - a third one kills cuco itself (the default action).
// The messages start with `prefix`, a string literal ("cuco evolve: ", "cuco run: "). One
// StopSignals at a time (the handler's state is process-wide).
#pragma once

#include <atomic>
#include <thread>

namespace cuco {

class StopSignals {
 public:
  explicit StopSignals(const char* prefix);
  ~StopSignals();
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

  const std::atomic<bool>* stop() const;
  const std::atomic<bool>* abort() const;
  // What a second Ctrl-C does, from cuco itself (e.g. Slurm failing): abort the evaluations in
  // flight, which stay pending for --resume.
  void AbortNow();
  // The count the first signal's message gives (the search's progress keeps it current).
  void SetInFlight(int n);

 private:
  std::atomic<bool> done_{false};
  std::thread killer_;  // after abort(): kills evaluations that start, until the search returns
};

}  // namespace cuco
