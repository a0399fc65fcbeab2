// The design-space tables of workload.toml, read by LoadWorkload (workload_config.h): [[knobs]]
// (each knob's name, values and default), [[variants]] (named points `cuco bench` runs, parts of
// the overlap bound among them) and [[excluded]] (settings of several knobs that cannot run
// together: a search never evaluates a candidate that has them all). Errors name the file and line.
#pragma once

#include <string>
#include <vector>

#include <toml++/toml.h>

#include "util/status.h"
#include "workload/workload_config.h"

namespace cuco {

Status ParseKnobs(const toml::node& knobs_node, const std::string& path, std::vector<Knob>* out);
// Each variant's knob settings must be declared knobs and values.
Status ParseVariants(const toml::node& node, const std::string& path, const std::vector<Knob>& knobs,
                     std::vector<Variant>* out);
// Each exclusion names at least two declared knobs with one of their values, and why.
Status ParseExclusions(const toml::node& node, const std::string& path, const std::vector<Knob>& knobs,
                       std::vector<KnobExclusion>* out);

}  // namespace cuco
