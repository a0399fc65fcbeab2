// The deny-list: APIs and constructs a candidate's EVOLVE blocks may not use, because they let
// a candidate lie to the harness (timers, events, the metrics file, exiting early, the harness's
// own symbols) or escape it (files, environment, processes, unjoined streams, loaded code, asm,
// load-time code, symbol interposition). docs/workload-contract.md lists every entry with its
// reason. The scan is hygiene, not the wall: the supervisor process and the sandbox are the wall;
// the scan turns the obvious attempts into an early, named L1 rejection.
//
// What is rejected inside EVOLVE blocks:
//  - DeniedIdentifiers() as whole tokens (not as members x.time; call-only words only when called
//    or qualified), DeniedSubstrings() of categories other than "preprocessor escapes" inside
//    string literals (adjacent literals concatenated, escapes decoded);
//  - asm / __asm / __asm__ (statements and asm labels);
//  - GNU __attribute__((...)) and [[...]] attributes that rename, place or run code at load or
//    exit (constructor, destructor, alias, ifunc, weak, weakref, section, init_priority,
//    visibility, used, retain, symver, cleanup, ...);
//  - `namespace` std / __gnu_cxx / __cxxabiv1 / cuco / cuco_frozen / cuco_harness / cub / thrust /
//    cuda (not `using namespace`), `extern "C"` (any linkage but "C++");
//  - in the raw text, after splicing lines and mapping digraphs: every directive other than
//    #define #if #ifdef #ifndef #elif #else #endif and #pragma unroll (any spacing, comments
//    between), conditionals that do not balance within their block, `##`, `_Pragma`, and a
//    #define of a name that the frozen text after the block uses.
#pragma once

#include <string>
#include <vector>

#include "util/status.h"

namespace cuco {

struct DenyHit {
  int line = 0;            // 1-based line in the candidate file
  std::string token;       // what matched
  std::string category;    // e.g. "timing and event APIs"
};

struct DenyEntry {
  std::string token;
  std::string category;
};

// The identifiers denied in code (matched as whole identifiers outside comments
// and string literals; member accesses like x.time are not matched).
const std::vector<DenyEntry>& DeniedIdentifiers();
// Substrings denied anywhere in a block, strings included (inline-asm timers...).
const std::vector<DenyEntry>& DeniedSubstrings();

// Whether `identifier` is denied as file or socket access, environment access or process control:
// what reaches past the process (the object check's rule for the program's own code run at load or
// exit, object_init_check.h).
bool ReachesPastTheProcess(const std::string& identifier);

// Scans the EVOLVE blocks of `candidate` from its raw text alone (the whole file is split first;
// tokens of block bodies are scanned after LexCpp: splices joined, digraphs mapped, literals
// lexed with prefixes and raw delimiters). Macros are not expanded. Returns all hits, in line order.
Result<std::vector<DenyHit>> ScanEvolveBlocks(const std::string& candidate, const std::string& path);

// Ok, or an error "path:line: uses 'tok' (category), which candidates may not use inside EVOLVE
// blocks" for the first hit of ScanEvolveBlocks. For callers that cannot preprocess.
Status CheckDenyList(const std::string& candidate, const std::string& path);

// The scan of the preprocessed token stream. `preprocess_argv` is the compile command of the file
// holding `candidate_text` with -E in place of `-c ... -o ...` (same -I/-D/-std flags, the source
// path last); its standard output must be `cc -E` output whose first linemarker names that file.
// Tokens whose linemarker origin is that file, at a line inside an EVOLVE block, are checked (so
// tokens that macros expand to there are checked at the invocation's line), plus the raw-text
// directive checks above. For nvcc (argv[0] named "nvcc") the device pass of `nvcc -E` and a host
// pass (the device-only __CUDA_ARCH* macros undefined through -Xcompiler=-U...) are both scanned.
// If the command cannot run (no compiler) or fails (a file that will not compile either), the
// raw scan of ScanEvolveBlocks is used instead. Each run is limited to timeout_s.
Result<std::vector<DenyHit>> ScanEvolveBlocksPreprocessed(const std::string& candidate_text,
                                                          const std::string& candidate_path,
                                                          const std::vector<std::string>& preprocess_argv,
                                                          double timeout_s);

// Ok, or the CheckDenyList-style error for the first hit of ScanEvolveBlocksPreprocessed.
Status CheckDenyListPreprocessed(const std::string& candidate_text, const std::string& candidate_path,
                                 const std::vector<std::string>& preprocess_argv, double timeout_s);

}  // namespace cuco
