// The supervisor: the process that decides every figure a verdict rests on. It never loads
// candidate code. It starts the candidate's ranks (candidate_process.h) inside the sandbox cuco
// describes, drives them over their sockets (cuco/protocol.h), writes fresh inputs into shared
// memory inside its own timed window, snapshots the outputs before the window closes, verifies the
// snapshot against the workload's frozen reference, and writes rank<R>.json for every rank
// (runtime/METRICS.md).
//
// Life of one stage (one thread per rank; a barrier starts every iteration on every rank at once):
//   1. each rank's backend Init (device, private memory); bench: calibration with no candidate, every
//      rank's null iterations together;
//   2. the candidate starts (one sandbox, W ranks); handshake: hello, config (+ fds), comm id relay
//      (GPU), the candidate's buffers (GPU), ready (its setup returned);
//   3. verify: verify_runs iterations checked on every row, then one into a second output set on the
//      same inputs, which must agree; bench: warmup, then timed iterations: every one scanned for
//      poison and NaN, a random subset (drawn after each ran) checked on sampled rows;
//      after every iteration the outputs are poisoned afresh and, before the next, scanned: anything
//      written there after a window closed is counted as a late write;
//   4. teardown; the candidate exits; a last late-write scan; bench: calibration again (together).
// Reported time per iteration = window - overhead, where overhead = the smaller of the two
// calibrations' medians (taken when no candidate process exists, so none can inflate it), and at
// least the timer's resolution (0.001 ms). On GPUs a window opens for every rank at once, at the
// start line (start_line.h) that every rank's stream crosses after writing its inputs: no rank
// times any fill, its own or a slower peer's, and the calibration, crossing the same line, leaves
// only the release, the snapshot copy and the timer to subtract.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "supervisor/args.h"
#include "supervisor/rank_backend.h"

namespace cuco::supervisor {

struct SupervisorIdentity {
  std::string version;        // e.g. "cuco-supervisor-gpu/1"
  std::string workload;       // the reference's workload name
  std::string nonce;          // CUCO_RUN_NONCE as read at start
};

// Runs one stage and writes the metrics; returns the process's exit code (cuco/protocol.h).
int RunSupervisor(const Args& args, const SupervisorIdentity& id,
                  const std::function<std::unique_ptr<RankBackend>()>& make_backend);

// Takes CUCO_RUN_NONCE out of the environment (overwriting it in place first, so that
// /proc/self/environ does not keep it) and returns it.
std::string TakeNonce();

// 64 bits from the kernel's generator (getrandom); n > 0: uniform in [0, n) without bias.
uint64_t SecureU64();
uint64_t SecureBelow(uint64_t n);

// Prints "[cuco-supervisor] ..." to stderr.
void Log(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

}  // namespace cuco::supervisor
