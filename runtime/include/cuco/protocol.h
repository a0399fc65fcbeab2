// cuco/protocol.h: what the supervisor, the candidate runtime and cuco's judge agree on.
//
// The supervisor (runtime/src/supervisor/, built only from cuco's frozen code and the workload's
// reference) owns every figure a verdict rests on. The candidate runs as its own executable, its
// ranks as separate processes inside one sandbox, and talks to the supervisor only through one
// inherited SOCK_SEQPACKET socket per rank (fd kCandidateFd), shared memory the fds passed over that
// socket name, and (on GPU) two device flags. Everything here is plain data: no pointers, fixed
// sizes, so a message is one datagram and the supervisor validates every field it reads.
//
// Conversation of one rank (S = supervisor, C = candidate runtime):
//   C->S kHello      a = protocol version, b = pid inside the sandbox
//   S->C kConfig     payload WireConfig; CPU: one memfd per buffer (inputs, then each output set)
//                    GPU: the flags allocation (cuMem POSIX fd)
//   GPU only: rank 0 C->S kNcclId (payload: the ncclUniqueId); S->C kNcclId to every rank
//   GPU only: C->S kBuffers: one cuMem POSIX fd per buffer (inputs, then each output set),
//                    a[i] in WireSizes = each allocation's size
//   C->S kReady      setup returned (text: its error, empty when ok)
//   per iteration:   S->C kIter a = serial (the GO/DONE value), b = output set
//                    C->S kIterDone a = serial (text: the run's error, empty when ok). On GPU this
//                    says the work is enqueued; the DONE flag says it finished.
//   S->C kTeardown;  C->S kBye (text: teardown's error), then the candidate exits 0.
#pragma once

#include <cstddef>
#include <cstdint>

namespace cuco::protocol {

constexpr uint32_t kMagic = 0x43554330;  // "CUC0"
constexpr uint32_t kVersion = 1;
constexpr int kCandidateFd = 3;           // each candidate rank's socket to its supervisor
// How the supervisor hands the sockets to the sandbox: rank r's socket is inherited as fd
// kSpawnFdBase + r and its log file (stdout and stderr) as kSpawnFdBase + world + r; the rank
// spawner inside the sandbox (cuco-sandbox-exec --ranks W --rank-fd-base kSpawnFdBase
// --rank-log-fd-base kSpawnFdBase+W) moves them to kCandidateFd and 1/2 in each rank.
constexpr int kSpawnFdBase = 10;
// The rank spawner's exit status when every rank exited 0 but left processes running (it killed
// them): the supervisor reports it as a broken rule (kExitProtocol).
constexpr int kSandboxLeftovers = 125;
constexpr int kMaxName = 48;
constexpr int kMaxSizes = 32;
constexpr int kMaxBuffers = 32;           // inputs + outputs of one set (a halo exchange of 8 neighbours, a BFS)
constexpr int kMaxOutputSets = 2;         // the verify stage's fresh-buffer run uses a second set
constexpr int kMaxText = 1024;

enum class MsgType : uint32_t {
  kHello = 1,
  kConfig = 2,
  kNcclId = 3,
  kBuffers = 4,
  kReady = 5,
  kIter = 6,
  kIterDone = 7,
  kTeardown = 8,
  kBye = 9,
};

struct WireSize {
  char name[kMaxName];
  int64_t value;
};

struct WireBuffer {
  char name[kMaxName];
  uint32_t is_output;
  uint32_t dtype;       // cuco_frozen::DType on GPU; 0 on CPU
  uint64_t bytes;       // this rank's bytes
  uint64_t registered;  // GPU: the same on every rank (collective window registration)
};

struct WireConfig {
  int32_t rank, world, local_rank, local_world;
  int32_t n_sizes;
  WireSize sizes[kMaxSizes];
  int32_t n_buffers;  // buffers of one set: inputs first, then outputs
  WireBuffer buffers[kMaxBuffers];
  int32_t output_sets;  // 1 or 2
};

struct Message {
  uint32_t magic = kMagic;
  uint32_t type = 0;
  int64_t a = 0, b = 0;
  uint64_t sizes[kMaxBuffers * kMaxOutputSets] = {};  // kBuffers: allocation sizes
  char text[kMaxText] = {};
};

// The supervisor's exit status; cuco's judge (src/evaluate/judge.cc) maps it to a verdict. The
// supervisor writes metrics (with "error" and "error_kind") whenever it can, also on failure.
enum ExitCode : int {
  kExitOk = 0,
  kExitUsage = 2,            // bad arguments or sizes
  kExitCandidate = 3,        // the candidate reported an error (a failing Status, an exception)
  kExitSupervisor = 4,       // the supervisor itself failed (CUDA, system): not the candidate's fault
  kExitHang = 5,             // an iteration outlived --iteration-limit
  kExitCandidateCrashed = 6, // a candidate rank died by a signal
  kExitCandidateExited = 7,  // a candidate rank exited without being told to
  kExitProtocol = 8,         // the candidate broke the protocol (bad message, forged value, wrong fds)
};

// The supervisor's smallest time: a timed window no longer than its own calibrated overhead reads as
// this, so a time is never zero or negative (the judge reads a time at it as the timer's floor).
constexpr double kTimerResolutionMs = 0.001;

}  // namespace cuco::protocol
