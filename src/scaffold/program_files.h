// The files of a program split over several files, as `cuco init` copies them into the workload
// folder: the other sources given on the command line (compiled and linked with the main file:
// workload.toml [build] sources) and the program's own headers, those its files include that
// resolve in the including file's folder or in one of the program's own include folders (the -I
// folders its build line names relatively: `-I../common`), followed transitively. Headers found
// elsewhere (the toolchain's, an absolute -I) stay where they are.
//
// Names are relative to the main file's folder, which is the workload folder: a file outside it
// keeps its place relative to main with each `..` spelled `_up` (`../../common/src/utils.cc` ->
// `_up/_up/common/src/utils.cc`), so that relative includes between the copies still resolve and the
// workload does not point back into the user's tree. OwnIncludeFlag rewrites an own include folder's
// flag the same way (`-I/abs/common` -> `-I_up/common`; workload.toml's relative include folders are
// found from the workload folder).
#pragma once

#include <set>
#include <string>
#include <vector>

#include "util/status.h"

namespace cuco::scaffold_internal {

struct ProgramFile {
  std::string name;  // relative to the main file's folder ("mlp.cu", "include/mlp.h", "_up/common/utils.h")
  std::string text;
  bool source = false;  // a compiled source (else a header)
  std::string path;     // where it is in the user's tree (as found: relative to the current folder, or absolute)
};

// `path` as the workload names it: relative to `main_dir`, each leading `..` spelled `_up`.
std::string WorkloadName(const std::string& path, const std::string& main_dir);

// The main file's folder, which names the program's files (WorkloadName's `main_dir`): "." for a bare name.
std::string ProgramRoot(const std::string& main_path);

// `own_include_dirs`: absolute folders (the program's own -I folders). Errors name the file: unreadable,
// or a source named like another in another folder (the two would be taken for one).
Result<std::vector<ProgramFile>> CollectProgramFiles(const std::string& main_path,
                                                     const std::vector<std::string>& other_sources,
                                                     const std::vector<std::string>& own_include_dirs = {});

// `text`, a file the workload holds at `name` (relative to the workload folder: the main file, a
// harness file made from it, or a copy), which was `path` in the user's tree (the main file's folder
// `main_dir`), with each `#include "P"` that reaches one of the program's own files through `..`
// out of the workload's place for it spelled as the workload places the copy: the main file's
// `#include "../common.cuh"` becomes `#include "_up/common.cuh"`. So is each found through one of
// `include_dirs` (absolute: the program's own -I folders) above the main file's folder, where the
// workload holds no such folder: `-I..` and src/main.cu's `#include "src/tp/runner.h"` become
// `#include "tp/runner.h"`. Other text is unchanged.
std::string WithWorkloadIncludes(const std::string& text, const std::string& path, const std::string& name,
                                 const std::string& main_dir, const std::vector<std::string>& include_dirs = {});

// `text`, a source file the workload holds at `name` and pastes into the harness's one unit (seed.cu at
// the workload's root), with each `#include "P"` that named a file of the program beside it
// (`name`'s folder / P is one of `program_files`) spelled from the root: `_up/util/argparse.c`'s
// `#include "argparse.h"` becomes `#include "_up/util/argparse.h"`. Other text is unchanged.
std::string IncludesFromUnitRoot(const std::string& text, const std::string& name, const std::set<std::string>& program_files);

// A compile flag with an own include folder (`-I/abs/common`, `-isystem/abs/x`) spelled as the
// workload names the folder (`-I_up/common`); -isystem and -include spelled as nvcc takes them
// (`-isystem=/usr/x`: CompileFlags joins them as clang does, which nvcc rejects); any other flag as it is.
std::string OwnIncludeFlag(const std::string& flag, const std::string& main_dir, const std::set<std::string>& own_dirs);

}  // namespace cuco::scaffold_internal
