// `cuco transform --llm`: the LLM-driven fast path (llm_transform.h) run against the real cascade
// and store. The models come from a run config (docs/llm.md): the endpoints of
// [[proposer.llm.endpoints]] or [[llm.endpoints]], and an optional [transform] table:
//   writer = "<endpoint name>"   (default: the first endpoint)
//   judge = "<endpoint name>"    (default: the writer's endpoint)
//   max_iterations = 4, max_llm_calls = 40, max_dollars = 10.0
// Every attempt (failures, malformed answers and stage-check failures included) is stored; the
// accepted code is written to Generation0File() and accepted by AcceptGeneration0's rule.
#pragma once

#include <string>

#include "transform/generation0.h"

namespace cuco {

// No config (or no endpoint in it) is Unavailable: no LLM is configured.
Result<Generation0Report> MakeLlmGeneration0(const WorkloadConfig& workload, const Toolchain& toolchain,
                                             const Generation0Options& options, const std::string& config_path);

}  // namespace cuco
