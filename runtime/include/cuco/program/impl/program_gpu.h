// The GPU a process of a user's program drives, where each process drives one (an MPI rank, a rank
// bootstrapped over TCP): the number the program first selects. In the program's own layout that
// number need not be the rank's (0 on every rank of a program written for one GPU a node, a
// `--local-gpu` flag left at its default); in the harness it stands for the rank's GPU from then on.
#pragma once

#include <atomic>

namespace cuco_program::proj {

// True when the program's `device` stands for the rank's GPU: the first number it selects, or that
// number again; false for a negative number or a second, different one (a second GPU, which the
// harness cannot place: each rank has one). `chosen` holds the first number, -1 before.
inline bool SelectsOwnGpu(std::atomic<int>& chosen, int device) {
  if (device < 0) return false;
  int first = -1;
  return chosen.compare_exchange_strong(first, device) || first == device;
}

// The process's first selected number (-1: none yet).
inline std::atomic<int> g_program_gpu{-1};

}  // namespace cuco_program::proj
