// Knob values the search stops proposing: the candidate runtime ends a failure's reason with
// `keep <knob> = "<value>"` when the program cannot run any other value of that knob (the graph
// knob on an iteration that cannot be captured into a CUDA graph: iteration_graph.h). Every island
// then keeps that value, unless a candidate with another value of the knob has passed (a reason
// is the candidate's text: it cannot rule out what has been shown to work).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "search/population.h"
#include "workload/workload_config.h"

namespace cuco {

// knob -> the value to keep, from the failed candidates' feedback; declared, searched knobs and
// their declared values only.
std::map<std::string, std::string> KnobsToKeep(const Population& pop, const std::vector<Knob>& knobs);

// `allowed` (an island's restriction: knob -> allowed values) with each kept knob narrowed to its
// kept value; a restriction that excludes the kept value stays as it is.
std::map<std::string, std::vector<std::string>> WithKeptKnobs(std::map<std::string, std::vector<std::string>> allowed,
                                                              const std::map<std::string, std::string>& keep);

}  // namespace cuco
