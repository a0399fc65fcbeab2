// Everything cuco init learns about a program before it writes a file: the guesses (world size,
// launcher, libraries, output regexes, constants, the iteration and its buffers, the datatype)
// with where each came from, and the TODO lines the user must act on. The file generators
// (program_toml.h, harness_toml.h, seed_cu.h, reference_cu.h, harness_readme.h) read only this.
//
// Contract: GatherFacts is a pure function of the analysis and the program's text; `file` is
// the program's file name as guesses cite it ("program.cu:12: ..."); `analysis` must outlive
// the result. The launcher is "mpirun" when the program calls MPI_Init (or MPI_Init_thread),
// "single" when one process drives every GPU (ncclCommInitAll, ncclCommInitRank in a group, a
// thread per GPU), else "cuco"; libs are in link order (cublasLt, cublas, nccl, nvshmem, mpi), nccl always.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "analyze/analysis.h"
#include "scaffold/constants.h"
#include "scaffold/iteration_io.h"
#include "scaffold/loop_choice.h"
#include "scaffold/output_regex.h"
#include "scaffold/prints.h"
#include "scaffold/program_files.h"
#include "scaffold/world_size.h"

namespace cuco::scaffold_internal {

struct ProgramFacts {
  std::string file;      // the program's file name ("program.cu")
  std::string name;      // program-mode workload name
  std::string raw, code; // the program; the program without comments (nor what this build skips)
  // The program's other source files: (file name, text without comments nor what this build skips).
  std::vector<std::pair<std::string, std::string>> other_code;
  // The program's own headers (program_files.h): (name, text without comments nor what this build skips).
  std::vector<std::pair<std::string, std::string>> header_code;
  const Analysis* analysis = nullptr;
  std::map<std::string, int> called;  // identifiers called (`f(` or `k<<<`) -> first line
  WorldGuess world;
  std::string launcher, launcher_source;  // "mpirun" | "single" | "cuco", and why
  bool launcher_reads_rank = false;        // "cuco": the program reads RANK / CUCO_RANK & co.
  // "mpirun" whose processes each start threads that make NCCL ranks ("file:line: what"), "" else:
  // ranks in threads of several processes, which no launcher of the harness runs.
  std::string rank_threads;
  // No MPI and no threads, and ncclCommInitRank making one GPU's communicator of several
  // (`&comms[r]`) outside ncclGroupStart/End ("file:line: ..."), "" else: one thread making every
  // rank, which real NCCL never completes (its first call waits for the ranks not made yet).
  std::string ungrouped_rank_inits;
  std::pair<std::string, int> thread_start;  // "single" for its threads: where they start (file, line)
  std::vector<std::string> libs;
  std::vector<std::string> build_sources;  // program mode [build] sources: the program's other files
  std::vector<std::string> build_flags = {"-O3"};  // [build] flags: -O3, then the program's own (ScaffoldOptions)
  std::vector<FoundConstant> constants;
  std::set<std::string> world_vars;
  std::vector<PrintCall> prints;
  std::optional<RegexGuess> time, pass, fail;
  std::vector<int> iteration;
  IoGuess io;
  std::string dtype = "kF32";  // of the communicated data
  std::vector<std::string> collectives;  // "ncclReduceScatter (program.cu:145)"
  std::vector<std::string> env_reads;    // getenv names
  std::vector<std::string> todos;
  // Pointers the program (headers too) stores its own functions in, each with those stored
  // (function_pointers.h): a call through one is followed into them.
  std::map<std::string, std::vector<std::string>> pointer_targets;
  bool has_main = true;
  // The program seen from another of its source files, which holds the timed loop (served_file.h):
  // the function there that main calls once stands for main, `file` is that file, whose path as the
  // analysis names it is `path` and whose name in the harness's unit is `unit_name`, and
  // main_takes_args says main's own signature. "main", "", "" where `file` is main's.
  std::string entry = "main";
  std::string path, unit_name;
  bool main_takes_args = true;
  int forced_loop_line = 0;  // `cuco init --loop FILE:LINE`: the loop to serve, in `file` ...
  std::string forced_loop_file;  // ... or in this other source file of the program (served_file.h)
  std::string forced_loop_why;   // why init served forced_loop_line itself; "" where --loop named it
  std::vector<std::string> program_args;  // `cuco init --args`: what the program is started with
  bool rank_alone_arguments = false;  // program_args are RankAloneArguments', not --args: the program
                                      // reads only its rank from the command line, with no default
                                          // (set with SetProgramArguments, never alone)
  std::vector<std::string> arguments_missing;  // what main stops without that program_args lacks
                                              // (ArgumentsMissing), a line each; program mode's TODOs
  ProgramDefaults run_defaults;  // DefaultsOf(code, {}, program_args): what main reads as the harness starts it
  int world_argument = 0;  // > 0: argv[k] given is the GPU count of a program one process runs on
                           // every GPU (WorldFromArguments), or one an MPI program checks against its
                           // rank count (ComparedWithTheRankCount): the harness passes its rank count there
  int rank_argument = 0;  // > 0: argv[k] given is the program's rank (RankFromArguments): the
                          // harness passes each rank's own there
  std::string world_option;  // the GPU-count option such a program reads with a default and was not
                             // given (`--ngpus`, WorldFromOption): the harness passes its rank count with it
};

// `files`: the program's other files as CollectProgramFiles found them (the sources among them are
// other_code, the headers header_code; each read through the analysis's inactive lines by its path).
ProgramFacts GatherFacts(const Analysis& analysis, const std::string& file, const std::string& name,
                         const std::string& raw, const std::vector<ProgramFile>& files = {});

// Sets the arguments the program is started with and the defaults main reads under them.
void SetProgramArguments(ProgramFacts* f, std::vector<std::string> args);

// Adds to `libs` (GatherFacts' guess from the calls) each library of the user's build line that is
// not there yet, except those the harness answers itself: MPI (cuco/program/mpi.h), NCCL (linked
// always) and the CUDA runtime (nvcc's own).
// The text of the program's source file `file` (a file name, as SourceFileName gives it): main's
// file as written (f.raw), another source without its comments (f.other_code); nullptr for neither.
const std::string* SourceText(const ProgramFacts& f, const std::string& file);

// Whether clang's first error in one of the program's files (`error`, "path:line: error: ...", `text`
// that file) is one nvcc would make too, so that the user's build line fails: not a name clang finds
// undeclared that is no CUDA, NCCL, MPI or library API (nvcc's implicit cuda_runtime.h brings C's
// headers, `strstr` say), not in namespace std, not on a line launching a kernel (`<<<grid, {bx, by,
// 1}>>>`, which clang refuses). ProgramFacts' todos name each file with such an error.
bool NvccWouldFailToo(const std::string& error, const std::string& text);

void AddBuildLineLibraries(const std::vector<std::string>& build_line_libs, std::vector<std::string>* libs);

// `text`, the file `path` of the analysis, with the lines the preprocessor skips in this build
// (Analysis::inactive_lines) blanked: they are not the program's.
std::string WithoutInactiveLines(const Analysis& analysis, const std::string& path, std::string text);

// Line of the first call of a name starting with `prefix` (the name in *which); 0 when none.
int FirstCall(const ProgramFacts& f, const std::string& prefix, std::string* which = nullptr);

}  // namespace cuco::scaffold_internal
