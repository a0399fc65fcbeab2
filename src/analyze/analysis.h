// cuco analyze: a static picture of a host-driven CUDA+NCCL program (the fast path's first step).
// A libclang front end parses the .cu file as CUDA host code and lists, per function and in
// source order, the NCCL calls, allocations, kernel launches, cuBLAS/cuBLASLt GEMMs, streams,
// events and synchronisation points; then it builds the communication dependency graph
// (producer -> collective -> consumer) by matching the base variables of buffer arguments, across
// functions: a call of a helper defined in the file is an op of the caller carrying what the
// helper (and its own helpers) does to its arguments.
//
// Parse paths, tried in order (Analysis::parse_path says which one produced the result):
//   "clang"       libclang with the real CUDA/NCCL/MPI headers (-x cuda --cuda-host-only
//                 -nocudainc plus a small prelude for threadIdx & co. and the launch hook);
//   "clang-stub"  libclang with built-in stub headers (cuda_runtime.h, nccl.h, cublasLt.h,
//                 mpi.h, ...) instead of the real ones; used when the real headers fail fatally;
//   "lexical"     a token scanner (comments/strings skipped, brace depth for functions,
//                 `name(args)` and `name<<<cfg>>>(args)` calls); used when clang cannot parse.
// libclang-14 is loaded with dlopen (CUCO_LIBCLANG=<path> tries that one first, =none disables it),
// so the cuco binary starts where libclang is absent; there the lexical scanner is used, with a
// warning. With clang, a lexical cross-check adds calls clang dropped (statements it could not
// type-check), named in a warning. Any path other than "clang" adds a warning. A file that cannot be read, or in which no
// path finds a function, is an error (Status names the file).
#pragma once

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "util/status.h"

