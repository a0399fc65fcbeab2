#include "edit/block_edits.h"

#include <algorithm>
#include <cctype>
#include <set>

#include "workload/evolve_blocks.h"
#include "util/source_text.h"

namespace cuco {
namespace {

constexpr size_t kQuoteMax = 120;

struct Lines {
  std::vector<std::string> lines;  // without their '\n'
  bool trailing_newline = false;
};

// A file's lines (util's LinesOf) and whether it ends in a newline, to be joined back as it was.
Lines SplitFile(const std::string& text) { return {LinesOf(text), !text.empty() && text.back() == '\n'}; }

std::string JoinLines(const std::vector<std::string>& lines, bool trailing_newline) {
  std::string out;
  for (size_t i = 0; i < lines.size(); ++i) {
    out += lines[i];
    if (i + 1 < lines.size() || trailing_newline) out += '\n';
  }
  return out;
}

bool IsBlank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }

// Trimmed, with every run of blanks inside collapsed to one space.
std::string Normalized(const std::string& s) {
  std::string t = Trim(s), out;
  bool blank = false;
  for (char c : t) {
    if (IsBlank(c)) {
      blank = true;
      continue;
    }
    if (blank) out += ' ';
    blank = false;
    out += c;
  }
  return out;
}

std::string LeadingBlanks(const std::string& s) {
  size_t i = 0;
  while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
  return s.substr(0, i);
}

std::string QuoteForMessage(const std::string& line) {
  std::string t = Trim(line);
  if (t.size() > kQuoteMax) t = t.substr(0, kQuoteMax) + "...";
  return "\"" + t + "\"";
}

bool HasMarker(const std::string& line) {
  return line.find(kEvolveBlockStart) != std::string::npos || line.find(kEvolveBlockEnd) != std::string::npos;
}

// A line made of 5 to 9 `c` characters, optionally followed by blanks and `word`.
bool IsMarkerLine(const std::string& line, char c, const std::string& word) {
  std::string t = Trim(line);
  size_t n = 0;
  while (n < t.size() && t[n] == c) ++n;
  if (n < 5 || n > 9) return false;
  std::string rest = Trim(t.substr(n));
  return rest == word;
}
bool IsSearchLine(const std::string& l) { return IsMarkerLine(l, '<', "SEARCH"); }
bool IsDividerLine(const std::string& l) { return IsMarkerLine(l, '=', ""); }
bool IsReplaceLine(const std::string& l) { return IsMarkerLine(l, '>', "REPLACE"); }

bool IsFenceLine(const std::string& line) {
  size_t i = 0;
  while (i < line.size() && i < 4 && line[i] == ' ') ++i;
  return line.compare(i, 3, "```") == 0 || line.compare(i, 3, "~~~") == 0;
}

std::string DiffName(size_t index, const SearchReplace& e) {
  std::string s = "diff " + std::to_string(index + 1);
  if (e.answer_line > 0) s += " (answer line " + std::to_string(e.answer_line) + ")";
  return s;
}

// Which lines (0-based) of `text` lie strictly inside an EVOLVE block.
Result<std::vector<bool>> BlockLineMask(const std::string& text, size_t line_count) {
  auto split = SplitEvolveBlocks(text, "parent");
  if (!split.ok()) return Status::InvalidArgument("the parent's EVOLVE blocks are malformed: " + split.status().message());
  std::vector<bool> mask(line_count, false);
  for (const EvolveBlock& b : split->blocks)
    for (int l = b.start_line + 1; l < b.end_line; ++l)
      if (l - 1 >= 0 && static_cast<size_t>(l - 1) < line_count) mask[l - 1] = true;
  return mask;
}

struct Matches {
  std::vector<size_t> inside;    // start lines of matches lying wholly inside one block
  std::vector<size_t> touching;  // start lines of matches touching frozen text
};

template <typename Eq>
Matches FindMatches(const std::vector<std::string>& file, const std::vector<std::string>& pat,
                    const std::vector<bool>& in_block, Eq eq) {
  Matches m;
  if (pat.empty() || pat.size() > file.size()) return m;
  for (size_t p = 0; p + pat.size() <= file.size(); ++p) {
    bool ok = true;
    for (size_t j = 0; j < pat.size() && ok; ++j) ok = eq(file[p + j], pat[j]);
    if (!ok) continue;
    bool inside = true;
    for (size_t j = 0; j < pat.size(); ++j) inside = inside && in_block[p + j];
    (inside ? m.inside : m.touching).push_back(p);
  }
  return m;
}

std::string LineList(const std::vector<size_t>& starts) {
  std::string s;
  for (size_t i = 0; i < starts.size() && i < 6; ++i) s += (i ? ", " : "") + std::to_string(starts[i] + 1);
  if (starts.size() > 6) s += ", ...";
  return s;
}

std::string AmbiguousError(const std::string& name, const std::vector<size_t>& starts) {
  return name + ": the SEARCH text matches " + std::to_string(starts.size()) +
         " places in the EVOLVE blocks (starting at lines " + LineList(starts) +
         "); include more surrounding lines so that it matches exactly one";
}

std::string OutsideError(const std::string& name, const std::vector<std::string>& file, const std::vector<bool>& in_block,
                         size_t start, size_t len) {
  size_t frozen = start;
  while (frozen < start + len && in_block[frozen]) ++frozen;
  return name + ": edit outside the EVOLVE blocks: the SEARCH text matches lines " + std::to_string(start + 1) + "-" +
         std::to_string(start + len) + ", which include frozen line " + std::to_string(frozen + 1) + " " +
         QuoteForMessage(file[frozen]) + "; only the code between the " + kEvolveBlockStart + " and " + kEvolveBlockEnd + " lines may change";
}

std::string NotFoundError(const std::string& name, const std::vector<std::string>& file,
                          const std::vector<std::string>& pat) {
  size_t best = 0, best_at = 0;
  for (size_t p = 0; p < file.size(); ++p) {
    size_t j = 0;
    while (j < pat.size() && p + j < file.size() && Normalized(file[p + j]) == Normalized(pat[j])) ++j;
    if (j > best) best = j, best_at = p;
  }
  std::string msg = name + ": the SEARCH text is not in the parent";
  if (best == 0) return msg + ": its first line " + QuoteForMessage(pat[0]) + " matches no line (copy the lines exactly)";
  msg += ": its first " + std::to_string(best) + " line" + (best == 1 ? "" : "s") + " match at line " +
         std::to_string(best_at + 1) + ", but its line " + std::to_string(best + 1) + " " + QuoteForMessage(pat[best]);
  if (best_at + best < file.size()) return msg + " differs from the parent's " + QuoteForMessage(file[best_at + best]);
  return msg + " lies past the end of the file";
}

// Re-indents replacement lines by the indentation difference between the matched file line and
// the search line.
std::vector<std::string> Reindent(std::vector<std::string> repl, const std::string& search_line,
                                  const std::string& file_line) {
  const std::string ls = LeadingBlanks(search_line), lf = LeadingBlanks(file_line);
  if (ls == lf) return repl;
  if (lf.size() > ls.size() && lf.compare(0, ls.size(), ls) == 0) {
    const std::string extra = lf.substr(ls.size());
    for (auto& r : repl)
      if (!Trim(r).empty()) r = extra + r;
  } else if (ls.size() > lf.size() && ls.compare(0, lf.size(), lf) == 0) {
    const std::string extra = ls.substr(lf.size());
    for (auto& r : repl)
      if (r.compare(0, extra.size(), extra) == 0) r = r.substr(extra.size());
  }
  return repl;
}

Status ApplyOne(std::string& text, size_t index, const SearchReplace& edit) {
  const std::string name = DiffName(index, edit);
  Lines file = SplitFile(text);
  auto mask = BlockLineMask(text, file.lines.size());
  if (!mask.ok()) return mask.status();
  const std::vector<bool>& in_block = *mask;
  std::vector<std::string> pat = LinesOf(NormalizeNewlines(edit.search));
  std::vector<std::string> repl = LinesOf(NormalizeNewlines(edit.replace));

  for (const auto& l : pat)
    if (HasMarker(l))
      return Status::InvalidArgument(name + ": edit outside the EVOLVE blocks: the SEARCH text contains the marker line " +
                                     QuoteForMessage(l) + ", which is frozen; quote only lines between the markers");
  for (const auto& l : repl)
    if (HasMarker(l))
      return Status::InvalidArgument(name + ": the REPLACE text contains an EVOLVE-BLOCK marker line " + QuoteForMessage(l) +
                                     "; the markers are frozen and may be neither added nor removed");

  auto apply = [&](size_t at, size_t len, const std::vector<std::string>& with) {
    std::vector<std::string> out(file.lines.begin(), file.lines.begin() + at);
    out.insert(out.end(), with.begin(), with.end());
    out.insert(out.end(), file.lines.begin() + at + len, file.lines.end());
    text = JoinLines(out, file.trailing_newline);
  };

  // 1. Exact, line by line.
  Matches exact = FindMatches(file.lines, pat, in_block, [](const std::string& a, const std::string& b) { return a == b; });
  if (exact.inside.size() > 1) return Status::InvalidArgument(AmbiguousError(name, exact.inside));
  if (exact.inside.size() == 1) {
    apply(exact.inside[0], pat.size(), repl);
    return Status::Ok();
  }

  // 2. Whitespace-tolerant: blank lines around the text dropped, lines compared trimmed with
  //    inner runs of blanks collapsed.
  size_t lead = 0, trail = 0;
  while (lead < pat.size() && Trim(pat[lead]).empty()) ++lead;
  while (trail < pat.size() - lead && Trim(pat[pat.size() - 1 - trail]).empty()) ++trail;
  std::vector<std::string> core(pat.begin() + lead, pat.end() - trail);
  if (core.empty()) return Status::InvalidArgument(name + ": the SEARCH text is blank; copy the lines to change from the parent");
  Matches loose = FindMatches(file.lines, core, in_block,
                              [](const std::string& a, const std::string& b) { return Normalized(a) == Normalized(b); });
  if (loose.inside.size() > 1) return Status::InvalidArgument(AmbiguousError(name, loose.inside));
  if (loose.inside.size() == 1) {
    const size_t at = loose.inside[0];
    // Drop as many blank lines around the replacement as were dropped around the search text.
    size_t rl = 0, rt = 0;
    while (rl < lead && rl < repl.size() && Trim(repl[rl]).empty()) ++rl;
    while (rt < trail && rt < repl.size() - rl && Trim(repl[repl.size() - 1 - rt]).empty()) ++rt;
    std::vector<std::string> with(repl.begin() + rl, repl.end() - rt);
    with = Reindent(std::move(with), core[0], file.lines[at]);
    apply(at, core.size(), with);
    return Status::Ok();
  }

  // 3. No match inside a block: either it touches frozen text or it is not there at all.
  if (!exact.touching.empty()) return Status::InvalidArgument(OutsideError(name, file.lines, in_block, exact.touching[0], pat.size()));
  if (!loose.touching.empty()) return Status::InvalidArgument(OutsideError(name, file.lines, in_block, loose.touching[0], core.size()));
  return Status::InvalidArgument(NotFoundError(name, file.lines, core));
}

struct CodeSource {
  std::string label;  // "the answer", "the answer's code block 2"
  std::string text;
};

}  // namespace

