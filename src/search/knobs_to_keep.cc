#include "search/knobs_to_keep.h"

#include <algorithm>
#include <regex>

namespace cuco {

std::map<std::string, std::string> KnobsToKeep(const Population& pop, const std::vector<Knob>& knobs) {
  static const std::regex kKeep(R"(keep ([A-Za-z_][A-Za-z0-9_]*) = \"([^\"]*)\")");
  std::map<std::string, std::string> keep;
  for (const auto& [id, c] : pop.all()) {
    if (!c.Failed()) continue;
    for (std::sregex_iterator it(c.rec.feedback.begin(), c.rec.feedback.end(), kKeep), end; it != end; ++it) {
      const std::string name = (*it)[1], value = (*it)[2];
      const auto knob = std::find_if(knobs.begin(), knobs.end(), [&](const Knob& k) { return k.name == name; });
      if (knob == knobs.end() || !knob->search ||
          std::find(knob->values.begin(), knob->values.end(), value) == knob->values.end())
        continue;
      auto c_value = c.knobs.find(name);
      if (c_value != c.knobs.end() && c_value->second != value) keep.emplace(name, value);  // the first one says
    }
  }
  // What has passed with another value is not ruled out.
  for (const auto& [id, c] : pop.all()) {
    if (!c.Ok()) continue;
    for (auto it = keep.begin(); it != keep.end();) {
      auto v = c.knobs.find(it->first);
      it = v != c.knobs.end() && v->second != it->second ? keep.erase(it) : std::next(it);
    }
  }
  return keep;
}

std::map<std::string, std::vector<std::string>> WithKeptKnobs(std::map<std::string, std::vector<std::string>> allowed,
                                                              const std::map<std::string, std::string>& keep) {
  for (const auto& [name, value] : keep) {
    auto it = allowed.find(name);
    if (it == allowed.end()) {
      allowed[name] = {value};
    } else if (std::find(it->second.begin(), it->second.end(), value) != it->second.end()) {
      it->second = {value};
    }
  }
  return allowed;
}

}  // namespace cuco
