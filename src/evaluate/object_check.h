// Object checks: after a candidate's translation unit is compiled (before linking), what its
// object file defines and runs at load, read with binutils (readelf; nm -l for lines).
//
// Hygiene, like the deny-list (the supervisor process and the sandbox are the wall): it names the
// symbol interposition and load-time code that the token scan may have missed.
#pragma once

#include <string>
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
//    cuco_frozen, cuco_harness, cub, thrust; weak / unique ones (COMDAT template instances and
//    inline functions the headers emit) are allowed, and so are the header kernels of cuco that
//    nvcc emits strong together with their __device_stub__;
//  - entries of .init_array / .fini_array / .preinit_array / .ctors / .dtors (any priority
//    suffix), named by the function they point to, except nvcc's fatbinary registration
//    (`__sti____cudaRegisterAll`) when language is "cuda"; and .init / .fini sections.
// Candidate functions in the global namespace (cuco_candidate_setup/run/teardown, kernels and
// their stubs) and everything of internal linkage are allowed.
// An error status (Unavailable) when readelf is missing or cannot read the file.
Result<std::vector<ObjectFinding>> InspectCandidateObject(const std::string& object_path, const std::string& language);

// Ok, or InvalidArgument "display_path[:line]: the compiled candidate <what> '<symbol>', which
// candidates may not do (N more)" for the first finding. language: "cuda" or "cpu".
Status CheckCandidateObject(const std::string& object_path, const std::string& language,
                            const std::string& display_path);

}  // namespace cuco