bool HasSearchReplace(const std::string& answer) {
  for (const auto& l : LinesOf(NormalizeNewlines(answer)))
    if (IsSearchLine(l)) return true;
  return false;
}

Result<std::vector<SearchReplace>> ParseSearchReplace(const std::string& answer) {
  const std::vector<std::string> lines = LinesOf(NormalizeNewlines(answer));
  std::vector<SearchReplace> out;
  enum { kOutside, kSearch, kReplace } state = kOutside;
  SearchReplace cur;
  auto at = [](int line) { return "answer line " + std::to_string(line); };
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string& l = lines[i];
    const int line_no = static_cast<int>(i) + 1;
    switch (state) {
      case kOutside:
        if (IsSearchLine(l)) {
          cur = SearchReplace{};
          cur.answer_line = line_no;
          state = kSearch;
        } else if (IsReplaceLine(l)) {
          return Status::InvalidArgument(at(line_no) + ": `>>>>>>> REPLACE` without a `<<<<<<< SEARCH` before it");
        }
        break;
      case kSearch:
        if (IsDividerLine(l)) {
          state = kReplace;
        } else if (IsSearchLine(l) || IsReplaceLine(l)) {
          return Status::InvalidArgument("the diff at " + at(cur.answer_line) + " has no `=======` line before " +
                                         at(line_no));
        } else if (!IsFenceLine(l)) {
          cur.search += l + "\n";
        }
        break;
      case kReplace:
        if (IsReplaceLine(l)) {
          if (Trim(cur.search).empty())
            return Status::InvalidArgument("the diff at " + at(cur.answer_line) +
                                           " has an empty SEARCH text; copy the lines to change from the parent");
          out.push_back(cur);
          state = kOutside;
        } else if (IsSearchLine(l) || IsDividerLine(l)) {
          return Status::InvalidArgument("the diff at " + at(cur.answer_line) + " has no `>>>>>>> REPLACE` line before " +
                                         at(line_no));
        } else if (!IsFenceLine(l)) {
          cur.replace += l + "\n";
        }
        break;
    }
  }
  if (state == kSearch)
    return Status::InvalidArgument("the diff at " + at(cur.answer_line) +
                                   " ends without `=======` and `>>>>>>> REPLACE` (was the answer cut off?)");
  if (state == kReplace)
    return Status::InvalidArgument("the diff at " + at(cur.answer_line) +
                                   " ends without `>>>>>>> REPLACE` (was the answer cut off?)");
  if (out.empty()) return Status::InvalidArgument("the answer has no SEARCH/REPLACE diff");
  return out;
}

