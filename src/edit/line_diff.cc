#include "edit/line_diff.h"

#include <algorithm>
#include <vector>

#include "util/source_text.h"

namespace cuco {
namespace {

// A file's lines (util's LinesOf), and whether its last line lacks a newline.
std::vector<std::string> FileLines(const std::string& text, bool* missing_newline) {
  *missing_newline = !text.empty() && text.back() != '\n';
  return LinesOf(text);
}

enum class Op { kKeep, kDel, kAdd };
struct Edit {
  Op op;
  size_t a, b;  // line index in from (kKeep, kDel) and in to (kKeep, kAdd)
};

// The two texts as lines, and whether each lacks its last newline (only when that is marked).
struct DiffLines {
  std::vector<std::string> a, b;
  bool a_nonl = false, b_nonl = false;

  // A last line without a newline differs from the same line with one.
  bool Equal(size_t i, size_t j) const {
    if (a[i] != b[j]) return false;
    const bool a_last_nonl = a_nonl && i + 1 == a.size(), b_last_nonl = b_nonl && j + 1 == b.size();
    return a_last_nonl == b_last_nonl;
  }
};

// The edit script from a to b: the common prefix and suffix kept, the middle by a longest common
// subsequence when it has at most `max_cells` cells, else all of it deleted and then added.
std::vector<Edit> LineEdits(const DiffLines& d, int64_t max_cells) {
  const std::vector<std::string>& a = d.a;
  const std::vector<std::string>& b = d.b;
  size_t pre = 0;
  while (pre < a.size() && pre < b.size() && d.Equal(pre, pre)) ++pre;
  size_t suf = 0;
  while (suf < a.size() - pre && suf < b.size() - pre && d.Equal(a.size() - 1 - suf, b.size() - 1 - suf)) ++suf;
  const size_t n = a.size() - pre - suf, m = b.size() - pre - suf;

  std::vector<Edit> edits;
  for (size_t i = 0; i < pre; ++i) edits.push_back({Op::kKeep, i, i});
  if (static_cast<int64_t>(n) * static_cast<int64_t>(m) <= max_cells) {
    // lcs[i][j] = LCS length of a[pre+i..] and b[pre+j..] within the middle.
    std::vector<std::vector<uint32_t>> lcs(n + 1, std::vector<uint32_t>(m + 1, 0));
    for (size_t i = n; i-- > 0;)
      for (size_t j = m; j-- > 0;)
        lcs[i][j] = d.Equal(pre + i, pre + j) ? lcs[i + 1][j + 1] + 1 : std::max(lcs[i + 1][j], lcs[i][j + 1]);
    size_t i = 0, j = 0;
    while (i < n || j < m) {
      if (i < n && j < m && d.Equal(pre + i, pre + j)) {
        edits.push_back({Op::kKeep, pre + i++, pre + j++});
      } else if (i < n && (j == m || lcs[i + 1][j] >= lcs[i][j + 1])) {
        edits.push_back({Op::kDel, pre + i++, pre + j});
      } else {
        edits.push_back({Op::kAdd, pre + i, pre + j++});
      }
    }
  } else {
    for (size_t i = 0; i < n; ++i) edits.push_back({Op::kDel, pre + i, pre});
    for (size_t j = 0; j < m; ++j) edits.push_back({Op::kAdd, pre + n, pre + j});
  }
  for (size_t k = 0; k < suf; ++k) edits.push_back({Op::kKeep, pre + n + k, pre + m + k});
  return edits;
}

// The end of the hunk whose first change is edits[e]: `ctx` kept lines after the last change that
// is within 2*ctx kept lines of the next.
size_t HunkEnd(const std::vector<Edit>& edits, size_t e, size_t ctx) {
  size_t end = e;
  while (true) {
    while (end < edits.size() && edits[end].op != Op::kKeep) ++end;
    size_t keep = end;
    while (keep < edits.size() && edits[keep].op == Op::kKeep) ++keep;
    if (keep < edits.size() && keep - end <= 2 * ctx) {
      end = keep;
      continue;
    }
    return std::min(edits.size(), end + ctx);
  }
}

// One hunk, edits[start, end), with its "@@ -a,n +b,m @@" header.
std::string HunkText(const DiffLines& d, const std::vector<Edit>& edits, size_t start, size_t end,
                     const DiffStyle& style) {
  const char* kNoNewline = "\\ No newline at end of file\n";
  size_t a_start = edits[start].a, b_start = edits[start].b, a_len = 0, b_len = 0;
  std::string body;
  for (size_t k = start; k < end; ++k) {
    const Edit& e = edits[k];
    if (e.op == Op::kKeep) {
      body += " " + d.a[e.a] + "\n";
      ++a_len;
      ++b_len;
      if (d.a_nonl && e.a + 1 == d.a.size()) body += kNoNewline;
    } else if (e.op == Op::kDel) {
      body += "-" + d.a[e.a] + "\n";
      ++a_len;
      if (d.a_nonl && e.a + 1 == d.a.size()) body += kNoNewline;
    } else {
      body += "+" + d.b[e.b] + "\n";
      ++b_len;
      if (d.b_nonl && e.b + 1 == d.b.size()) body += kNoNewline;
    }
  }
  // diff -u numbers an empty range by the line before it.
  auto range = [&style](size_t s, size_t len) {
    if (len == 0) return std::to_string(s) + ",0";
    if (len == 1 && style.short_ranges) return std::to_string(s + 1);
    return std::to_string(s + 1) + "," + std::to_string(len);
  };
  return "@@ -" + range(a_start, a_len) + " +" + range(b_start, b_len) + " @@\n" + body;
}

}  // namespace

std::string UnifiedDiff(const std::string& from, const std::string& to, const std::string& from_label,
                        const std::string& to_label, const DiffStyle& style) {
  if (from == to) return "";
  DiffLines d;
  d.a = FileLines(from, &d.a_nonl);
  d.b = FileLines(to, &d.b_nonl);
  if (!style.mark_missing_newline) d.a_nonl = d.b_nonl = false;  // line ends are neither compared nor marked
  const std::vector<Edit> edits = LineEdits(d, style.max_cells);

  std::string out = "--- " + from_label + "\n+++ " + to_label + "\n";
  const size_t ctx = static_cast<size_t>(std::max(0, style.context));
  size_t e = 0;
  while (e < edits.size()) {
    while (e < edits.size() && edits[e].op == Op::kKeep) ++e;
    if (e == edits.size()) break;
    const size_t start = e >= ctx ? e - ctx : 0;
    const size_t end = HunkEnd(edits, e, ctx);
    out += HunkText(d, edits, start, end, style);
    e = end;
  }
  return out;
}

std::string UnifiedDiff(const std::string& from, const std::string& to, const std::string& from_label,
                        const std::string& to_label, int context, int64_t max_cells) {
  DiffStyle style;
  style.context = context;
  style.max_cells = max_cells;
  return UnifiedDiff(from, to, from_label, to_label, style);
}

}  // namespace cuco
