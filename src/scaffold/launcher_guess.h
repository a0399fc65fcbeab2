// How a program's processes and GPUs are launched, guessed from its text (ProgramFacts::launcher):
// MPI_Init (in main's file, its other sources, or its own headers outside an `#ifdef` naming MPI)
// means mpirun, and threads each MPI process starts that make NCCL ranks are noted
// (ProgramFacts::rank_threads: no launcher of the harness runs them); one process driving every GPU
// (ncclCommInitAll, ncclCommInitRank in a group, or a thread per GPU, wherever its sources start
// the threads) means "single"; otherwise cuco's launcher, with a TODO when the program reads no rank
// from its environment, and the environment variables it reads that are not CUCO_*.
#pragma once

#include <string>

#include "scaffold/program_facts.h"

namespace cuco::scaffold_internal {

// Sets f.launcher, launcher_source, launcher_reads_rank, rank_threads, thread_start, env_reads, and
// the TODO; reads f.analysis, f.code, f.other_code, f.header_code, f.called.
void GuessLauncher(ProgramFacts& f);

// The TODO of a program cuco's launcher starts that reads no rank from its environment: that it
// does not (`rank_argument` 0), or that it reads its rank from argv[rank_argument], which program
// mode gives every process alike. GuessLauncher writes the first; once the program's arguments are
// read, the second replaces it.
std::string ProgramModeRankTodo(int rank_argument);

}  // namespace cuco::scaffold_internal
