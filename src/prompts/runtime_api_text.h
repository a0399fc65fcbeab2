// Runtime API text: what a model is told about cuco's own runtime headers.
//
//  - the candidate contract: the frozen interface a candidate implements (cuco/harness.h for
//    CUDA, cuco/cpu_harness.h for CPU), as the header's leading comment plus its public
//    declarations with their comments, harness-side members dropped; a built-in summary stands in
//    when the header cannot be read;
//  - the cuco/codesign building blocks' API (runtime/include/cuco/codesign/*.h), as declarations.
// The runtime folder is $CUCO_RUNTIME_DIR, else a checkout around the running binary, else the
// source tree. Reads files only; never fails beyond a NotFound for an unreadable contract.
#pragma once

#include <cstddef>
#include <string>

#include "util/status.h"

namespace cuco {

// The candidate contract of a harness header (cuco/harness.h or cuco/cpu_harness.h): its leading
// comment and its public declarations with their comments; harness-side members dropped.
std::string CandidateContractText(const std::string& harness_header_text);

// Reads the contract for a workload language ("cuda": harness.h, "cpu": cpu_harness.h) from the
// runtime folder: $CUCO_RUNTIME_DIR, a checkout around the running binary, or the source tree.
Result<std::string> LoadCandidateContract(const std::string& language);

// A built-in summary of cuco/harness.h, for when the header cannot be read.
std::string BuiltinCandidateContractText();

// The API text of the cuco/codesign building blocks (runtime/include/cuco/codesign/*.h) when the
// runtime has them; "" otherwise. At most max_chars.
std::string LoadCodesignApiText(size_t max_chars = 12000);

}  // namespace cuco
