// cuco/program/impl/emulated_spans.h: how many bytes an emulated NCCL call (nccl_emulation.h)
// reads at its send pointer and writes at its receive pointer, and the refusal when the program's
// buffer holding either is smaller. Real NCCL reads and writes past a short buffer unchecked (the
// allocation's rounding usually hides it); the reference refuses, naming the call and both sizes,
// because what it would compare against is then undefined. Plain C++: runtime_test tests it.
#pragma once

#include <cstddef>
#include <string>

namespace cuco_program::emu {

enum class Kind { kAllReduce, kBroadcast, kReduce, kAllGather, kReduceScatter, kAlltoAll, kGather, kScatter, kSend, kRecv };

// NCCL's name of the call.
inline const char* CallName(Kind k) {
  switch (k) {
    case Kind::kAllReduce: return "ncclAllReduce";
    case Kind::kBroadcast: return "ncclBroadcast";
    case Kind::kReduce: return "ncclReduce";
    case Kind::kAllGather: return "ncclAllGather";
    case Kind::kReduceScatter: return "ncclReduceScatter";
    case Kind::kAlltoAll: return "ncclAlltoAll";
    case Kind::kGather: return "ncclGather";
    case Kind::kScatter: return "ncclScatter";
    case Kind::kSend: return "ncclSend";
    case Kind::kRecv: return "ncclRecv";
  }
  return "an NCCL call";
}

// Bytes rank `me` of `n` reads at the send pointer and writes at the receive pointer, `count` being
// the call's count argument of `elem` bytes each; 0 where that rank touches none (a broadcast's or
// scatter's other ranks' send, a reduce's or gather's other ranks' receive).
struct Spans {
  size_t send = 0, recv = 0;
};
inline Spans SpansOf(Kind k, size_t count, size_t elem, int me, int n, int root) {
  const size_t one = count * elem, all = one * static_cast<size_t>(n);
  const bool is_root = me == root;
  switch (k) {
    case Kind::kAllReduce: return {one, one};
    case Kind::kBroadcast: return {is_root ? one : 0, one};
    case Kind::kReduce: return {one, is_root ? one : 0};
    case Kind::kAllGather: return {one, all};
    case Kind::kReduceScatter: return {all, one};
    case Kind::kAlltoAll: return {all, all};
    case Kind::kGather: return {one, is_root ? all : 0};
    case Kind::kScatter: return {is_root ? all : 0, one};
    case Kind::kSend: return {one, 0};
    case Kind::kRecv: return {0, one};
  }
  return {};
}

// "" when both spans fit; else why the call is refused. `send_have` / `recv_have`: the bytes from
// each pointer to the end of the program's allocation holding it, 0 when it is none cuco knows.
inline std::string TooSmall(Kind k, size_t count, size_t elem, int me, int n, int root, size_t send_have,
                            size_t recv_have) {
  const Spans s = SpansOf(k, count, elem, me, n, root);
  auto why = [&](const char* side, size_t need, size_t have) {
    const bool per_rank = need == count * elem * static_cast<size_t>(n) && n > 1;
    return std::string("emulated NCCL: ") + CallName(k) + " of count " + std::to_string(count) + " on rank " +
           std::to_string(me) + " of " + std::to_string(n) + " " + (side[0] == 's' ? "reads " : "writes ") +
           std::to_string(need) + " bytes at its " + side + " buffer" +
           (per_rank ? " (" + std::to_string(n) + " ranks x " + std::to_string(count) + " x " + std::to_string(elem) +
                           " bytes)"
                     : "") +
           ", but the program's allocation holding it has " + std::to_string(have) +
           " bytes from there: the buffer is too small for this world size (real NCCL would go past it unchecked)";
  };
  if (send_have != 0 && s.send > send_have) return why("send", s.send, send_have);
  if (recv_have != 0 && s.recv > recv_have) return why("receive", s.recv, recv_have);
  return "";
}

}  // namespace cuco_program::emu
