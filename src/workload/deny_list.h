// The deny-list: APIs a candidate's EVOLVE blocks may not use, because they let
// a candidate lie to the harness (timers, events, the metrics file, exiting
// early, the harness's own symbols) or escape it (files, environment, processes,
// unjoined streams, loaded code). docs/workload-contract.md lists every entry
// with its reason. The scan is one layer; the harness's runtime checks are the
// other.
#pragma once

#include <string>
#include <vector>

#include "util/status.h"

namespace cuco {

struct DenyHit {
  int line = 0;            // 1-based line in the candidate file
  std::string token;       // what matched
  std::string category;    // e.g. "timing and event APIs"
};

struct DenyEntry {
  std::string token;
  std::string category;
};

// The identifiers denied in code (matched as whole identifiers outside comments
// and string literals; member accesses like x.time are not matched).
const std::vector<DenyEntry>& DeniedIdentifiers();
// Substrings denied anywhere in a block, strings included (inline-asm timers...).
const std::vector<DenyEntry>& DeniedSubstrings();

// Scans the EVOLVE blocks of `candidate` (the whole file is split first; only
// block bodies are scanned). Returns all hits, in line order.
Result<std::vector<DenyHit>> ScanEvolveBlocks(const std::string& candidate, const std::string& path);

// Ok, or an error "path:line: uses 'tok' (category), which candidates may not use".
Status CheckDenyList(const std::string& candidate, const std::string& path);

// `text` with comments and the contents of string / character literals blanked to spaces (newlines
// and byte offsets kept), so that a scan for identifiers and calls sees code only. The same lexing
// as the deny-list scan.
std::string MaskCommentsAndLiterals(const std::string& text);

}  // namespace cuco
