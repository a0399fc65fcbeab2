// Block edits: turning a language model's answer into a new candidate file.
//
// Two answer formats are understood (crossover uses the same two; its prompt just shows more
// parents):
//
//  - SEARCH/REPLACE diffs, one or more, possibly inside ``` fences:
//        <<<<<<< SEARCH
//        lines copied from the parent
//        =======
//        the lines that replace them
//        >>>>>>> REPLACE
//    Each diff is applied to the result of the previous one. The SEARCH text must lie inside one
//    EVOLVE block: an exact (line-by-line) match is tried first, then a whitespace-tolerant one
//    (leading/trailing spaces, runs of blanks, blank lines around the text); the replacement is
//    re-indented by the indentation difference. Several matches are an error (ambiguous), and so
//    is a SEARCH text that spans or touches frozen text (the marker lines included).
//
//  - Rewrites: each EVOLVE block's new body between its marker lines (usually fenced), or the
//    whole file, whose frozen text must then equal the seed's byte for byte.
//
// Every malformed answer yields an error Status whose message suits Proposal::failure (it is
// meant to be shown to the model as feedback); nothing here throws or aborts.
#pragma once

#include <string>
#include <vector>

#include "util/status.h"

namespace cuco {

struct SearchReplace {
  std::string search;   // the lines between `<<<<<<< SEARCH` and `=======`, each ending in '\n'
  std::string replace;  // the lines between `=======` and `>>>>>>> REPLACE`, each ending in '\n'
  int answer_line = 0;  // 1-based line of the SEARCH marker in the answer
};

// True when some line of `answer` is a `<<<<<<< SEARCH` marker.
bool HasSearchReplace(const std::string& answer);

// The diffs of `answer`, in order. Errors: none found, a SEARCH without `=======` or without
// `>>>>>>> REPLACE` (e.g. an answer cut off at max_tokens), a stray `>>>>>>> REPLACE`, an empty
// SEARCH text.
Result<std::vector<SearchReplace>> ParseSearchReplace(const std::string& answer);

// Applies `edits` in order to `parent` (a whole candidate file with EVOLVE blocks). The result
// keeps every frozen byte of the parent. Errors name the diff (its number and answer line).
Result<std::string> ApplySearchReplace(const std::string& parent, const std::vector<SearchReplace>& edits);

// The contents of the ``` (or ~~~) fenced code blocks of `text`, in order; an unclosed last
// fence runs to the end of the text.
std::vector<std::string> FencedCodeBlocks(const std::string& text);

// A rewrite answer: the new file built from `seed`'s frozen text and the answer's block bodies,
// or the answer's whole file after CheckFrozenCode against `seed` (the failure names the first
// differing line). `seed_path` is used in messages.
Result<std::string> ApplyBlockRewrite(const std::string& seed, const std::string& answer,
                                      const std::string& seed_path = "seed");

struct AppliedAnswer {
  std::string code;         // the whole new file
  std::string format;       // "diff" | "rewrite": what the answer turned out to be
  std::string description;  // AnswerSummary(answer)
  int edits = 0;            // diffs applied (diff format), blocks given (rewrite format)
};

// Any answer: diffs when it has a SEARCH marker (applied to `parent`), else a rewrite (checked
// against `seed`). Errors: empty answer, neither format, the format's own errors, and an answer
// that leaves the parent unchanged. `seed` may equal `parent`'s frozen text only (it always
// does for a well-formed parent).
Result<AppliedAnswer> ApplyLlmAnswer(const std::string& seed, const std::string& parent, const std::string& answer,
                                     const std::string& seed_path = "seed");

// The one-line summary the prompt asks for ("SUMMARY: ..."), else the first line of prose
// outside code fences; at most 240 characters; "" when there is none.
std::string AnswerSummary(const std::string& answer);

}  // namespace cuco
