// cuco/program/impl/emulated_matching.h: whether the ranks of an emulated NCCL collective
// (nccl_emulation.h) made the same call. NCCL matches a communicator's collectives by their order
// alone; where the ranks' n-th calls differ (one all-gathers while another reduces: PARCOACH's
// CIVL benchmark, its ranks' orders swapped by rank parity) real NCCL hangs or computes garbage.
// The reference refuses such a call, naming both ranks' calls, instead of completing it. Plain
// C++: runtime_test tests it.
#pragma once

#include <string>
#include <vector>

#include <cuco/program/impl/emulated_spans.h>

namespace cuco_program::emu {

// What every rank's collective must agree on: the call, its count, datatype (ncclDataType_t), and
// where they apply its reduction (ncclRedOp_t) and root.
struct CallKey {
  Kind kind = Kind::kAllReduce;
  size_t count = 0;
  int type = 0, red = 0, root = 0;
};

inline bool Reduces(Kind k) { return k == Kind::kAllReduce || k == Kind::kReduce || k == Kind::kReduceScatter; }
inline bool Rooted(Kind k) {
  return k == Kind::kBroadcast || k == Kind::kReduce || k == Kind::kGather || k == Kind::kScatter;
}

inline CallKey KeyOf(Kind kind, size_t count, int type, int red, int root) {
  return {kind, count, type, Reduces(kind) ? red : 0, Rooted(kind) ? root : 0};
}

inline std::string Described(const CallKey& k) {
  std::string s = std::string(CallName(k.kind)) + " of count " + std::to_string(k.count) + ", datatype " +
                  std::to_string(k.type);
  if (Reduces(k.kind)) s += ", operation " + std::to_string(k.red);
  if (Rooted(k.kind)) s += ", root " + std::to_string(k.root);
  return s;
}

// "" when the `n` ranks' calls (keys[q]: rank q's) agree; else the refusal, naming the first rank
// whose call differs from rank 0's.
inline std::string MismatchedCalls(const CallKey* keys, int n) {
  for (int q = 1; q < n; ++q) {
    const CallKey &a = keys[0], &b = keys[q];
    if (a.kind == b.kind && a.count == b.count && a.type == b.type && a.red == b.red && a.root == b.root) continue;
    return "emulated NCCL: the ranks' collectives on one communicator do not match: rank 0 calls " + Described(a) +
           " while rank " + std::to_string(q) + " calls " + Described(b) +
           " (NCCL matches them by order: the program's ranks must make the same calls in the same order, or "
           "real NCCL hangs)";
  }
  return "";
}

// A rank's send to itself and its receive from itself meet only inside one call or one
// ncclGroupStart/End (a receive from oneself with no send there hangs real NCCL: a ping-pong whose
// peer is the rank itself when the world has one rank). "" when the group's sends to the calling
// rank (`me`) and receives from it pair up; else the refusal, at once rather than after the
// reference's wait. `kinds` and `peers` are the group's calls, in order.
inline std::string UnpairedSelfCalls(const std::vector<Kind>& kinds, const std::vector<int>& peers, int me) {
  int sends = 0, recvs = 0;
  for (size_t i = 0; i < kinds.size(); ++i)
    if (peers[i] == me) {
      sends += kinds[i] == Kind::kSend;
      recvs += kinds[i] == Kind::kRecv;
    }
  if (sends == recvs) return "";
  const bool recv = recvs > sends;
  return std::string("emulated NCCL: rank ") + std::to_string(me) + (recv ? " receives from" : " sends to") +
         " itself with no " + (recv ? "ncclSend to" : "ncclRecv from") +
         " itself in the same call or ncclGroupStart/End (real NCCL hangs there; a program that pairs ranks "
         "may need a world of at least two)";
}

}  // namespace cuco_program::emu
