// cuco/program/impl/mpi_groups.h: the groups of cuco's MPI stand-in (cuco/program/mpi.h) and the
// communicators made of them. A group is a list of world ranks, named by its index here (one table
// per process: a candidate rank's own, or the reference's, which its rank threads share). A
// communicator is the world (MPI_COMM_WORLD, a duplicate, a split by one color), MPI_COMM_NULL, or
// kGroupComm + a group holding some ranks but not all: its rank and size are answered, and mpi.h
// refuses a collective on it with a message, since the stand-in's collectives span the world.
#pragma once

#include <algorithm>
#include <mutex>
#include <vector>

namespace cuco_program::mpi {

constexpr int kGroupComm = 1 << 20;  // a communicator of some ranks: kGroupComm + its group
constexpr int kSplitComm = 1 << 21;  // a part of a split every rank made: kSplitComm + the group of its ranks
constexpr int kCartComm = 1 << 22;   // the world given a Cartesian grid: kCartComm + the grid's index

// A Cartesian grid of every rank (MPI_Cart_create): its extent and periodicity in each dimension,
// ranks in row-major order.
struct Grid {
  std::vector<int> dims, periods;
};

struct GroupTable {
  std::mutex mu;
  std::vector<std::vector<int>> members;  // world ranks, by group
  std::vector<Grid> grids;
};
inline GroupTable& Groups() {
  static GroupTable t;
  return t;
}
inline int NewGroup(std::vector<int> ranks) {
  GroupTable& t = Groups();
  std::lock_guard<std::mutex> lock(t.mu);
  t.members.push_back(std::move(ranks));
  return static_cast<int>(t.members.size()) - 1;
}
// Group g's world ranks; none for a group this table never made.
inline std::vector<int> GroupRanks(int g) {
  GroupTable& t = Groups();
  std::lock_guard<std::mutex> lock(t.mu);
  return g >= 0 && g < static_cast<int>(t.members.size()) ? t.members[static_cast<size_t>(g)] : std::vector<int>{};
}
// The index of world rank `r` in group g, or -1 when it is not in it.
inline int IndexIn(int g, int r) {
  const std::vector<int> m = GroupRanks(g);
  const auto it = std::find(m.begin(), m.end(), r);
  return it == m.end() ? -1 : static_cast<int>(it - m.begin());
}
inline bool OfSomeRanks(int comm) { return comm >= kGroupComm && comm < kSplitComm; }
inline bool OfASplit(int comm) { return comm >= kSplitComm && comm < kCartComm; }
inline int NewGrid(Grid g) {
  GroupTable& t = Groups();
  std::lock_guard<std::mutex> lock(t.mu);
  t.grids.push_back(std::move(g));
  return static_cast<int>(t.grids.size()) - 1;
}
// The grid of communicator c (a copy: another rank thread may add one); no dims when c has none.
inline Grid GridOf(int c) {
  GroupTable& t = Groups();
  std::lock_guard<std::mutex> lock(t.mu);
  const int i = c - kCartComm;
  return c >= kCartComm && i < static_cast<int>(t.grids.size()) ? t.grids[static_cast<size_t>(i)] : Grid{};
}
}  // namespace cuco_program::mpi
