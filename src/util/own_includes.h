// A program's own headers: what its files `#include` that resolves in the including file's folder
// (quoted includes) or in one of the program's own include folders (the -I folders its build names
// relatively), followed transitively, as the compiler looks: the first folder that has the file.
// Headers found elsewhere (the toolchain's, the system's) are not the program's and are not listed.
// Shared by the analysis (which parses the own files that communicate) and `cuco init` (which
// copies them into the workload).
#pragma once

#include <string>
#include <vector>

namespace cuco {

struct OwnInclude {
  std::string path;      // as found: the including file's folder or an own include folder, joined
  std::string includer;  // the file of `roots` whose compile first reaches it (directly or not)
  std::string text;      // its bytes, as the walk read them
};

// The own includes of `roots` (the program's listed files, main's first), each once (by resolved
// path), in the order found (breadth first, the roots first); none of `roots` among them.
// `own_include_dirs`: absolute folders. A file that cannot be read is skipped (the compiler names it).
// `root_units`, when given, gets for each root the one of `roots` whose translation unit compiles it:
// itself, unless another root's compile reaches it (then the first such in `roots` order, followed
// to a root that none reaches; in a cycle, the lowest root met on the way).
std::vector<OwnInclude> OwnIncludes(const std::vector<std::string>& roots,
                                    const std::vector<std::string>& own_include_dirs,
                                    std::vector<std::string>* root_units = nullptr);

}  // namespace cuco
