// Several GPUs per process at a fixed count (NCCL's "multiple devices per process": `int nDev = 2;`,
// then `ncclCommInitRank(comms + i, nRanks * nDev, id, myRank * nDev + i)` for each of them in a
// group): the harness runs one GPU per rank, so it starts such a program with one GPU per process.
// The count's literal reads 1 in the text the harness is made from; the copy of the program that
// program mode runs keeps its own. The NCCL ranks are then the processes, as the program's own
// arithmetic (`nRanks * 1`, `myRank * 1 + 0`) says.
// Contract: pure functions of their arguments. Only a program of a process per rank (launcher
// mpirun or cuco) whose ncclCommInitRank both counts and numbers its ranks by the same variable of
// main, declared once with an integer literal of 2 or more, is pinned.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "scaffold/program_facts.h"

namespace cuco::scaffold_internal {

struct GpusPerProcess {
  std::string var;  // "nDev"
  int64_t count = 0;  // the program's own count (2)
  int line = 0;       // of the declaration, in f.file
  size_t digits = 0;  // offset of the literal's digits in f.raw (and f.code)
  size_t length = 0;  // their length
};

// The fixed GPU count per process of the program `f`, or nullopt (see the contract).
std::optional<GpusPerProcess> FixedGpusPerProcess(const ProgramFacts& f);

// `f` with the count's literal 1 (the digits padded with spaces: every offset and line kept) and
// the defaults main reads recomputed.
ProgramFacts WithOneGpuPerProcess(const ProgramFacts& f, const GpusPerProcess& g);

// The harness's guess line for the README and `cuco init --explain`.
std::string OneGpuPerProcessGuess(const ProgramFacts& f, const GpusPerProcess& g);

}  // namespace cuco::scaffold_internal
