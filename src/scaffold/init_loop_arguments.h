// cuco init's arguments of the served program: what the harness's entry point passes it (its sizes
// by option, position and environment, each with the guess saying so) and the argument it reads that
// nothing would pass. Part of the find-the-loop pass (init_find_loop.h).
#pragma once

#include <string>
#include <vector>

#include "scaffold/main_rewrite.h"
#include "scaffold/program_facts.h"
#include "util/status.h"

namespace cuco::scaffold_internal {

// The sizes the program reads from its command line or environment, as the entry point passes
// them (TimedLoop::SizeFlag), each with a guess: its options (`--batch 512`, not the rank's or
// rank count's); its positional arguments, when every position up to the last is a number cuco
// found that is neither a rank nor a rank count (the non-sizes among them passed as they are) and
// it takes no flags; its environment variables. Sizes are unique by name.
std::vector<TimedLoop::SizeFlag> PassedSizes(const ProgramFacts& f, const TimedLoop& loop, std::vector<std::string>* guesses);

// Where no --args were given and main reads an argument by position past `passed` (those its entry
// point passes) with no default: the sentence naming the last such read's line and how to give it.
// "" otherwise.
std::string ArgumentNotGiven(const ProgramFacts& f, int passed);

// kInvalidArgument when main stops without arguments the harness would not pass (ArgumentsMainRequires:
// fewer than a count, an option called required), or reads one by position that it would not pass
// (past those its entry point passes: loop.size_flags, set; none given with --args; no default the
// analysis found), naming the line and saying how to give it.
Status ArgumentsPassed(const ProgramFacts& f, const TimedLoop& loop);

}  // namespace cuco::scaffold_internal