namespace cuco {

struct AnalyzedOp {
  int index = 0;          // position in Analysis::ops (source order within the file)
  std::string kind;       // collective | p2p | group | comm_setup | window | device_comm | alloc |
                          // kernel | gemm | copy | stream | event | sync | mpi | call (a helper
                          // defined in the file that, directly or through its own helpers,
                          // launches kernels, GEMMs, copies or NCCL ops on its arguments)
  std::string api;        // "ncclAllReduce", "cudaMalloc", kernel name for kind=kernel, ...
  std::string function;   // enclosing function definition
  std::string record;     // the class `function` is a member of ("" for a free one, or unknown: clang only)
  std::string file;       // the file holding the call (one of Analysis::files)
  int line = 0;           // 1-based line in `file`
  std::vector<std::string> args;  // argument expressions as written
  // The function-like macro whose use makes the call (`LAUNCH` of `LAUNCH(sgd_k, n, w, g)`, its
  // replacement `k<<<...>>>(__VA_ARGS__)`), "" where the text spells the call itself.
  std::string macro;
  // Fields filled where the API has them ("" otherwise).
  std::string send, recv, count, datatype, red_op, root, peer, comm, stream;
  std::string buffer;                    // window register: the buffer; event ops: the event
  std::string assigns;                   // alloc / stream / event / comm / window created: the variable
  std::string grid, block, smem;         // kernel launch configuration
  std::vector<std::string> reads, writes;  // base variables of buffers read / written
  // The elements of a buffer (by base variable) the op reads / writes where known, [lo, hi) as
  // expressions over the function's variables (analyze/ranges.h): two ops on disjoint parts of one
  // array are no dependency.
  std::map<std::string, std::pair<std::string, std::string>> read_ranges, write_ranges;
  int group = -1;                        // index in Analysis::groups for ops inside ncclGroupStart/End
  // kind call: the helper issues NCCL collectives / p2p (it is a communication op of the graph);
  // reads / writes are the caller's variables the helper's operations read / write; stream is the
  // caller's stream expression when every operation inside runs on one ("" when not known).
  bool contains_comm = false;
  // kind call: the helper waits on the host for the whole device / for these streams (the caller's
  // stream expressions, its arguments), so it orders the work before it and after it; and for
  // streams of its own (members, globals: the helper's names), which may be the caller's.
  bool helper_syncs_device = false;
  std::vector<std::string> helper_synced_streams, helper_own_synced_streams;
};

// ncclGroupStart ... ncclGroupEnd in one function: one grouped operation.
struct GroupedOp {
  std::string function;
  int start_line = 0, end_line = 0;
  std::vector<int> ops;   // indices of the NCCL ops inside
  std::string pattern;    // "all-to-all (send/recv)", "send/recv", "collectives", "empty"
};

// producer -> communication op, or communication op -> consumer, through `buffer`.
struct DependencyEdge {
  int from = 0, to = 0;  // op indices
  std::string buffer;    // base variable
  std::string role;      // "producer" (from produces what `to`, a comm op, reads) or "consumer"
  // How `to` is ordered after `from`: "stream" (one stream), "event <e>" (recorded on from's
  // stream after it, waited on to's stream before `to`), "host sync (<api>)", or "unordered" (a
  // race: Analysis::warnings says where).
  std::string via;
};

struct AnalyzedFunction {
  std::string name;
  std::string file;  // the file defining it (one of Analysis::files)
  int line = 0;
  std::vector<std::string> params;  // parameter names, in order ("" where unnamed)
  std::string record;  // the class or struct it is a member of ("" for a free function; clang's parse only)
  // A getter's member: the name a method without parameters returns as its one statement
  // (`cudaStream_t stream() const { return stream_; }`; clang's parse only), "" otherwise. A stream
  // named by a call of it (`link->stream()`) is that member's, as the method's own ops name it.
  std::string returns_member{};
};

struct Analysis {
  std::string path;                   // the first file (the one with main, by convention)
  std::vector<std::string> files;     // every file analysed, `path` first
  std::string parse_path;             // "clang", "clang-stub" or "lexical"
  std::vector<std::string> warnings;  // e.g. fallback used, clang error count
  // Why a file was not parsed with clang (so the lexical scan was used), one line each, naming the
  // file and line where there is one: "kernels.cu:31: header 'cub/block/block_reduce.cuh' not found".
  std::vector<std::string> parse_failures;
  // The lines of each file (by its path, as in `files`) that the preprocessor skipped in this build
  // (`#ifdef MPI_SUPPORT` without -DMPI_SUPPORT), [first, last], 1-based; from clang's parse only.
  std::map<std::string, std::vector<std::pair<int, int>>> inactive_lines;
  // Each file's first error as clang parsed it as C++/CUDA (by its path; clang's message, with its
  // place), for the files with one in their host code: a C file C++ does not take has one.
  std::map<std::string, std::string> file_errors;
  // A C source's text with what C++ needs written in (analyze/c_as_cpp.h), by path, for each
  // that needed any: what the analysis read for it, and what a harness builds.
  std::map<std::string, std::string> cpp_texts;
  std::vector<AnalyzedFunction> functions;
  // The data members of each class or struct a member function of `functions` belongs to, by its name
  // (clang's parse only).
  std::map<std::string, std::vector<std::string>> record_fields;
  std::vector<AnalyzedOp> ops;
  std::vector<GroupedOp> groups;
  std::vector<DependencyEdge> edges;
  std::vector<std::string> streams;   // distinct stream expressions ("default" for none)
};

struct AnalyzeOptions {
  std::vector<std::string> include_dirs;  // CUDA, NCCL, MPI include folders (-I)
  // The program's own flags (analyze/compile_flags.h: -I, -D, -U, -std, -include, -isystem), passed to
  // libclang after cuco's own, in both the real-header and the stub-header attempts.
  std::vector<std::string> program_flags;
  bool allow_clang = true;                // false: lexical scanner only (tests)
  bool allow_full = true;                 // false: skip the real-header attempt (tests)
  // The program's own include folders (absolute; CompileFlags::own_include_dirs): with the including
  // files' folders, where AnalyzeProgram looks for the program's own headers (util/own_includes.h).
  std::vector<std::string> own_include_dirs;
  // A file of the analysis that is not compiled on its own (a header, or a .cu that another file
  // `#include`s): the listed file whose translation unit clang parses for it, by path. Its functions
  // and calls are read from that unit, where what it relies on (types, macros, other headers) is
  // declared as in the real build.
  std::map<std::string, std::string> included_from;
  // Files clang reads from here, not from disk, by path: a C source with what C++ needs
  // (analyze/c_as_cpp.h), as AnalyzeProgram made it.
  std::map<std::string, std::string> unsaved;
};

// CUDA/NCCL/MPI include folders found without running anything (CUDA_HOME, /usr/local/cuda,
// /usr/local/include, OpenMPI's Debian folder).
std::vector<std::string> DefaultIncludeDirs();

Result<Analysis> AnalyzeFile(const std::string& path, const AnalyzeOptions& options = {});
// A program split over several files (main.cu model.cu ...): each is parsed on its own, then one
// analysis is built over all of them, so helpers defined in one file and called in another carry
// their effects; ops are in file order, then source order. Errors name the file.
// The program's own headers and included .cu files (util/own_includes.h) that communicate or compute
// join the analysis after the listed files, each parsed in its includer's translation unit: those
// that call an NCCL collective or send/recv, a cuBLAS or cublasLt GEMM or launch a kernel (a GEMM
// helper's reads and writes reach its callers), and those that call a function defined in one that
// does (transitively; found by the lexical scan). A listed file that another listed file includes is
// parsed in that file's unit too.
Result<Analysis> AnalyzeProgram(const std::vector<std::string>& paths, const AnalyzeOptions& options = {});
Result<Analysis> AnalyzeFiles(const std::vector<std::string>& paths, const std::vector<std::string>& texts,
                              const AnalyzeOptions& options = {});
// The same for `text` as if read from `path` (libclang may still look for `path`'s folder for
// includes). Any text gives an analysis or an error; never throws.
Result<Analysis> AnalyzeText(const std::string& path, const std::string& text, const AnalyzeOptions& options = {});

// The readable report of `cuco analyze`.
std::string FormatAnalysis(const Analysis& a);
// `cuco analyze --json` (schema in the comment of analysis_format.cc: AnalysisToJson). Its strings are
// valid UTF-8 (source bytes that are not become U+FFFD), so dump() never throws.
nlohmann::json AnalysisToJson(const Analysis& a);
// Compact text for LLM prompts: one line per op, then the graph.
std::string AnalysisPromptText(const Analysis& a);

// Whether libclang loads here (for `cuco doctor`): the library file it loaded, its version
// ("Debian clang version 14.0.6"), and the names tried when none loaded (or "none
// (CUCO_LIBCLANG=none)"). Without it `analyze` and `init` use the lexical scan.
struct LibclangStatus {
  bool found = false;
  std::string path;
  std::string version;
  std::string tried;
};
LibclangStatus DetectLibclang();

// Adds to `names` every function of the analysis that calls one of them (a `call` op), and their
// callers, transitively.
void AddCallers(const Analysis& a, std::set<std::string>* names);

// Internals shared by the front ends (exposed for tests).
std::string BufferBase(const std::string& expr);            // "(char*)s.buf + off" -> "s.buf"
std::vector<std::string> SplitArgs(const std::string& text);  // top-level commas

}  // namespace cuco
