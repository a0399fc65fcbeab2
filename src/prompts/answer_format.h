// Answer format: how a proposer's mutation must be answered, as told to the model.
//
// The slow path (propose/) asks for one of three mutation kinds, and block_edits.h reads the
// answers in exactly these forms: "diff" (SEARCH/REPLACE edits inside the EVOLVE blocks),
// "rewrite" (every EVOLVE block whole, in one fence) and "crossover" (either). Every format starts
// with the "SUMMARY:" line the proposer records. Pure text; no I/O.
#pragma once

#include <string>

namespace cuco {

// "diff", "rewrite" or "crossover" (anything else, e.g. "knobs", is asked as a diff).
std::string NormalizedMutationKind(const std::string& kind);

// The exact answer format for a mutation kind, as told to the model (starts with the
// "SUMMARY:" line it must give first).
std::string AnswerFormatText(const std::string& mutation_kind);

}  // namespace cuco
