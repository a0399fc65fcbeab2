// When a program communicates once (no loop reaches its communication), the statements the harness
// serves whole start at the device compute producing what the communication reads: a GEMM writing
// the buffer an all-reduce then sums is the work the search overlaps with it, not set-up.
//   DeviceWorkByLine     what the compute and the communication of each line of a file read and
//                        write, from the analysis (analyze/analysis.h);
//   FeedingComputeStart  the first statement of that compute, walking back from the communication.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "analyze/analysis.h"
#include "scaffold/tokens.h"

namespace cuco::scaffold_internal {

// The device work of one line (base variables read and written).
struct LineWork {
  bool compute = false;  // a kernel launch, a GEMM, or a call of the program's function launching them
  bool comm = false;     // an NCCL call, or a call of the program's function issuing one
  std::set<std::string> reads, writes;
};

// The lines of `file` (a file name, as SourceFileName gives it) holding compute or communication.
// A function counts as compute when it launches a kernel or a GEMM, itself or through the program's
// functions it calls, and communicates nowhere.
std::map<int, LineWork> DeviceWorkByLine(const Analysis& a, const std::string& file);

// Tokens [first, last] are the statements that communicate, in the block opened at `block_open`:
// the first token of what is served whole. That is `first`, or the first of the statements right
// before it whose compute writes what the communication (or compute already taken) reads and reads
// something itself. Compute reading nothing (a fill of an input) is set-up: the harness's fresh
// inputs stand for it. Synchronisations and error checks between such statements go with them
// (cudaDeviceSynchronize, cudaStreamSynchronize, cudaGetLastError); anything else ends the walk.
size_t FeedingComputeStart(const std::vector<Tok>& t, size_t block_open, size_t first, size_t last,
                           const std::map<int, LineWork>& work);

}  // namespace cuco::scaffold_internal
