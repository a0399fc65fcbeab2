#include "transform/seed_source.h"

namespace cuco::transform_internal {

const std::map<std::string, Mapping>& NcclMap() {
  static const std::map<std::string, Mapping> m = {
      {"ncclAllGather", {"all_gather", true, false}},   {"ncclReduceScatter", {"reduce_scatter", true, false}},
      {"ncclAllReduce", {"all_reduce", true, false}},   {"ncclBroadcast", {"broadcast", true, false}},
      {"ncclBcast", {"bcast", true, false}},            {"ncclReduce", {"reduce", true, false}},
      {"ncclAlltoAll", {"all_to_all", true, false}},    {"ncclGather", {"gather", true, false}},
      {"ncclScatter", {"scatter", true, false}},        {"ncclSend", {"send", false, true}},
      {"ncclRecv", {"recv", false, true}},              {"ncclGroupStart", {"group_start", false, false}},
      {"ncclGroupEnd", {"group_end", false, false}},
  };
  return m;
}

std::string ApplyEdits(const std::string& text, std::vector<Edit> edits) {
  std::stable_sort(edits.begin(), edits.end(), [](const Edit& a, const Edit& b) { return a.pos > b.pos; });
  std::string out = text;
  for (const Edit& e : edits) out.replace(e.pos, e.len, e.text);
  return out;
}

SeedSource::SeedSource(const std::string& text, const std::string& path, const SplitSource& split)
    : text_(text), path_(path), masked_(BlankCommentsAndLiteralContents(text)) {
  line_start_.push_back(0);
  for (size_t i = 0; i < text.size(); ++i)
    if (text[i] == '\n') line_start_.push_back(i + 1);
  for (const EvolveBlock& b : split.blocks) blocks_.push_back({LineStart(b.start_line + 1), LineStart(b.end_line)});
}

size_t OpenerOf(const std::string& m, size_t close) {
  const char closer = m[close];
  const char opener = closer == ')' ? '(' : closer == ']' ? '[' : '{';
  int depth = 0;
  for (size_t i = close + 1; i-- > 0;) {
    if (m[i] == closer) ++depth;
    else if (m[i] == opener && --depth == 0) return i;
  }
  return std::string::npos;
}

int SeedSource::BraceDepth(size_t pos) const {
  int depth = 0;
  for (size_t i = 0; i < pos && i < masked_.size(); ++i) {
    if (masked_[i] == '{') ++depth;
    else if (masked_[i] == '}' && depth > 0) --depth;
  }
  return depth;
}

}  // namespace cuco::transform_internal