Result<std::string> ApplySearchReplace(const std::string& parent, const std::vector<SearchReplace>& edits) {
  if (edits.empty()) return Status::InvalidArgument("the answer has no SEARCH/REPLACE diff");
  std::string text = parent;
  for (size_t i = 0; i < edits.size(); ++i) CUCO_RETURN_IF_ERROR(ApplyOne(text, i, edits[i]));
  Status frozen = CheckFrozenCode(parent, "parent", text, "candidate");
  if (!frozen.ok()) return Status::InvalidArgument("the diffs change frozen code: " + frozen.message());
  return text;
}

std::vector<std::string> FencedCodeBlocks(const std::string& text) {
  std::vector<std::string> out;
  bool open = false;
  std::string fence, cur;
  for (const auto& l : LinesOf(NormalizeNewlines(text))) {
    if (!open) {
      if (IsFenceLine(l)) {
        std::string t = Trim(l);
        size_t n = 0;
        while (n < t.size() && t[n] == t[0]) ++n;
        fence = t.substr(0, n);
        cur.clear();
        open = true;
      }
      continue;
    }
    std::string t = Trim(l);
    if (t.size() >= fence.size() && t.find_first_not_of(fence[0]) == std::string::npos) {
      out.push_back(cur);
      open = false;
    } else {
      cur += l + "\n";
    }
  }
  if (open) out.push_back(cur);
  return out;
}

