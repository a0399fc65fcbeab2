#include "workload/evolve_blocks.h"

#include <algorithm>
#include <sstream>

#include "util/source_text.h"

namespace cuco {

bool HasEvolveMarker(const std::string& code) { return code.find(kEvolveBlockStart) != std::string::npos; }

bool HasEvolveBlocks(const std::string& code) {
  auto split = SplitEvolveBlocks(code, "code", /*require_blocks=*/false);
  return split.ok() && !split->blocks.empty();
}

Result<SplitSource> SplitEvolveBlocks(const std::string& text, const std::string& path, bool require_blocks) {
  SplitSource out;
  std::vector<std::string> lines = SplitLinesKeepingNewlines(text);
  std::string frozen;
  int frozen_start = 1;
  bool in_block = false;
  EvolveBlock block;
  for (size_t i = 0; i < lines.size(); ++i) {
    const int line_no = static_cast<int>(i) + 1;
    const std::string& line = lines[i];
    const bool is_start = line.find(kEvolveBlockStart) != std::string::npos;
    const bool is_end = line.find(kEvolveBlockEnd) != std::string::npos;
    if (is_start && is_end) return Status::AtLine(path, line_no, "a line may hold only one EVOLVE-BLOCK marker");
    if (is_start) {
      if (in_block)
        return Status::AtLine(path, line_no,
                              "nested EVOLVE-BLOCK-START (the block opened at line " + std::to_string(block.start_line) +
                                  " is still open)");
      frozen += line;
      out.frozen.push_back(frozen);
      out.frozen_first_line.push_back(frozen_start);
      frozen.clear();
      block = EvolveBlock{};
      block.start_line = line_no;
      in_block = true;
    } else if (is_end) {
      if (!in_block) return Status::AtLine(path, line_no, "EVOLVE-BLOCK-END without a matching EVOLVE-BLOCK-START");
      block.end_line = line_no;
      out.blocks.push_back(block);
      in_block = false;
      frozen = line;
      frozen_start = line_no;
    } else if (in_block) {
      block.body += line;
    } else {
      frozen += line;
    }
  }
  if (in_block)
    return Status::AtLine(path, block.start_line, "EVOLVE-BLOCK-START is never closed by EVOLVE-BLOCK-END");
  out.frozen.push_back(frozen);
  out.frozen_first_line.push_back(frozen_start);
  if (require_blocks && out.blocks.empty())
    return Status::AtLine(path, 0, "no EVOLVE-BLOCK-START / EVOLVE-BLOCK-END region: nothing may be changed");
  return out;
}

Result<std::string> JoinEvolveBlocks(const SplitSource& seed, const std::vector<std::string>& bodies) {
  if (bodies.size() != seed.blocks.size())
    return Status::InvalidArgument("expected " + std::to_string(seed.blocks.size()) + " block bodies, got " +
                                   std::to_string(bodies.size()));
  std::string out = seed.frozen[0];
  for (size_t i = 0; i < bodies.size(); ++i) {
    out += bodies[i];
    if (!bodies[i].empty() && bodies[i].back() != '\n') out += '\n';
    out += seed.frozen[i + 1];
  }
  return out;
}

Status CheckFrozenCode(const std::string& seed, const std::string& seed_path, const std::string& candidate,
                       const std::string& candidate_path) {
  auto s = SplitEvolveBlocks(seed, seed_path);
  if (!s.ok()) return s.status();
  auto c = SplitEvolveBlocks(candidate, candidate_path);
  if (!c.ok()) return c.status();
  if (s->blocks.size() != c->blocks.size())
    return Status::AtLine(candidate_path, 0,
                          "has " + std::to_string(c->blocks.size()) + " EVOLVE blocks, the seed " + seed_path + " has " +
                              std::to_string(s->blocks.size()));
  for (size_t i = 0; i < s->frozen.size(); ++i) {
    if (s->frozen[i] == c->frozen[i]) continue;
    std::vector<std::string> sl = SplitLinesKeepingNewlines(s->frozen[i]), cl = SplitLinesKeepingNewlines(c->frozen[i]);
    size_t k = 0;
    while (k < sl.size() && k < cl.size() && sl[k] == cl[k]) ++k;
    const int cand_line = c->frozen_first_line[i] + static_cast<int>(k);
    const int seed_line = s->frozen_first_line[i] + static_cast<int>(k);
    std::ostringstream msg;
    msg << "frozen code differs from the seed (" << seed_path << ":" << seed_line << ")";
    if (k < cl.size() && k < sl.size())
      msg << ": candidate has \"" << TrimRight(cl[k], "\r\n") << "\", seed has \"" << TrimRight(sl[k], "\r\n") << "\"";
    else if (k < sl.size())
      msg << ": candidate lacks seed line \"" << TrimRight(sl[k], "\r\n") << "\"";
    else
      msg << ": candidate adds \"" << TrimRight(cl[k], "\r\n") << "\"";
    return Status::AtLine(candidate_path, cand_line, msg.str());
  }
  return Status::Ok();
}

}  // namespace cuco
