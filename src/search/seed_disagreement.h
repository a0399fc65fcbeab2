// What a wrong result of the program as written means: a harness cuco init made of a user's program
// has the program's own code as its seed and the same code, frozen, as its reference, so the two
// disagreeing on the same inputs is no candidate's fault. The note says what it can be and how to
// tell, for `cuco eval` and `cuco run` to print beside the record.
#pragma once

#include <string>

#include "evaluate/outcome.h"  // EvalStatus
#include "workload/workload_config.h"

namespace cuco {

// The note for an evaluation of `code` in `wl` that ended `status` (its logs in `run_dir`); "" unless
// `code` is the seed of a program harness, byte for byte as its seed file holds it, and the status a
// wrong result.
std::string SeedDisagreementNote(const WorkloadConfig& wl, const std::string& code, EvalStatus status,
                                 const std::string& run_dir);

}  // namespace cuco
