#include "transform/stage_answer.h"

#include <algorithm>
#include <cctype>
#include <functional>
#include <optional>
#include <regex>
#include <utility>

#include "edit/block_edits.h"
#include "util/source_text.h"
#include "workload/evolve_blocks.h"

namespace cuco {
namespace {


// ApplySearchReplace's messages speak of "the parent"; here it is the current code.
std::string Reword(std::string msg) {
  static const std::pair<const char*, const char*> kWords[] = {{"the parent's", "the current code's"},
                                                               {"the parent", "the current code"}};
  for (const auto& [from, to] : kWords)
    for (size_t p = msg.find(from); p != std::string::npos; p = msg.find(from, p + std::string(to).size()))
      msg.replace(p, std::string(from).size(), to);
  return msg;
}

// An error message about the wrapped file, with its line numbers as the file's: "at line N" and
// "starting at lines N, M" name wrapped-file lines, one more than the file's.
std::string LinesOfTheFile(const std::string& msg) {
  std::string fixed;
  std::regex number_list(R"((at lines? )([0-9][0-9, ]*))");
  std::sregex_iterator it(msg.begin(), msg.end(), number_list), end;
  size_t last = 0;
  for (; it != end; ++it) {
    fixed += msg.substr(last, it->position(0) - last) + (*it)[1].str();
    const std::string nums = (*it)[2].str();
    for (size_t i = 0; i < nums.size();) {
      if (std::isdigit(static_cast<unsigned char>(nums[i]))) {
        size_t j = i;
        while (j < nums.size() && std::isdigit(static_cast<unsigned char>(nums[j]))) ++j;
        fixed += std::to_string(std::max(1L, std::stol(nums.substr(i, j - i)) - 1));
        i = j;
      } else {
        fixed += nums[i++];
      }
    }
    last = it->position(0) + it->length(0);
  }
  fixed += msg.substr(last);
  return fixed;
}

// Diffs applied to a file without EVOLVE blocks: the whole file is wrapped in one block, so the
// diff matcher of block_edits.h applies; its line numbers are shifted back.
Result<std::string> ApplyDiffsToWholeFile(const std::string& base, const std::string& answer) {
  auto edits = ParseSearchReplace(answer);
  if (!edits.ok()) return edits.status();
  const bool newline = !base.empty() && base.back() == '\n';
  const std::string head = std::string(kEvolveStartLine) + "\n", tail = std::string(kEvolveEndLine) + "\n";
  auto applied = ApplySearchReplace(head + base + (newline ? "" : "\n") + tail, *edits);
  if (!applied.ok()) {
    std::string msg = applied.status().message();
    static const std::pair<const char*, const char*> kPlaces[] = {{" in the EVOLVE blocks", " in the file"},
                                                                  {" the EVOLVE blocks", " the file"}};
    for (const auto& [from, to] : kPlaces)
      for (size_t p = msg.find(from); p != std::string::npos; p = msg.find(from)) msg.replace(p, std::string(from).size(), to);
    return Status::InvalidArgument(LinesOfTheFile(msg));
  }
  std::string code = *applied;
  if (code.rfind(head, 0) != 0 || code.size() < head.size() + tail.size() ||
      code.compare(code.size() - tail.size(), tail.size(), tail) != 0)
    return Status::Internal("the whole-file wrapper was not kept");
  code = code.substr(head.size(), code.size() - head.size() - tail.size());
  if (!newline && !code.empty() && code.back() == '\n') code.pop_back();
  return code;
}

// The longest fenced block of `answer` for which `accept` holds; nullopt when none.
std::optional<std::string> LongestFence(const std::string& answer,
                                        const std::function<bool(const std::string&)>& accept) {
  std::optional<std::string> best;
  for (const std::string& f : FencedCodeBlocks(answer))
    if (accept(f) && (!best || f.size() > best->size())) best = f;
  return best;
}

}  // namespace

Result<StageAnswer> ParseStageAnswer(const LlmStage& stage, bool blocks, const std::string& frozen_ref,
                                      const std::string& base, const std::string& answer, const std::string& path) {
  const std::string a = NormalizeNewlines(answer);
  if (Trim(a).empty()) return Status::InvalidArgument("the answer is empty");
  if (stage.annotate) {
    auto file = LongestFence(a, [](const std::string& f) { return HasEvolveMarker(f); });
    if (!file)
      return Status::InvalidArgument(
          std::string("the answer has no fenced code block with ") + kEvolveBlockStart + " / " + kEvolveBlockEnd +
          " lines: give the whole annotated file in one fence");
    return StageAnswer{*file, "file"};
  }
  if (blocks) {
    auto applied = ApplyLlmAnswer(frozen_ref, base, a, path);
    if (!applied.ok()) return Status::InvalidArgument(Reword(applied.status().message()));
    return StageAnswer{applied->code, applied->format == "diff" ? "diff" : "file"};
  }
  StageAnswer out;
  if (HasSearchReplace(a)) {
    auto code = ApplyDiffsToWholeFile(base, a);
    if (!code.ok()) return Status::InvalidArgument(Reword(code.status().message()));
    out = {*code, "diff"};
  } else {
    auto file = LongestFence(a, [](const std::string&) { return true; });
    if (!file)
      return Status::InvalidArgument(
          "the answer has neither SEARCH/REPLACE edits nor the whole file in a fenced code block");
    const size_t base_lines = LinesOf(base).size(), file_lines = LinesOf(*file).size();
    if (base_lines > 20 && file_lines * 2 < base_lines)
      return Status::InvalidArgument("the fenced code has " + std::to_string(file_lines) + " lines and the file " +
                                     std::to_string(base_lines) +
                                     ": it looks like a fragment; give the whole file or SEARCH/REPLACE edits");
    out = {*file, "file"};
  }
  if (out.code.find(kEvolveMarker) != std::string::npos && base.find(kEvolveMarker) == std::string::npos)
    return Status::InvalidArgument("the rewrite adds EVOLVE-BLOCK marker lines: add none in this stage");
  if (out.code == base) return Status::InvalidArgument("the answer changes nothing: the new code equals the current code");
  return out;
}

}  // namespace cuco
