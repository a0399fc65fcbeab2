#include "transform/annotation_check.h"

#include <vector>

#include "util/source_text.h"
#include "workload/evolve_blocks.h"

namespace cuco {


Status CheckAnnotationOnly(const std::string& original, const std::string& annotated, const std::string& path) {
  const std::string ann = NormalizeNewlines(annotated);
  auto split = SplitEvolveBlocks(ann, path, /*require_blocks=*/true);
  if (!split.ok()) return Status::InvalidArgument("the EVOLVE-BLOCK markers are malformed: " + split.status().message());
  bool holds_code = false;
  for (const EvolveBlock& b : split->blocks)
    for (const std::string& l : LinesOf(b.body)) {
      const std::string t = Trim(l);
      if (!t.empty() && t.rfind("//", 0) != 0) holds_code = true;
    }
  if (!holds_code) return Status::InvalidArgument(path + ": no EVOLVE block holds code: put the markers around the code a search may change");

  const std::vector<std::string> orig = LinesOf(NormalizeNewlines(original));
  const std::vector<std::string> lines = LinesOf(ann);
  size_t o = 0;
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string& l = lines[i];
    const std::string where = path + ":" + std::to_string(i + 1);
    if (l.find(kEvolveMarker) != std::string::npos) {
      if (Trim(l).rfind("//", 0) != 0)
        return Status::InvalidArgument(where + ": a marker must be a comment line of its own (\"" + kEvolveStartLine +
                                       "\"), not \"" +
                                       Trim(l).substr(0, 120) + "\"");
      continue;
    }
    if (o >= orig.size())
      return Status::InvalidArgument(where + ": the line \"" + Trim(l).substr(0, 120) +
                                     "\" is not in the original file: only marker lines may be added");
    if (l != orig[o])
      return Status::InvalidArgument(where + ": \"" + Trim(l).substr(0, 120) + "\" differs from the original's line " +
                                     std::to_string(o + 1) + " \"" + Trim(orig[o]).substr(0, 120) +
                                     "\": only marker lines may be added, nothing else may change");
    ++o;
  }
  if (o < orig.size())
    return Status::InvalidArgument(path + ": the original's line " + std::to_string(o + 1) + " \"" +
                                   Trim(orig[o]).substr(0, 120) + "\" and the " + std::to_string(orig.size() - o - 1) +
                                   " after it are missing: only marker lines may be added");
  return Status::Ok();
}

}  // namespace cuco
