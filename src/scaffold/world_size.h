// How many ranks a program runs with, guessed from its text, with the place the guess came from.
//
// Contract: GuessWorldSize tries, in order, (1) a check of a world-size variable against a number
// (`world_size != 2`, `2 == nranks`, value 2..4096, each side a whole operand: not
// `argc - 3 != nDev`), (2) a non-option constant named like a world size (value 1..4096), (2b) the
// rank count NCCL is given, a number or a variable set once to one (`int nGPUs = 4;
// ncclCommInitAll(comms, nGPUs, devs)`, value 1..4096; fixed, like (2)), (3) a
// launch line in the program's code, a string it prints say (`mpirun -np 4`, `srun -n 4`, value
// 1..4096), never in a comment; the first that fits wins. Otherwise 2 with an empty source. `code`
// is the comment-stripped text (StripComments) of `raw`.
#pragma once

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "scaffold/constants.h"

namespace cuco::scaffold_internal {

struct WorldGuess {
  int size = 2;
  std::string source;  // "program.cu:12: `world != 4`"; "" for the default
  bool fixed = false;  // from the program's own constant (`const int nranks = 2;`): it runs at no other count
  int least = 1;       // the fewest ranks it runs at (LeastWorldForNamedRanks): fewer are not verified
};

// The variables MPI_Comm_size(c, &x) and ncclCommCount(c, &x) write (members: the last name), and
// the one a program driving every GPU gives ncclCommInitAll as its rank count (`ncclCommInitAll(comms,
// NG, devs)`: its GPU count, which an option may set).
std::set<std::string> WorldSizeVariables(const std::string& code);

// The variables cudaGetDeviceCount(&x) writes (members: the last name): rank counts of a program one
// process runs on every GPU, which the harness tells the rank count there (impl/projection.h).
std::set<std::string> DeviceCountVariables(const std::string& code);

WorldGuess GuessWorldSize(const std::string& raw, const std::string& code, const std::string& file,
                          const std::vector<FoundConstant>& constants, const std::set<std::string>& world_vars);

// For a program whose main file names no rank count: a constant named like a world size in one of
// its other files (`files`: name and comment-stripped text, the sources and own headers, in order),
// such as a header's `#define GPU_COUNT 2`, that the program names besides its definition (in
// `main_code` or `files`); the first found, fixed (the program runs at no other count). The
// default (2, empty source) when none.
WorldGuess WorldSizeInOtherFiles(const std::string& main_code, const std::vector<std::pair<std::string, std::string>>& files,
                                 const std::set<std::string>& world_vars);

// The least rank count the program's own calls need, where it names no count: a peer or root of an
// NCCL call that is a number, a constant, or a variable main sets only to numbers, the largest
// counting (`int root = 4; ... ncclSend(buf, n, ncclFloat, root, comm, s)` needs 5 ranks; a peer set
// to 14 in one branch by rank and to 0 in the other needs 15). `ranks`: each call's peer or root
// text, with the call's name and line. The default (2, empty source) when none needs more than 2;
// `least` is the most any needs all the same (rank 1 named: 2, never verified at one rank). The last
// rank (`size - 1`, or a variable set only to it, with `size` one of `world_vars`) needs 2 as well:
// at one rank it is rank 0 itself (Blink-GPU's ping-pong, `rank2 = size - 1`, sent to from rank 0).
struct NamedRank {
  std::string text, call;
  int line = 0;
};
WorldGuess LeastWorldForNamedRanks(const std::string& code, const std::string& file, const std::vector<FoundConstant>& constants,
                                   const std::vector<NamedRank>& ranks, const std::set<std::string>& world_vars = {});

// A rank count the program reads from its command line, given with `cuco init --args`: a variable
// named like one (IsWorldName), or given to ncclCommInitRank as its rank count (GivenToNcclAsTheRankCount:
// `nThreads`, a thread's `gInfo.nDev`), assigned from `atoi(argv[k])` or its kin (`num_gpus = argc > 2 ?
// atoi(argv[2]) : 3;`, `int ngpus = atoi(argv[1]);`), and the k-th argument given a whole number
// 1..4096. `position` 0 when there is none. For a program one process runs on every GPU, where that
// count is the harness's rank count: the harness passes its own there.
struct ArgumentWorld {
  int position = 0;  // k of argv[k]
  WorldGuess guess;  // the argument given, and where (`file:line: `num_gpus` from argv[2], given 2`)
  std::string flag;  // WorldFromOption, not given: the option the harness passes its rank count with
  std::string variable;  // WorldFromArguments: the variable assigned (`num_gpus`)
};
ArgumentWorld WorldFromArguments(const std::string& code, const std::string& file, const std::vector<std::string>& args,
                                 const std::set<std::string>& world_vars);

// A mesh of two arguments checked against the rank count (`if (gridWidth * gridHeight != numRanks)`,
// both read as `atoi(argv[k])`, HALO_NCCL_lib's halo test), given as numbers in `args`: their
// product is the only rank count the program runs at (fixed). Nothing where either is not given so.
WorldGuess WorldFromArgumentMesh(const std::string& code, const std::string& file, const std::vector<std::string>& args,
                                 const std::set<std::string>& world_vars);

// The same for a GPU count read as an option with a default (`get_int_arg(argc, argv, "--ngpus", 2)`:
// a FoundConstant named like a rank count): given in `args` (`--ngpus 4`), the position of its value;
// else its default as the guess and the option as `flag`. Nothing when the program has no such option.
// `variable` is compared for equality with a rank count the program asks MPI or NCCL for
// (`if (num_pes != num_gpus)`, world_vars): in a program of one process a GPU too, a GPU count from
// the arguments is then the rank count as well.
bool ComparedWithTheRankCount(const std::string& code, const std::string& variable, const std::set<std::string>& world_vars);

// Whether `variable` is the rank count the program gives ncclCommInitRank (its second argument),
// itself or stored in a member given there (`gInfo.nDev = nThreads;`): a count read from the
// arguments of a program bootstrapping without MPI (`int nranks = atoi(argv[2]);`) is then the rank
// count, which the harness passes.
bool GivenToNcclAsTheRankCount(const std::string& code, const std::string& variable);

ArgumentWorld WorldFromOption(const std::vector<FoundConstant>& constants, const std::string& file,
                              const std::vector<std::string>& args, const std::set<std::string>& world_vars);

// The rank counts among `candidates` the program refuses itself, each with where: an `if` whose
// condition is comparisons (==, !=, <, >, <=, >=; joined by ||) of integer expressions over
// world-size variables and literals (`nranks != 2`, `world % 2 != 0`), and whose statement ends the
// program (exit, abort, MPI_Abort, return, throw). A condition naming anything else is not read.
// `code` is the comment-stripped text.
std::map<int, std::string> RefusedWorldSizes(const std::string& code, const std::string& file,
                                             const std::set<std::string>& world_vars, const std::vector<int>& candidates);

// For a program naming no rank count (`guess`, the default 2 with no source): where the program
// refuses 2 ranks itself (RefusedWorldSizes: `if (worldSize < 3) return 1;`), the fewer of 4 and 8
// it does not refuse, the refusal its source; `guess` otherwise.
WorldGuess FewestNotRefused(const std::string& code, const std::string& file, const std::set<std::string>& world_vars,
                            const WorldGuess& guess);

}  // namespace cuco::scaffold_internal
