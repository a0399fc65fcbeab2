// How the iteration uses each buffer, for cuco init's binding (init_bind_buffers.h): the code whose
// accesses are the iteration's, and those accesses summed up per buffer, in main's terms, each
// helper call followed into the helper (loop_accesses.h) and each swapped pointer named by what it
// holds when the iteration starts (swaps.h).
#pragma once

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "scaffold/init_find_loop.h"
#include "scaffold/loop_choice.h"
#include "scaffold/program_facts.h"
#include "scaffold/program_files.h"
#include "scaffold/projection.h"
#include "scaffold/swaps.h"

namespace cuco::scaffold_internal {

// The code whose accesses are the iteration's: the loop served (and its lambdas), or, when it
// launches CUDA graphs the program captured its communication into, the loop that captured them,
// whose buffers are then bound by copy (a graph keeps the pointers it was captured with).
struct IterationCode {
  size_t begin = 0, end = 0;  // the loop (or the capturing loop) in f.raw
  std::string walked;         // its text, after main's lambdas it calls
  bool by_copy = false;
  std::vector<std::pair<int, int>> ranges;  // BoundBuffers::ranges
};

// The iteration's code; `guesses` gets the line saying so where it is a capturing loop.
IterationCode IterationCodeOf(const ProgramFacts& f, const FoundLoop& found, std::vector<std::string>* guesses);

// The iteration's accesses, summed up per buffer (named as when the iteration starts; "@" the index
// of a per-GPU array): a buffer whose first access is a read is an input, one whose last access is a
// write an output.
struct BufferUse {
  std::vector<std::string> order;  // first access first
  std::map<std::string, bool> first_read, last_write;
  // Buffers whose first access writes only part of them, past their start (a halo row's receive),
  // with its line: first_read holds true for them, as the rest is what they held.
  std::map<std::string, int> partly_written_first;
  std::set<std::string> written, written_always;  // written at least once (outside every `if`, on every rank)
  std::set<std::string> written_by_root;          // written by a reduce or gather, which only its root writes
  std::map<std::string, std::vector<int>> read_lines, write_lines;  // the loop function's lines of each
  std::vector<IfElseArms> arms;  // the loop's `if` ... `else`s
  std::set<std::string> unnamed;
  std::map<std::string, int> copied_out;  // copied to the host after the loop (or to a host array read after it), at that line
  std::map<std::string, int> read_back;   // last accessed by a copy to the host in the iteration, at that line
  std::vector<Swap> swaps;
  std::map<std::string, std::set<std::string>> datatypes;  // the NCCL datatypes the iteration's collectives move each as
  // Last written in an arm of an `if` ... `else` that no later code of the iteration touches it after:
  // a rank taking that arm ends the iteration with that write (`if (rank == 0) { send(a); recv(b); }
  // else { recv(b); send(b); }`: rank 0's `b` is what it received), whatever the other arm does last.
  std::set<std::string> last_written_in_an_arm;
  // Whether the iteration's last access of `b` is a write, on some rank.
  bool LastWritten(const std::string& b) const {
    const auto it = last_write.find(b);
    return (it != last_write.end() && it->second) || last_written_in_an_arm.count(b);
  }
  // Written only in one arm of an `if` ... `else` and read only in the other (`if (rank == 0)
  // recv(b); else send(b);`): one rank's only access is the write, another's the read.
  bool EitherSide(const std::string& b) const {
    const auto w = write_lines.find(b), r = read_lines.find(b);
    if (w == write_lines.end() || r == read_lines.end()) return false;
    auto all_in = [](const std::vector<int>& lines, const std::pair<int, int>& range) {
      return std::all_of(lines.begin(), lines.end(), [&](int l) { return l >= range.first && l <= range.second; });
    };
    for (const IfElseArms& a : arms)
      if ((all_in(w->second, a.then_lines) && all_in(r->second, a.else_lines)) ||
          (all_in(w->second, a.else_lines) && all_in(r->second, a.then_lines)))
        return true;
    return false;
  }
};

// Buffers the loop's function copies to the host after the loop (its own check or checksum): what the
// program consumes at the end, so an output of the iteration when the iteration writes it. So are
// those the iteration copies to a host array the function reads after the loop (a result copied back
// every pass and written to a file at the end). Each with the line of the copy.
std::map<std::string, int> CopiedOut(const ProgramFacts& f, const FoundLoop& found, const DeviceIndexing& per_gpu);

// The iteration's accesses of `code`, walked in the text's order (main's ops, and main's lambdas it
// calls), summed up per buffer.
BufferUse UseOf(const ProgramFacts& f, const std::vector<ProgramFile>& other_files, const FoundLoop& found,
                const IterationCode& code, const DeviceIndexing& per_gpu);

}  // namespace cuco::scaffold_internal
