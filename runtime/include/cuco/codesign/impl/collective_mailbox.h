// cuco/codesign/impl/collective_mailbox.h: DeviceCollectives' send/recv, included at the end of
// cuco/codesign/collectives.h (not on its own). A send or recv is queued; group_end (or a lone
// call) flushes the queue: a barrier, every send PUSHES into its receiver's mailbox slot for this
// rank (16-byte aligned, at most slot_bytes_ per peer per group), a barrier, every receive copies
// out of this rank's slot for its sender. Every call of one group must use one stream.
#pragma once

#include <string>
#include <vector>

#include <cuco/codesign/collectives.h>

namespace cuco {
namespace codesign {

template <int kLazy>
inline ncclResult_t BasicDeviceCollectives<kLazy>::p2p(const char* op, bool is_send, void* buffer, size_t count,
                                           ncclDataType_t type, int peer, ncclComm_t comm, cudaStream_t stream) {
  if (!usable(op, comm) || !valid_rank(op, peer)) return error_;
  coll_detail::PendingP2p p;
  p.is_send = is_send;
  p.buffer = static_cast<char*>(buffer);
  p.bytes = count * coll_detail::type_size(type);
  p.peer = peer;
  p.stream = stream;
  pending_.push_back(p);
  return group_depth_ > 0 ? ncclSuccess : flush_p2p();  // a lone send/recv is a group of one
}

// Sends push into the receiver's slot for this rank, at the running offset per peer; receives
// copy out of this rank's slot for the sender after a barrier.
template <int kLazy>
inline ncclResult_t BasicDeviceCollectives<kLazy>::flush_p2p() {
  std::vector<coll_detail::PendingP2p> ops;
  ops.swap(pending_);
  if (ops.empty()) return ncclSuccess;
  const cudaStream_t stream = ops.front().stream;
  std::vector<size_t> sent(static_cast<size_t>(world()), 0), received(static_cast<size_t>(world()), 0);
  std::vector<coll_detail::Copy> pushes, pulls;
  for (const coll_detail::PendingP2p& p : ops) {
    if (p.stream != stream) return fail("group_end", "every send/recv of a group must use one stream");
    size_t& used = p.is_send ? sent[static_cast<size_t>(p.peer)] : received[static_cast<size_t>(p.peer)];
    if (used + p.bytes > slot_bytes_)
      return fail(p.is_send ? "send" : "recv",
                  "more than the mailbox slot (" + std::to_string(slot_bytes_) + " bytes) for one peer in one "
                  "group: pass a larger mailbox_bytes_per_peer to init()");
    if (p.is_send) {
      coll_detail::Place slot;
      slot.window = mailbox_.window;
      slot.offset = static_cast<size_t>(rank()) * slot_bytes_ + used;
      slot.peer = p.peer;
      pushes.push_back(copy(local(p.buffer), slot, p.bytes));
    } else {
      char* box = static_cast<char*>(mailbox_.ptr) + static_cast<size_t>(p.peer) * slot_bytes_ + used;
      pulls.push_back(copy(local(box), local(p.buffer), p.bytes));
    }
    used = (used + p.bytes + 15) / 16 * 16;  // keep every message 16-byte aligned
  }
  ncclResult_t r = barrier(stream);  // receivers are done with the mailbox's previous contents
  if (r == ncclSuccess) r = launch_copies(pushes, stream);
  if (r == ncclSuccess) r = barrier(stream);
  if (r == ncclSuccess) r = launch_copies(pulls, stream);
  return r;
}

}  // namespace codesign
}  // namespace cuco
