// cuco init's fourth pass, project: the program's files as the harness holds them. main's file as
// rewritten (init_rewrite_main.h), its other source files with `#include <mpi.h>` spelled
// `#include <cuco/program/mpi.h>`, its own headers likewise (copied beside seed.cu). A program driving
// every GPU from one process (FoundLoop::projected) is run one GPU per rank (projection.h): its
// kernel launches are guarded (each rank launches only on its own GPU), a thread per GPU's
// std::thread becomes cuco_program::rank_thread, and the text after the harness's header defines
// CUCO_PROGRAM_PROJECTED (and CUCO_PROGRAM_THREADS) and guards the calls it makes.
//   ProjectionRefusal  what projection cannot run (a copy between GPUs outside NCCL, a guarded call
//                      qualified with `::`): checked by the first pass, before a loop is looked for.
// Contract: pure functions of their arguments. Project returns kInvalidArgument naming file:line
// when main's file has a launch that cannot be guarded; a lambda's or another file's such launch is
// kept in its ProjectedText::status, which the render pass reports when it uses that text (in the
// order it uses them). `trace` gets each file and what was done to it.
#pragma once

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "scaffold/init_find_loop.h"
#include "scaffold/init_rewrite_main.h"
#include "scaffold/init_trace.h"
#include "scaffold/program_facts.h"
#include "scaffold/program_files.h"
#include "util/status.h"

namespace cuco::scaffold_internal {

struct ProjectedText {
  std::string name;  // the program's file name; a lambda's name for main's lambdas
  std::string text;
  Status status;     // not ok: its launches could not be guarded (then `text` is empty)
};

struct ProjectFiles {
  std::string main_text;               // main's file, rewritten and projected
  std::vector<ProjectedText> lambdas;  // main's lambdas the loop calls (FoundLoop order), as main_text holds them
  std::vector<ProjectedText> sources;  // the program's other source files, in their order
  std::vector<std::pair<std::string, std::string>> headers;  // its own headers: name -> text
  bool own_blocks = false;             // a file of the program marks its own EVOLVE blocks
  std::string defines;                 // the #defines before the harness's header
  std::string seed_guards, reference_guards;  // the text after it, each side's (projected programs)
};

// A C file of the program (`.c`) that clang, parsing it as C++, found an error in (`int* p =
// malloc(n)`, a struct's enumerators named bare): the harness is one C++/CUDA unit, where it does not
// build. The reason names the file, the line and clang's message.
Status CSourcesRefusal(const ProgramFacts& f);

// An MPI program whose processes each start threads that make NCCL ranks (ProgramFacts::rank_threads):
// refused, the start and the MPI_Init named.
Status RankThreadsRefusal(const ProgramFacts& f);

// One thread making every GPU's NCCL rank outside a group (ProgramFacts::ungrouped_rank_inits): the
// program hangs as written; refused, saying how to write it so that it runs (and becomes a harness).
Status UngroupedRankInitsRefusal(const ProgramFacts& f);

Status ProjectionRefusal(const ProgramFacts& f, const std::vector<ProgramFile>& other_files, const std::string& all_code);

// `open_records`: the classes and structs whose members main binds (BoundBuffers::member_records),
// their members made public in every copied file (OpenRecords).
Result<ProjectFiles> Project(const ProgramFacts& f, const std::vector<ProgramFile>& other_files, const FoundLoop& found,
                             const RewrittenMain& main, InitPassTrace* trace,
                             const std::set<std::string>& open_records = {});

}  // namespace cuco::scaffold_internal
