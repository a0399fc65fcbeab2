// cuco init: a workload folder scaffolded from a user's host-driven CUDA+NCCL program.
//
// ScaffoldWorkload writes, under out_dir:
//   program.cu       the program, byte for byte (with its other sources and its own headers, when
//                    ScaffoldOptions::other_sources names them or its files include them)
//   workload.toml    program mode (untrusted): runs as is under mpirun or cuco's launcher; world
//                    size, launcher, libraries and the time/pass/fail regexes guessed from the
//                    analysis and the program's text, every guess commented with its source
//   analysis.txt     FormatAnalysis of the program
//   harness/         harness mode (trusted): the program itself, its timed loop the iteration, its
//                    reference the same code with NCCL emulated (program_harness.h), verifying
//                    without edits; where init cannot make that (ScaffoldReport::harness_reason says
//                    why, with file:line), a skeleton (workload.toml, seed.cu, reference.cu,
//                    README.md) that loads and compiles, and every run of which fails with a message
//                    naming the TODO(cuco init) the user has left
// Both workload.toml files are loaded back with LoadWorkload before ScaffoldWorkload returns.
//
// Errors: kInvalidArgument for bad input (the program unreadable or without an NCCL call, out_dir
// a file or a non-empty folder without `force`), naming the path; kIOError when writing fails;
// kInternal when what was written does not load back (a cuco bug).
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analyze/analysis.h"
#include "scaffold/init_trace.h"
#include "workload/workload_config.h"
#include "util/status.h"

namespace cuco {

struct ScaffoldOptions {
  std::string name;    // workload name; empty: the program's file stem, sanitised
  bool force = false;  // write into a non-empty out_dir (files of the same name are replaced)
  // The program's own compile flags (-I, -D, -std, ...: analyze/compile_flags.h), written into both
  // workload.toml files' [build] flags so the program builds as the user builds it.
  std::vector<std::string> compile_flags;
  // nvcc's language flags on the build line (CompileFlags::nvcc_flags): the harness's build gets them.
  std::vector<std::string> nvcc_flags;
  // The build line's flags no build of cuco's uses (CompileFlags::unused): a TODO names them.
  std::vector<std::string> unused_flags;
  // The libraries the user's build line links (CompileFlags::libraries): added to what init
  // guesses from the program's calls, except those the harness answers itself (MPI, NCCL, the CUDA
  // runtime): a library called only from a header (llm.c's cuBLAS) is still linked.
  std::vector<std::string> link_libraries;
  // The program's other source files: copied with the headers its files include (program_files.h)
  // and built with it ([build] sources). One outside the main file's folder keeps its place relative
  // to main, each `..` spelled `_up`.
  std::vector<std::string> other_sources;
  // The program's own include folders (CompileFlags::own_include_dirs, absolute): the headers its
  // files include from them are copied in, and their flags name the copies relative to the workload.
  std::vector<std::string> own_include_dirs;
  // `--loop FILE:LINE`: the loop the harness serves (FILE the program's main file, LINE the line of
  // its `for` / `while`), instead of the one the rules choose; "" for the rules.
  std::string loop;
  // `--args "..."`: the arguments the program is run with, split at whitespace, passed to it by
  // the harness's entry point and in program mode; "": started without arguments.
  std::string args;
  // What the workload is made from (ProgramInputsHash of the program, its other sources, flags and
  // libraries), written to its .cuco-inputs; "" computes it here (`cuco run` passes the one it has).
  std::string inputs_hash;
};

// One integer a guess came from: `source` says where ("program.cu:201: default of --m").
struct GuessedInt {
  std::string name;
  int64_t value = 0;
  std::string source;
};

struct ScaffoldReport {
  std::filesystem::path out_dir;
  std::string name;                          // program-mode workload; the skeleton is name + "_harness"
  std::vector<std::filesystem::path> files;  // written, in order
  int world_size = 2;
  std::string world_size_source;             // "" when it is the default
  std::string launcher;                      // "mpirun" | "cuco"
  std::vector<std::string> libs;
  std::string time_regex, pass_regex, fail_regex;
  bool time_regex_guessed = false, pass_regex_guessed = false;
  std::vector<GuessedInt> sizes;             // harness [sizes.bench]
  std::vector<std::string> inputs, outputs;  // harness buffers guessed from the dependency graph
  std::vector<std::string> todos;            // what the user must check or fill in, one line each
  bool harness_ready = false;                // harness/ is the program itself (no TODO left there)
  std::string harness_reason;                // else why not, with file:line
  std::vector<std::string> harness_guesses;  // harness/: each decision with its file:line
  // The harness passes run (program_harness.h), each with what it decided and why; the last one's
  // last line the reason when harness/ is a skeleton (`cuco init --explain`).
  std::vector<InitPassTrace> explain;
  // harness/workload.toml as loaded back after it was written (the skeleton's too): read once, so
  // that `cuco run` passes it on instead of parsing it again.
  std::optional<WorkloadConfig> harness_workload;
};

Result<ScaffoldReport> ScaffoldWorkload(const Analysis& analysis, const std::string& program_path,
                                        const std::filesystem::path& out_dir, const ScaffoldOptions& options = {});

// `cuco init --json` (schema cuco.init/1).
nlohmann::json ScaffoldReportToJson(const ScaffoldReport& r);

// The file in a workload folder naming the program it was made from (ProgramOrigin, one line).
inline constexpr const char* kOriginFile = ".cuco-origin";
// `program_path`'s canonical absolute path.
std::string ProgramOrigin(const std::string& program_path);

// The file in a workload folder holding what `cuco init` made it from (ProgramInputsHash, one line).
inline constexpr const char* kInputsFile = ".cuco-inputs";
// A hash of `files`' canonical paths and contents (in order; an unreadable file counts as its path), the compile flags,
// the libraries, and the user's choices (`--loop`, `--args`; each counted only when given, so a
// workload made without them keeps its hash): what a workload made by `cuco init` depends on.
std::string ProgramInputsHash(const std::vector<std::string>& files, const std::vector<std::string>& compile_flags,
                              const std::vector<std::string>& libraries, const std::string& loop = "",
                              const std::string& args = "");

// What `cuco run <program>` finds at `dir`: no workload made yet; one made from these inputs (or by a
// cuco that did not record them: reused as before); or one made from other inputs (the program,
// its flags or libraries changed since), whose recorded hash is then put in *was.
enum class ProgramWorkloadState { kNone, kCurrent, kChanged };
ProgramWorkloadState StateOfProgramWorkload(const std::filesystem::path& dir, const std::string& inputs_hash,
                                            std::string* was = nullptr);

// A name workload.toml accepts ([A-Za-z0-9_.-]+) made from `text`; "workload" when nothing is left.
std::string SanitizeWorkloadName(const std::string& text);

// The workload name `cuco init` gives `program_path` when --name is not set: the file's stem, or
// its folder's name for a main.cu (tests/programs/tp_mlp/main.cu -> tp_mlp), sanitised; a folder
// named for a language or role (c, src, cuda, ...) adds its parent and a hash of its path
// (examples/01_allreduce/c/main.cc -> 01_allreduce_c_3f2a), so programs in such folders differ.
std::string DefaultWorkloadName(const std::string& program_path);

}  // namespace cuco
