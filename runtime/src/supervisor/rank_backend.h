// One rank's memory and clock, as the supervisor's driver (supervisor.h) uses them. The CPU backend
// (cpu_backend.cc) shares memfds with the candidate and times with the supervisor's own clock; the
// GPU backend (gpu_backend.cu) maps the candidate's cuMem buffers and times with its own events on
// its own stream. The driver owns the protocol, the order of things and the metrics; a backend owns
// the bytes. Every method runs on the rank's own driver thread; failures throw SupervisorError.
//
// One timed iteration, serial n on output set s (serials grow by one per iteration, from 1):
//   Begin(seed, s, n)  start mark; fresh inputs from `seed` written into the shared input buffers;
//                      GO = n. (GPU: GO only once every rank's inputs are written (start_line.h);
//                      also enqueues "wait DONE >= n; copy set s's outputs into the private
//                      snapshot; stop mark" on the supervisor's stream.)
//   -- the driver tells the candidate to run iteration n and waits for its kIterDone --
//                      (GPU: the driver asks first and waits up to 50 ms for kIterDone before
//                      Begin, so the candidate's work is enqueued behind GO when the window opens;
//                      a run that waits for GO inside itself gets Begin after those 50 ms.)
//   End(s, n)          (CPU: copy set s's outputs into the private snapshot, then the stop mark;
//                      GPU: wait for the stop mark, at most `limit_s`.) Returns the window in ms.
// Everything after End (scans, reference checks, agreement) reads only the private snapshot,
// which no candidate process can map.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include <cuco/protocol.h>

#include "common/channel.h"
#include "supervisor/json_writer.h"

namespace cuco::supervisor {

// Every failure of the supervisor or of the candidate, with the exit code it ends the process with.
struct SupervisorError {
  int exit_code;
  std::string kind;  // usage | config | supervisor | candidate | candidate_crashed | candidate_exited |
                     // candidate_hang | protocol
  std::string message;
};
[[noreturn]] inline void Fail(int code, const std::string& kind, const std::string& message) {
  throw SupervisorError{code, kind, message};
}

// Poison is a NaN in floating outputs (never equal to a finite, passing value) and random bits in
// integer ones: poison_expected is how many elements an honest output of those dtypes matches by
// chance (elements x 2^-(8 bytes), summed over integer outputs; 0 when every output is floating).
struct ScanFigures {
  int64_t poison_left = 0;  // elements still equal to the iteration's poison
  int64_t nonfinite = 0;    // NaN/Inf elements (float outputs) other than the poison
  int64_t elements = 0;
  double poison_expected = 0;
};

struct CheckFigures {
  double rel_l2 = 0, max_abs = 0;
  int64_t nonfinite = 0, elements = 0, rows = 0;
  int64_t left_alone = 0;  // output elements the reference itself leaves alone (CheckResult::left_alone)
  bool own_state_inputs = false;  // CheckResult::own_state_inputs
};

struct AgreeFigures {
  double max_abs = 0;
  int64_t mismatches = 0, elements = 0;
};

class RankBackend {
 public:
  virtual ~RankBackend() = default;

  // Before the candidate starts: the device and the supervisor's private memory.
  virtual void Init(int rank, int world, int output_sets) = 0;
  virtual std::string DeviceName() const = 0;
  virtual void DescribeDevice(Json& j) const = 0;  // extra top-level metrics fields
  virtual std::string TimingMethod() const = 0;    // how the window is timed, for the metrics
  // The device's state (GPU: a canary kernel and copy timed, what the context sees, NVML's view;
  // gpu_state.h), read at `point`: "before" (after Init, before any candidate process exists) and
  // "after" (once the candidate's processes have ended). DescribeDevice writes the readings.
  virtual void ReadDeviceState(const std::string& point) { (void)point; }
  // This rank's buffers, inputs then outputs (one set), for the candidate's WireConfig.
  virtual std::vector<protocol::WireBuffer> Buffers() const = 0;
  virtual int64_t OutputRows() const = 0;

  // The handshake. ConfigFds: fds sent with kConfig (the supervisor keeps its own copies).
  virtual std::vector<int> ConfigFds() = 0;
  virtual bool WantsCommId() const = 0;  // relay rank 0's ncclUniqueId to every rank
  virtual bool WantsBuffers() const = 0;  // expect kBuffers from the candidate
  virtual void AcceptBuffers(protocol::Received& msg) = 0;

  // A whole iteration with no candidate (start, fill, snapshot, stop) on private buffers: the
  // overhead that Begin..End adds to the candidate's own time. Every rank runs its null
  // iterations at once (GPU: they cross the start line like Begin does).
  virtual double NullIteration(uint64_t seed) = 0;

  // GPU: the candidate's stream waits for GO before its work, so the driver may ask for the run
  // before Begin (the work then waits, enqueued, for the window). CPU: the run starts on kIter.
  virtual bool CandidateWaitsForGo() const { return false; }
  virtual void Begin(uint64_t seed, int set, int64_t serial) = 0;
  virtual double End(int set, int64_t serial, double limit_s) = 0;
  // After a failure, from any thread: lets a stream that waits for DONE or at the start line drain
  // (writes the largest serial into DONE, opens the start line for every rank); no-op on CPU.
  virtual void Unblock() = 0;

  // Outside any window. Poison: random bits into every element of set `set` (shared memory).
  virtual void Poison(int set, uint64_t poison_seed) = 0;
  // Elements of set `set` (shared memory) that no longer hold that poison: written after the
  // window that should have produced them had closed.
  virtual int64_t ChangedSincePoison(int set, uint64_t poison_seed) = 0;

  // On the private snapshot of the last End.
  virtual ScanFigures ScanSnapshot(uint64_t poison_seed) = 0;
  virtual CheckFigures CheckSnapshot(uint64_t input_seed, const std::vector<int64_t>& rows /* empty: all */) = 0;
  virtual void KeepSnapshot() = 0;                // keeps a copy for AgreeWithKept
  virtual AgreeFigures AgreeWithKept() = 0;       // the last snapshot against the kept one
};

}  // namespace cuco::supervisor