Result<std::string> ApplyBlockRewrite(const std::string& seed, const std::string& answer, const std::string& seed_path) {
  const std::string a = NormalizeNewlines(answer);
  auto seed_split = SplitEvolveBlocks(seed, seed_path);
  if (!seed_split.ok()) return Status::Internal("the seed's EVOLVE blocks are malformed: " + seed_split.status().message());

  std::vector<CodeSource> sources;
  std::vector<std::string> fences = FencedCodeBlocks(a);
  for (size_t i = 0; i < fences.size(); ++i)
    if (fences[i].find(kEvolveMarker) != std::string::npos)
      sources.push_back({"the answer's code block " + std::to_string(i + 1), fences[i]});
  if (sources.empty() && a.find(kEvolveMarker) != std::string::npos) sources.push_back({"the answer", a});
  if (sources.empty())
    return Status::InvalidArgument(
        std::string("the rewrite has no ") + kEvolveBlockStart + " / " + kEvolveBlockEnd +
        " marker lines: give each block's new body between its marker lines");

  // Lines of the seed's frozen text (markers aside) by which a whole file is recognised.
  std::set<std::string> seed_frozen;
  for (const auto& seg : seed_split->frozen)
    for (const auto& l : LinesOf(seg)) {
      std::string t = Trim(l);
      if (t.size() >= 4 && !HasMarker(t)) seed_frozen.insert(t);
    }

  std::vector<SplitSource> splits;
  int whole_file = -1;
  for (size_t i = 0; i < sources.size(); ++i) {
    auto s = SplitEvolveBlocks(sources[i].text, "code", /*require_blocks=*/false);
    if (!s.ok())
      return Status::InvalidArgument("the EVOLVE-BLOCK markers of " + sources[i].label +
                                     " are unbalanced (lines count from its first line): " + s.status().message());
    // A whole file reproduces the file's head: seed lines before its first block. (Frozen text
    // copied between blocks alone does not make a whole file; it is ignored like prose.)
    for (const auto& l : LinesOf(s->frozen[0]))
      if (!HasMarker(l) && seed_frozen.count(Trim(l))) whole_file = static_cast<int>(i);
    splits.push_back(std::move(*s));
  }

  if (whole_file >= 0) {
    const CodeSource& src = sources[whole_file];
    Status st = CheckFrozenCode(seed, seed_path, src.text, "answer");
    if (!st.ok())
      return Status::InvalidArgument("the rewritten file in " + src.label +
                                     " changes frozen code (lines count from its first line): " + st.message());
    return src.text;
  }

  std::vector<std::string> bodies;
  for (const auto& s : splits)
    for (const auto& b : s.blocks) bodies.push_back(b.body);
  if (bodies.size() != seed_split->blocks.size())
    return Status::InvalidArgument("the answer gives " + std::to_string(bodies.size()) + " EVOLVE block" +
                                   (bodies.size() == 1 ? "" : "s") + ", the file has " +
                                   std::to_string(seed_split->blocks.size()) +
                                   ": give every block's whole new body between its marker lines, in file order");
  auto joined = JoinEvolveBlocks(*seed_split, bodies);
  if (!joined.ok()) return Status::InvalidArgument(joined.status().message());
  return *joined;
}

