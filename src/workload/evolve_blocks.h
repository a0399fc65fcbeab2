// EVOLVE blocks: the regions of a candidate file that a search may change.
//
// A block starts on a line containing EVOLVE-BLOCK-START and ends on a line
// containing EVOLVE-BLOCK-END (both usually in a // comment). Blocks may not
// nest and must balance. Everything outside the blocks, the marker lines
// included, is frozen: a candidate must reproduce the seed's frozen text byte
// for byte.
#pragma once

#include <string>
#include <vector>

#include "util/status.h"

namespace cuco {

// The markers, spelled here only (every other file uses these names): a block starts on a line
// holding kEvolveBlockStart and ends on one holding kEvolveBlockEnd; both hold kEvolveMarker. cuco
// writes them as comment lines of their own, kEvolveStartLine and kEvolveEndLine.
inline constexpr const char* kEvolveMarker = "EVOLVE-BLOCK-";
inline constexpr const char* kEvolveBlockStart = "EVOLVE-BLOCK-START";
inline constexpr const char* kEvolveBlockEnd = "EVOLVE-BLOCK-END";
inline constexpr const char* kEvolveStartLine = "// EVOLVE-BLOCK-START";
inline constexpr const char* kEvolveEndLine = "// EVOLVE-BLOCK-END";

// Whether `code` holds a start marker (well-formed or not: SplitEvolveBlocks says).
bool HasEvolveMarker(const std::string& code);

// Whether `code` has well-formed EVOLVE blocks, at least one.
bool HasEvolveBlocks(const std::string& code);

struct EvolveBlock {
  int start_line = 0;  // 1-based line of the START marker
  int end_line = 0;    // 1-based line of the END marker
  std::string body;    // the lines strictly between the markers, with their newlines
};

// A file split into frozen segments and blocks: frozen[0] block[0] frozen[1] ... frozen[n].
struct SplitSource {
  std::vector<std::string> frozen;     // n+1 segments; marker lines belong to the frozen text
  std::vector<EvolveBlock> blocks;     // n blocks
  std::vector<int> frozen_first_line;  // 1-based line where each frozen segment starts
};

// Splits `text`; `path` is used in error messages. A file without blocks is an error
// when require_blocks is true.
Result<SplitSource> SplitEvolveBlocks(const std::string& text, const std::string& path, bool require_blocks = true);

// Reassembles frozen segments with new block bodies (one per block, each ending
// in a newline or empty).
Result<std::string> JoinEvolveBlocks(const SplitSource& seed, const std::vector<std::string>& bodies);

// Checks that `candidate` keeps every frozen byte of `seed`. On a difference the
// error names the first differing line in the candidate and the seed.
Status CheckFrozenCode(const std::string& seed, const std::string& seed_path, const std::string& candidate,
                       const std::string& candidate_path);

}  // namespace cuco
