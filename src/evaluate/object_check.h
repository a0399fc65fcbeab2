// Object checks: after a candidate's translation unit is compiled (before linking), what its
// object file defines and runs at load, read with binutils (readelf; nm -l for lines).
//
// Hygiene, like the deny-list (the supervisor process and the sandbox are the wall): it names the
// symbol interposition, run-time lookups and load-time code that the token scan may have missed.
// What it cannot see: a candidate that finds a function by scanning memory from a pointer it holds
// legitimately (into libc, say) needs no name at all; what such a call can do is the sandbox's to
// bound (docs/workload-contract.md).
#pragma once

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "util/status.h"

namespace cuco {

struct ObjectFinding {
  std::string symbol;  // demangled where it is C++
  std::string what;    // e.g. "defines the C-linkage symbol", "runs at load (.init_array entry)"
  std::string where;   // "file:line" from nm -l (debug info), or ""
};

// All findings for `object_path` (an ELF relocatable object of one candidate translation unit).
// Rejected:
//  - global or weak definitions (functions and data) with unmangled names, i.e. C linkage or
//    global-scope variables (write, ncclAllReduce, cudaEventElapsedTime, environ, ...), except
//    the compiler's own DW.ref.* personality references;
//  - GNU indirect functions (STT_GNU_IFUNC);
//  - replacements of the global operator new / delete;
//  - strong (GLOBAL) C++ definitions in std, __gnu_cxx, __cxxabiv1, __gnu_debug, cuco,
//    cuco_frozen, cuco_harness, cuco_program, cub, thrust; weak / unique ones (COMDAT template instances and
//    inline functions the headers emit) are allowed, and so are the header kernels of cuco that
//    nvcc emits strong together with their __device_stub__;
//  - references to the dynamic loader's lists and lookups, through which any function can be found
//    at run time whatever the deny-list saw: _r_debug (and so link_map), _DYNAMIC, __ehdr_start,
//    dl_iterate_phdr, dlopen, dlsym, dlvsym, dladdr, dlinfo, getauxval, the driver entry-point
//    lookups (cuGetProcAddress, cudaGetDriverEntryPoint), ...;
//  - entries of .init_array / .fini_array / .preinit_array / .ctors / .dtors (any priority
//    suffix), named by the function they point to, except nvcc's fatbinary registration
//    (`__sti____cudaRegisterAll`) when language is "cuda" and the translation unit's dynamic
//    initialisation (`_GLOBAL__sub_I_...`), which is followed instead (object_init_check.h: it may
//    construct objects of the standard library's and cuco's types, never run the candidate's own
//    code or any other library's); and .init / .fini sections.
// Candidate functions in the global namespace (cuco_candidate_setup/run/teardown, kernels and
// their stubs) and everything of internal linkage are allowed, and so are the unmangled names in
// `own.names` (the user's program's own globals, such as `pthread_barrier_t barrier;` at file
// scope), each with the kind (function or data) it has there. A static initialiser or destructor
// may run the functions of `own.frozen_functions` (the program's frozen code, object_init_check.h).
// An error status (Unavailable) when readelf or objdump is missing, cannot read the file or is
// stopped by a signal: no finding, and no verdict on the candidate (the cascade leaves it pending).
// The candidate's file as its object's line table names it, and the lines of its EVOLVE blocks
// (markers included). Text outside them is every candidate's, byte for byte (the scan checks it;
// its blocks may not #include, #line, or #define what frozen text uses): a candidate function with
// a line there and none inside a block is that text compiled, the program's frozen code (the
// destructor of a class main's file defines, run at exit for `Grid grids[3];`: wave3d).
struct FrozenLines {
  std::string file;
  std::vector<std::pair<int, int>> evolve;  // [first, last]
  // Whether code of `lines` ((file, line) pairs, objdump -l) is frozen text by the rule above.
  bool Frozen(const std::vector<std::pair<std::string, int>>& lines) const;
};

// The FrozenLines of the candidate file at `source` (as compiled); none (empty file) where it
// cannot be read or split.
FrozenLines FrozenLinesOf(const std::string& source);

// What a workload's frozen reference object (the user's program as cuco init wrote it, trusted and
// never the candidate's) says the candidate may define or run because the program does.
struct ProgramOwn {
  // Its unmangled global definitions (file-scope variables, C-linkage functions), each as
  // "FUNC name" or "OBJECT name": a candidate defines these only because the program does. Never
  // included: names starting with '_' (the implementation's), DW.ref.* and names starting with
  // "cuco" (cuco's own).
  std::set<std::string> names;
  // The mangled names of the functions it defines, not templates' instances, whose line table
  // places them in a file of the reference's own folder other than the reference itself: the
  // workload's headers, which no candidate writes, so a candidate defining one of these names has
  // the same definition (a second would not compile; its blocks may not #include, #line, or #define
  // what frozen text uses). `data::Field::~Field()` of a global `Field x;` is one.
  std::set<std::string> frozen_functions;
  // Set per candidate (not from the reference): its own file's frozen lines, whose functions a
  // static initialiser or destructor may run as it may run frozen_functions.
  FrozenLines candidate_lines;
};

Result<std::vector<ObjectFinding>> InspectCandidateObject(const std::string& object_path, const std::string& language,
                                                          const ProgramOwn& own = {});

// Ok, or InvalidArgument "display_path[:line]: the compiled candidate <what> '<symbol>', which
// candidates may not do (N more)" for the first finding. language: "cuda" or "cpu".
Status CheckCandidateObject(const std::string& object_path, const std::string& language,
                            const std::string& display_path, const ProgramOwn& own = {});

// ProgramOwn of the reference object compiled from `reference_source` (frozen_functions needs its
// line table: the builder compiles it with -g1). Unavailable as InspectCandidateObject.
Result<ProgramOwn> ProgramOwnOf(const std::string& reference_object, const std::string& reference_source);

}  // namespace cuco
