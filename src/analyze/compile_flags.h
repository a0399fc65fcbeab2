// The program's own compile flags, as the front end needs them: the include folders, macros and
// language standard with which the user builds the program, so that libclang finds the program's
// headers (`#include "utils.h"` from another folder) instead of falling back to stub headers or the
// lexical scan.
//
// Three sources, merged in this order: flags given one by one (-I DIR, -D NAME[=V], -U NAME,
// -std=X, -include FILE, -isystem DIR, -fopenmp), the user's compiler command (everything after `--` on the
// command line: `nvcc -O2 -I../common main.cu -o prog -lnccl`), and a compile_commands.json (the
// entry for the program's file). Only the flags that change how the source parses are kept;
// relative folders are made absolute against the folder the command runs in (the current folder
// for flags and `--`, the entry's "directory" for compile_commands.json). nvcc spellings
// (--include-path, --define-macro, -I=DIR, --std c++17, -Xcompiler -DX) are understood, and
// --default-stream per-thread becomes -DCUDA_API_PER_THREAD_DEFAULT_STREAM=1, as nvcc defines it.
// Options files are read where they are named (nvcc's --options-file/-optf FILE, a compiler's
// @FILE: CMake's includes_CUDA.rsp), relative to the command's folder; one that cannot be read is
// an error naming it.
#pragma once

#include <string>
#include <vector>

#include "util/status.h"

namespace cuco {

// Flags that change how a C++/CUDA file parses, normalised to clang's joined spelling
// ("-I/abs/dir", "-DNAME=1", "-UNAME", "-std=c++17", "-include/abs/file", "-isystem/abs/dir").
struct CompileFlags {
  std::vector<std::string> flags;
  std::vector<std::string> include_dirs;  // the -I / -isystem folders among flags, absolute
  // Those that are the program's own: named relatively on its command line (`-I../common`), or, in a
  // compile_commands.json, any outside /usr and /opt (build systems write every folder absolute).
  // cuco init copies the headers it uses from them into the workload.
  std::vector<std::string> own_include_dirs;
  // The libraries the command links (-lNAME, -l NAME, --library NAME, nvcc's --library=NAME), in
  // order, as named ("cublas", ":libfoo.so.1"): cuco init links the harness with them.
  std::vector<std::string> libraries;
  std::string source;                     // where they came from, for messages ("compile_commands.json:3")
  // The command is nvcc's: its files see __NVCC__ (code written `#ifdef __NVCC__`), which clang's
  // analysis is then given too (scaffold/program_analysis.cc).
  bool nvcc = false;
  // nvcc's language flags (--expt-relaxed-constexpr, --extended-lambda): what the program's device code
  // means depends on them, so the harness is built with them; clang's analysis is not given them.
  std::vector<std::string> nvcc_flags;
  // The command's flags none of the above takes, less those cuco's build decides itself (-o, -c, -O,
  // -g, -lineinfo, the GPU architecture, -ccbin, linking): said to the user, who may need them.
  std::vector<std::string> unused;
  // The source files the command compiles (.cu, .cc, .cpp, .cxx, .c, .C), absolute, in its order:
  // the program's other sources where the user names only main's file (program_flags.h).
  std::vector<std::string> sources;
};

// The parse-relevant flags of one compiler command line (argv[0] is the compiler, which is
// skipped when it does not start with '-'); relative paths resolved against `directory`.
// Unknown flags are ignored; a flag missing its value is an error naming it.
Result<CompileFlags> FlagsFromCommand(const std::vector<std::string>& argv, const std::string& directory);

// Splits a shell command line into words (single and double quotes, backslash escapes), as
// compile_commands.json's "command" field needs.
std::vector<std::string> SplitShellWords(const std::string& command);

// The flags of `source_file`'s entry in `json_path` (a compile_commands.json, or the folder
// holding one). Errors name the file: unreadable, not JSON (with the line), no entry for the source.
Result<CompileFlags> FlagsFromCompileCommands(const std::string& json_path, const std::string& source_file);

// `a` then `b`, duplicates dropped (first kept).
CompileFlags MergeFlags(const CompileFlags& a, const CompileFlags& b);

}  // namespace cuco
