#include "prompts/answer_format.h"

#include "workload/evolve_blocks.h"

namespace cuco {

std::string NormalizedMutationKind(const std::string& kind) {
  if (kind == "rewrite" || kind == "crossover") return kind;
  return "diff";
}

std::string AnswerFormatText(const std::string& mutation_kind) {
  const std::string kind = NormalizedMutationKind(mutation_kind);
  const std::string summary =
      "Begin your answer with one line:\n"
      "SUMMARY: <one sentence: what you changed and why it should be faster>\n"
      "You may then explain briefly. Only the code in the format below is read.\n\n";
  std::string diff =
      "SEARCH/REPLACE edits, one or more, each exactly in this form:\n"
      "<<<<<<< SEARCH\n"
      "<lines copied exactly from the parent>\n"
      "=======\n"
      "<the lines that replace them>\n"
      ">>>>>>> REPLACE\n"
      "Rules: the SEARCH lines must match the parent's lines exactly (indentation included) and in exactly one "
      "place; include enough surrounding lines to make them unique. They must lie between an ";
  diff += kEvolveBlockStart;
  diff += " line and the next ";
  diff += kEvolveBlockEnd;
  diff +=
      " line and must not include a marker line or any frozen line. Edits are applied in order, each to the result "
      "of the previous one. To add code, replace an existing line with itself plus the new lines. Keep each SEARCH "
      "text short (a few lines), but unique.\n";
  const std::string start = std::string(kEvolveStartLine) + "\n", end = std::string(kEvolveEndLine) + "\n";
  std::string rewrite =
      "The complete new body of every EVOLVE block, in file order, each between its marker lines, in one fence:\n"
      "```cuda\n";
  rewrite += start + "<the whole new first block>\n" + end + start + "<the whole new second block, if the file has one>\n" +
             end;
  rewrite +=
      "```\n"
      "Rules: give every block, an unchanged one too; write no code outside the blocks (the frozen text, includes "
      "and all, is kept as it is and may not change). The whole file is also accepted if its frozen text is "
      "unchanged byte for byte.\n";
  if (kind == "diff") return summary + "Answer format: " + diff;
  if (kind == "rewrite") return summary + "Answer format: " + rewrite;
  return summary +
         "Answer format: either the complete blocks (preferred when the parents differ a lot):\n" + rewrite +
         "\nor SEARCH/REPLACE edits against parent 1:\n" + diff;
}

}  // namespace cuco
