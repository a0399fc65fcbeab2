// The seed as the rule-based transforms read it (transform/ internal): its NCCL calls, where each
// call and EVOLVE block lies, and edits applied back to front. Text positions are byte offsets.
#pragma once

#include <algorithm>
#include <cctype>
#include <map>
#include <string>
#include <vector>

#include "analyze/analysis.h"
#include "util/source_text.h"
#include "workload/evolve_blocks.h"

namespace cuco::transform_internal {

// Host NCCL call -> DeviceCollectives method; `reads_arg0`: peers read the first argument, so it
// must be symmetric.
struct Mapping {
  const char* method;
  bool reads_arg0;
  bool p2p;
};
const std::map<std::string, Mapping>& NcclMap();

// Replace `len` bytes at `pos` with `text` (len 0: insert).
struct Edit {
  size_t pos = 0, len = 0;
  std::string text;
};

// `text` with every edit applied (edits must not overlap; of two insertions at one place, the one
// later in `edits` comes first in the text).
std::string ApplyEdits(const std::string& text, std::vector<Edit> edits);

// The '(', '[' or '{' that the closer at `close` of masked text `m` closes, scanning back; npos when none.
size_t OpenerOf(const std::string& m, size_t close);

// One identifier followed by '(' in the masked text (a call of the seed; host_calls.h's CallSite is a host API call).
struct SeedCall {
  std::string name;
  size_t name_pos = 0;   // where the replaced span starts (a leading "::" included)
  size_t name_end = 0;   // one past the identifier
  size_t open = 0, close = 0;  // the call's parentheses
  int line = 0;
  bool in_block = false;
};

class SeedSource {
 public:
  // `text` must outlive this object; `split` is SplitEvolveBlocks(text).
  SeedSource(const std::string& text, const std::string& path, const SplitSource& split);

  size_t LineStart(int line) const {  // 1-based line -> byte offset (end of text past the last)
    if (line < 1) return 0;
    return static_cast<size_t>(line - 1) < line_start_.size() ? line_start_[static_cast<size_t>(line - 1)]
                                                               : text_.size();
  }
  int LineOf(size_t pos) const {
    return static_cast<int>(std::upper_bound(line_start_.begin(), line_start_.end(), pos) - line_start_.begin());
  }
  bool InBlock(size_t pos) const {
    for (auto [b, e] : blocks_)
      if (pos >= b && pos < e) return true;
    return false;
  }
  size_t FirstBlockBegin() const { return blocks_.front().first; }
  // Each block's [first byte after its START line, first byte of its END line).
  const std::vector<std::pair<size_t, size_t>>& blocks() const { return blocks_; }
  // How many braces of code are open at `pos` (0: file scope).
  int BraceDepth(size_t pos) const;
  std::string Where(size_t pos) const { return path_ + ":" + std::to_string(LineOf(pos)); }
  const std::string& text() const { return text_; }
  const std::string& masked() const { return masked_; }

  // Every `name(` in code (not members of another object, not qualified by a namespace other
  // than the global one) whose name satisfies `want`.
  template <class Pred> std::vector<SeedCall> Calls(Pred want) const {
    std::vector<SeedCall> out;
    const std::string& m = masked_;
    for (size_t i = 0; i < m.size();) {
      if (!(std::isalpha(static_cast<unsigned char>(m[i])) || m[i] == '_') || (i > 0 && IsCIdentChar(m[i - 1]))) {
        ++i;
        continue;
      }
      size_t e = i;
      while (e < m.size() && IsCIdentChar(m[e])) ++e;
      const std::string name = m.substr(i, e - i);
      if (want(name)) {
        size_t p = e;
        while (p < m.size() && std::isspace(static_cast<unsigned char>(m[p]))) ++p;
        size_t before = i;
        while (before > 0 && std::isspace(static_cast<unsigned char>(m[before - 1]))) --before;
        const bool member = before > 0 && (m[before - 1] == '.' || (m[before - 1] == '>' && before > 1 && m[before - 2] == '-'));
        bool qualified_other = false;
        size_t start = i;
        if (before >= 2 && m[before - 1] == ':' && m[before - 2] == ':') {
          size_t q = before - 2;
          while (q > 0 && std::isspace(static_cast<unsigned char>(m[q - 1]))) --q;
          if (q > 0 && IsCIdentChar(m[q - 1])) qualified_other = true;
          else start = before - 2;
        }
        if (p < m.size() && m[p] == '(' && !member && !qualified_other) {
          SeedCall c;
          c.name = name;
          c.name_pos = start;
          c.name_end = e;
          c.open = p;
          c.close = MatchParen(p);
          c.line = LineOf(i);
          c.in_block = InBlock(i);
          if (c.close != std::string::npos) out.push_back(c);
        }
      }
      i = e;
    }
    return out;
  }

  size_t MatchParen(size_t open) const {
    int depth = 0;
    for (size_t i = open; i < masked_.size(); ++i) {
      if (masked_[i] == '(') ++depth;
      else if (masked_[i] == ')' && --depth == 0) return i;
    }
    return std::string::npos;
  }

  std::vector<std::string> Args(const SeedCall& c) const {
    return SplitArgs(text_.substr(c.open + 1, c.close - c.open - 1));
  }

  // The first non-space byte at or after `pos` in code, npos at the end.
  size_t NextCode(size_t pos) const {
    while (pos < masked_.size() && std::isspace(static_cast<unsigned char>(masked_[pos]))) ++pos;
    return pos < masked_.size() ? pos : std::string::npos;
  }

 private:
  const std::string& text_;
  std::string path_;
  std::string masked_;
  std::vector<size_t> line_start_;
  std::vector<std::pair<size_t, size_t>> blocks_;
};

}  // namespace cuco::transform_internal
