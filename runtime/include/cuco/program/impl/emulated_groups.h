// cuco/program/impl/emulated_groups.h: the communicators ncclCommSplit makes in the reference, whose
// NCCL is emulated between rank threads (nccl_emulation.h). The world is every rank; a split into
// several colours makes one group per colour, its members ordered by (key, world rank) as NCCL
// orders them, each with its own barrier, slots and calls, so that groups meet apart (a tensor-
// parallel group all-reduces while a data-parallel one waits elsewhere). A group's handle holds it
// and the caller's index in it. Plain C++: runtime_test tests it (emulated_groups_test.cc).
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include <cuco/program/impl/emulated_matching.h>
#include <cuco/program/impl/rank_barrier.h>

namespace cuco_program::emu {

// The members of colour `color`, given every world rank's (colour, key) pair (`ck`, two ints a
// rank, in rank order): ordered by key, then world rank.
inline std::vector<int> SplitMembers(const std::vector<int>& ck, int color) {
  std::vector<std::pair<int, int>> keyed;  // (key, world rank)
  for (size_t q = 0; q + 1 < ck.size(); q += 2)
    if (ck[q] == color) keyed.push_back({ck[q + 1], static_cast<int>(q / 2)});
  std::stable_sort(keyed.begin(), keyed.end());
  std::vector<int> members;
  for (const auto& [key, rank] : keyed) members.push_back(rank);
  return members;
}

// Whether a split gives every rank one colour with its keys in rank order: the world again.
inline bool SplitIsWorld(const std::vector<int>& ck) {
  for (size_t q = 2; q + 1 < ck.size(); q += 2)
    if (ck[q] != ck[0] || ck[q + 1] < ck[q - 1]) return false;
  return true;
}

struct Group {
  int id = 0;
  std::vector<int> members;  // world ranks, in the group's rank order
  ref::RankBarrier barrier;
  std::vector<const void*> slots;
  std::vector<CallKey> calls;
  // The index of world rank `rank` in the group; -1 when it is none of its members.
  int IndexOf(int rank) const {
    const auto it = std::find(members.begin(), members.end(), rank);
    return it == members.end() ? -1 : static_cast<int>(it - members.begin());
  }
};

class Groups {
 public:
  // The group of colour `color` of split number `serial` (each rank counts its own ncclCommSplit
  // calls, which every rank makes in one order), made by the first member to ask.
  Group* Join(int serial, int color, const std::vector<int>& members) {
    std::lock_guard<std::mutex> lock(mu_);
    std::unique_ptr<Group>& g = by_split_[{serial, color}];
    if (!g) {
      g = std::make_unique<Group>();
      g->id = static_cast<int>(by_id_.size());
      g->members = members;
      g->barrier.Reset(static_cast<int>(members.size()));
      g->slots.assign(members.size(), nullptr);
      g->calls.assign(members.size(), CallKey{});
      if (broken_) g->barrier.Break();
      by_id_.push_back(g.get());
    }
    return g.get();
  }
  Group* ById(int id) {
    std::lock_guard<std::mutex> lock(mu_);
    return id >= 0 && id < static_cast<int>(by_id_.size()) ? by_id_[static_cast<size_t>(id)] : nullptr;
  }
  // Every group's waits count again (after a failed run of every rank, none waiting).
  void MendAll() {
    std::lock_guard<std::mutex> lock(mu_);
    broken_ = false;
    for (Group* g : by_id_) g->barrier.Mend();
  }
  // Every group's waits, now and later, return false (a rank failed).
  void BreakAll() {
    std::lock_guard<std::mutex> lock(mu_);
    broken_ = true;
    for (Group* g : by_id_) g->barrier.Break();
  }

 private:
  std::mutex mu_;
  std::map<std::pair<int, int>, std::unique_ptr<Group>> by_split_;
  std::vector<Group*> by_id_;
  bool broken_ = false;
};

inline Groups& AllGroups() {
  static Groups groups;
  return groups;
}

// A group's handle for its member at `index` (at most kGroupRanks members), as the bits of an
// ncclComm_t: apart from the world's rank tokens (0x1000 + rank) and another GPU's (projection.h).
constexpr uintptr_t kGroupTokenBase = 0x200000;
constexpr int kGroupRanks = 64;
inline uintptr_t GroupToken(int id, int index) {
  return kGroupTokenBase + static_cast<uintptr_t>(id) * kGroupRanks + static_cast<uintptr_t>(index);
}
// Whether `token` is a group's handle: then its group's id and the index in it.
inline bool IsGroupToken(uintptr_t token, int* id, int* index) {
  if (token < kGroupTokenBase || token >= kGroupTokenBase + (uintptr_t{1} << 24)) return false;
  *id = static_cast<int>((token - kGroupTokenBase) / kGroupRanks);
  *index = static_cast<int>((token - kGroupTokenBase) % kGroupRanks);
  return true;
}

}  // namespace cuco_program::emu
