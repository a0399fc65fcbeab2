// Internal: what a front end (libclang or the lexical scanner) hands to the analysis.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "analyze/analysis.h"
#include "util/source_text.h"

namespace cuco::analyze_internal {

struct RawCall {
  std::string function;  // enclosing function definition
  std::string record;    // the class `function` is a member of ("" for a free one, or unknown: clang only)
  std::string callee;
  int line = 0;
  size_t offset = 0;     // byte offset of the callee name in the file
  int file_index = 0;    // which of the analysed files (AnalyzeFiles' order)
  bool kernel_launch = false;
  // A call of some other function (not an API, not a launch): kept by the analysis when the file
  // defines that function (a helper), whose effects it then carries to this call site.
  bool user_call = false;
  // The function-like macro whose use makes the call (`LAUNCH` of `LAUNCH(sgd_k, n, w, g)`), where
  // the text does not spell the call itself: MacroExpandedCall.
  std::string macro;
  std::vector<std::string> args;
  std::vector<std::string> config;          // <<<grid, block, smem, stream>>>
  bool param_types_known = false;           // clang resolved the kernel's parameter types
  std::vector<int> pointer_params;          // kernel params of pointer type (when known)
  std::vector<int> const_pointer_params;    // kernel params of pointer-to-const type (when known)
  // The kernel's body (defined in the analysed file) read: which params it reads and writes
  // through (param_access.h); when known, these replace "every non-const pointer is written".
  bool param_access_known = false;
  std::vector<int> read_params, written_params;
  // The rows of a pointer parameter the body reads / writes (analyze/ranges.h), by parameter index,
  // in the kernel's parameter names (kernel_params).
  std::map<int, std::pair<std::string, std::string>> read_ranges, write_ranges;
  std::vector<std::string> kernel_params;
};

struct FrontEndResult {
  bool ok = false;
  std::string error;  // why not ok
  std::vector<AnalyzedFunction> functions;
  std::map<std::string, std::vector<std::string>> record_fields;  // Analysis::record_fields
  std::vector<RawCall> calls;
  std::vector<std::string> warnings;
  std::string first_file_error;  // clang's first error in the file itself (host code), "" when none
  // Byte ranges [begin, end) of the file the preprocessor skipped (an #if branch not taken).
  std::vector<std::pair<size_t, size_t>> skipped;
};

// The names the analysis classifies; the stub headers declare them.
const std::vector<std::string>& KnownApis();
bool IsKnownApi(const std::string& name);

// From byte `pos` at an identifier: reads `name (args)`, `name<targs>(args)` or
// `name<targs><<<cfg>>>(args)` (template arguments holding no `=`, `||`, `&&`, `;`, `{` or `)`).
// Returns false when no call follows.
bool ReadCallAt(const std::string& text, size_t pos, std::string* name, std::vector<std::string>* config,
                std::vector<std::string>* args, size_t* end);
// The function a call starting at `at` of `blank` (comments and literals blanked) names: the
// identifier just before its first `(` outside brackets (`a[i]->step(` -> "step"); "" when that is
// no identifier (`f<T>(`, `(*fp)(`) or no `(` comes within 256 characters. For calls clang leaves
// without a name (a member of a type it cannot resolve).
std::string DependentCallee(const std::string& blank, size_t at);
using ::cuco::LineOf;  // util/source_text.h
using ::cuco::BlankCommentsAndLiteralContents;  // util/source_text.h

FrontEndResult ParseWithClang(const std::string& path, const std::string& text, const AnalyzeOptions& o,
                              bool stub, std::string* path_name);
FrontEndResult ParseLexically(const std::string& text);

// An error clang reports in a file, with the byte ranges [begin, end) of that file it points at, the
// fixes it offers there (a range's new text), and its notes (a call's candidate that was not viable,
// with the argument's range).
struct FileDiagnostic {
  struct FixIt {
    size_t begin = 0, end = 0;
    std::string text;
  };
  std::string message;
  std::vector<std::pair<size_t, size_t>> ranges;
  std::vector<FixIt> fixits;
  std::vector<FileDiagnostic> notes;
};
// The errors clang reports in `path` (read as `text`) parsed as CUDA C++ with the real headers, as
// ParseWithClang parses it; empty when libclang cannot be loaded or the file does not parse.
std::vector<FileDiagnostic> ClangErrorsIn(const std::string& path, const std::string& text, const AnalyzeOptions& o);

// per_thread_default: the program is built with per-thread default streams (nvcc --default-stream
// per-thread), so the legacy default stream's implicit ordering does not apply.
Analysis BuildAnalysis(const std::vector<std::string>& paths, const std::vector<AnalyzedFunction>& functions,
                       const std::vector<RawCall>& calls, bool per_thread_default = false);

}  // namespace cuco::analyze_internal
