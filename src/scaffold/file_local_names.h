// Names a source file keeps to itself (internal linkage): at namespace scope, a `static` function or
// variable, what an unnamed namespace declares, and `__device__` code and `__device__`/`__constant__`
// data (device code is its file's own in a build without -rdc). Two of a program's files may each
// define one of the same name (`static TpDataKind selected_data_kind()` in two runners), or one may
// keep to itself a name another file's global has (`__constant__ double Lx;` beside a host `double
// Lx;`); in the harness, where the program's files are one unit (seed.cu, reference.cu), they would
// clash, so each file after the first to keep such a name, and each keeping another's global's,
// gets its own spelling of it.
// Contract: pure functions of the text (tokens.h); preprocessor lines are not read.
#pragma once

#include <set>
#include <string>
#include <utility>
#include <vector>

namespace cuco::scaffold_internal {

std::set<std::string> FileLocalNames(const std::string& text);

// For each of `texts` (a program's files, the one whose names stay first), the renames that keep
// its file-local names apart from an earlier file's: `name` -> `name_cuco_<tag>`, `tags[i]` naming
// file i (its stem). Applied with RenameTokens(text, renames, {.members = false}) (tokens.h).
std::vector<std::vector<std::pair<std::string, std::string>>> FileLocalRenames(const std::vector<std::string>& texts,
                                                                               const std::vector<std::string>& tags);

}  // namespace cuco::scaffold_internal