Result<AppliedAnswer> ApplyLlmAnswer(const std::string& seed, const std::string& parent, const std::string& answer,
                                     const std::string& seed_path) {
  const std::string a = NormalizeNewlines(answer);
  if (Trim(a).empty()) return Status::InvalidArgument("the answer is empty");
  AppliedAnswer out;
  out.description = AnswerSummary(a);
  if (HasSearchReplace(a)) {
    auto edits = ParseSearchReplace(a);
    if (!edits.ok()) return edits.status();
    auto code = ApplySearchReplace(parent, *edits);
    if (!code.ok()) return code.status();
    out.code = std::move(*code);
    out.format = "diff";
    out.edits = static_cast<int>(edits->size());
  } else if (a.find(kEvolveMarker) != std::string::npos) {
    auto code = ApplyBlockRewrite(seed, a, seed_path);
    if (!code.ok()) return code.status();
    out.code = std::move(*code);
    out.format = "rewrite";
    auto split = SplitEvolveBlocks(out.code, "candidate");
    out.edits = split.ok() ? static_cast<int>(split->blocks.size()) : 0;
  } else {
    std::string msg = std::string("the answer has neither SEARCH/REPLACE diffs nor ") + kEvolveBlockStart + "/END blocks";
    if (!FencedCodeBlocks(a).empty()) msg += " (its code has no EVOLVE-BLOCK marker lines)";
    return Status::InvalidArgument(msg);
  }
  Status frozen = CheckFrozenCode(seed, seed_path, out.code, "candidate");
  if (!frozen.ok()) return Status::InvalidArgument("the new code changes frozen code: " + frozen.message());
  if (out.code == parent) return Status::InvalidArgument("the answer changes nothing: the new code equals the parent's");
  return out;
}

std::string AnswerSummary(const std::string& answer) {
  const std::vector<std::string> lines = LinesOf(NormalizeNewlines(answer));
  auto strip = [](const std::string& l) {
    std::string t = Trim(l);
    size_t i = 0;
    while (i < t.size() && (t[i] == '#' || t[i] == '*' || t[i] == '_' || t[i] == '>' || t[i] == '-' || t[i] == ' '))
      ++i;
    t = t.substr(i);
    while (!t.empty() && (t.back() == '*' || t.back() == '_' || IsBlank(t.back()))) t.pop_back();
    return t;
  };
  auto clip = [](std::string s) {
    if (s.size() > 240) s = s.substr(0, 237) + "...";
    return s;
  };
  auto is_code = [](const std::string& l) {
    return HasMarker(l) || IsSearchLine(l) || IsDividerLine(l) || IsReplaceLine(l);
  };
  std::string first_prose;
  bool in_fence = false;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (IsFenceLine(lines[i])) {
      in_fence = !in_fence;
      continue;
    }
    if (in_fence || is_code(lines[i])) continue;
    std::string t = strip(lines[i]);
    if (t.empty()) continue;
    std::string lower = t;
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
    for (const char* key : {"summary", "description"}) {
      const size_t n = std::string(key).size();
      if (lower.compare(0, n, key) != 0) continue;
      std::string rest = t.substr(n);
      size_t k = 0;
      bool colon = false;
      while (k < rest.size() && (rest[k] == ':' || rest[k] == '*' || rest[k] == '_' || IsBlank(rest[k])))
        if (rest[k++] == ':') colon = true;
      if (!colon) continue;  // "Summary of ...", not "Summary: ..."
      rest = Trim(rest.substr(k));
      if (!rest.empty()) return clip(rest);
      for (size_t j = i + 1; j < lines.size(); ++j) {  // "SUMMARY:" alone, the text below it
        if (IsFenceLine(lines[j]) || is_code(lines[j])) break;
        std::string next = strip(lines[j]);
        if (!next.empty()) return clip(next);
      }
    }
    if (first_prose.empty()) first_prose = t;
  }
  return clip(first_prose);
}

}  // namespace cuco
