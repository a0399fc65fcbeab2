// The entry points of the analysis: for each file, the parse path (clang with the real headers,
// clang with stub headers, the lexical scan) and the lexical cross-check; then one BuildAnalysis
// over all files, so a helper defined in one file and called from another carries its effects.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <regex>
#include <set>

#include <fmt/format.h>

#include "analyze/analysis.h"
#include "analyze/c_as_cpp.h"
#include "analyze/frontend.h"
#include "analyze/param_access.h"
#include "analyze/ranges.h"
#include "analyze/spaced_launches.h"
#include "analyze/api_specs.h"
#include "util/own_includes.h"

namespace cuco {

std::vector<std::string> DefaultIncludeDirs() {
  std::vector<std::string> dirs;
  auto add = [&](const std::string& d) {
    if (!d.empty() && std::filesystem::is_directory(d) && std::find(dirs.begin(), dirs.end(), d) == dirs.end())
      dirs.push_back(d);
  };
  if (const char* h = std::getenv("CUDA_HOME")) add(std::string(h) + "/include");
  add("/usr/local/cuda/include");
  if (const char* h = std::getenv("CUCO_NCCL_HOME")) add(std::string(h) + "/include");
  if (std::filesystem::exists("/usr/local/include/nccl.h")) add("/usr/local/include");
  add("/usr/lib/x86_64-linux-gnu/openmpi/include");
  add("/usr/lib/x86_64-linux-gnu/openmpi/include/openmpi");
  return dirs;
}

namespace {

using namespace analyze_internal;

Result<std::string> ReadWhole(const std::string& path) {
  if (!std::filesystem::is_regular_file(path)) return Status::NotFound(path + ": no such file");
  std::string text;
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return Status::NotFound(path + ": cannot be read");
  char buf[65536];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) text.append(buf, n);
  std::fclose(f);
  return text;
}

// Why clang did not parse `path`, from the first attempt's error: a header it could not find
// (named, with the line that includes it), libclang missing, or clang's own words.
std::string ClangFailure(const std::string& path, const std::string& error) {
  static const std::regex missing(R"(([^\s:]+):(\d+):(?:\d+:)? fatal error: '([^']+)' file not found)");
  std::smatch m;
  if (std::regex_search(error, m, missing))
    return fmt::format("{}:{}: header '{}' not found", std::filesystem::path(m[1].str()).filename().string(), m[2].str(),
                       m[3].str());
  if (error.find("could not be loaded") != std::string::npos) return error + " (`cuco doctor`)";
  return std::filesystem::path(path).filename().string() + ": clang could not parse it (" + error + ")";
}

// A kernel launch of a kernel this file defines, read from the kernel's text (param_access.h,
// ranges.h): which parameters are pointers, which it reads and writes, and in which rows.
void KernelFromText(const std::string& blank, RawCall* c) {
  KernelParams k;
  if (!c->kernel_launch || !KernelParamsFromText(blank, c->callee, &k)) return;
  c->param_types_known = c->param_access_known = true;
  c->pointer_params = k.pointers, c->const_pointer_params = k.const_pointers;
  c->read_params = k.read, c->written_params = k.written;
  c->kernel_params = k.names;
  for (int i : k.pointers) {
    const std::string& name = k.names[static_cast<size_t>(i)];
    if (auto rr = KernelParamRange(blank, k.body_begin, k.body_end, name, k.names, true)) c->write_ranges[i] = {rr->lo, rr->hi};
    if (auto rr = KernelParamRange(blank, k.body_begin, k.body_end, name, k.names, false)) c->read_ranges[i] = {rr->lo, rr->hi};
  }
}

// One file through the parse paths, in order; `used` says which produced the result; `failure`
// why clang did not (when the lexical scan was used).
Result<FrontEndResult> ParseOneFile(const std::string& path, const std::string& text, const AnalyzeOptions& options,
                                    std::string* used, std::vector<std::string>* warnings, std::string* failure) {
  FrontEndResult r;
  std::string first_error = options.allow_clang ? "" : "the lexical scan was asked for";
  if (options.allow_clang) {
    if (options.allow_full) {
      r = ParseWithClang(path, text, options, false, used);
      if (!r.ok) first_error = r.error;
      if (!r.ok) {
        warnings->push_back("clang with the real CUDA/NCCL headers failed (" + r.error + "); retried with stub headers");
        if (r.error.find("file not found") != std::string::npos)
          warnings->push_back(ClangFailure(path, r.error) + "; give cuco the program's compile flags (-I DIR, -D NAME, --std, "
                              "`-- <your compile command>` or --compile-commands FILE)");
      }
    }
    if (!r.ok) {
      r = ParseWithClang(path, text, options, true, used);
      if (!r.ok && first_error.empty()) first_error = r.error;
      if (!r.ok) warnings->push_back("clang with stub headers failed (" + r.error + "); used the lexical scanner");
    }
  }
  if (!r.ok) {
    *failure = ClangFailure(path, first_error);
    *used = "lexical";
    r = ParseLexically(text);
    if (!r.ok) return Status::InvalidArgument(path + ": not parseable: " + r.error);
    warnings->push_back("lexical scan: no types, macros not expanded; kernel argument directions are guessed");
  } else if (*used == "clang-stub") {
    warnings->push_back("clang-stub: parsed against cuco's stub headers, not the real CUDA/NCCL ones");
  }
  if (*used != "lexical") {
    // Cross-check: calls the lexical scanner sees in a function clang saw but clang did not report
    // (a statement clang could not type-check) are added, and named in a warning. Code the
    // preprocessor skipped in this build is no call of the program.
    std::string active = text;
    for (const auto& [b, e] : r.skipped)
      for (size_t i = b; i < e && i < active.size(); ++i)
        if (active[i] != '\n') active[i] = ' ';
    FrontEndResult lex = ParseLexically(active);
    std::set<size_t> offsets;
    std::set<std::string> names;
    for (const auto& c : r.calls) offsets.insert(c.offset);
    for (const auto& f : r.functions) names.insert(f.name);
    std::vector<std::string> added;
    const std::string blank = BlankCommentsAndLiteralContents(active);
    for (RawCall c : lex.calls) {
      if (offsets.count(c.offset) || !names.count(c.function)) continue;
      if (c.user_call && !names.count(c.callee)) continue;  // not a helper of this file
      added.push_back(fmt::format("{} at line {}", c.callee, c.line));
      KernelFromText(blank, &c);
      r.calls.push_back(c);
    }
    // A launch clang saw but could not read the kernel of (a template kernel whose CUB headers clang
    // half-parses): the kernel's text says what it reads and writes.
    for (RawCall& c : r.calls)
      if (c.kernel_launch && !c.param_access_known) KernelFromText(blank, &c);
    if (!added.empty())
      warnings->push_back(fmt::format("{} call(s) found only by the lexical cross-check (clang did not resolve "
                                      "their statements: inside a template, or a type error): {}",
                                      added.size(), fmt::join(added, ", ")));
  }
  warnings->insert(warnings->end(), r.warnings.begin(), r.warnings.end());
  return r;
}

int PathRank(const std::string& p) { return p == "clang" ? 0 : p == "clang-stub" ? 1 : 2; }

bool CommunicationCall(const std::string& callee) {
  const auto it = Specs().find(callee);
  return it != Specs().end() && (std::string(it->second.kind) == "collective" || std::string(it->second.kind) == "p2p");
}

// A GEMM (cuBLAS, cublasLt) or a kernel launch: a helper making it computes on its arguments (a
// header's `hgemm(handle, w, x, y)`), whose reads and writes the analysis must carry to its callers.
bool ComputeCall(const RawCall& c) {
  if (c.kernel_launch) return true;
  const auto it = Specs().find(c.callee);
  return it != Specs().end() && std::string(it->second.kind) == "gemm";
}

// Of `found` (the own includes of the program's files), those that join the analysis (analysis.h,
// AnalyzeProgram), in the order found, from the lexical scan of each: those that call an NCCL
// collective or send/recv or compute (ComputeCall), then, to a fixed point, those that call a
// function one of those defines.
std::vector<OwnInclude> JoiningIncludes(const std::vector<OwnInclude>& found) {
  std::vector<FrontEndResult> scans;
  for (const OwnInclude& inc : found) scans.push_back(ParseLexically(inc.text));
  std::vector<bool> joins(found.size(), false);
  std::set<std::string> defined;  // functions the joining files define
  for (bool grew = true; grew;) {
    grew = false;
    for (size_t i = 0; i < found.size(); ++i) {
      if (joins[i]) continue;
      for (const RawCall& c : scans[i].calls)
        joins[i] = joins[i] || CommunicationCall(c.callee) || ComputeCall(c) || defined.count(c.callee) > 0;
      if (!joins[i]) continue;
      grew = true;
      for (const AnalyzedFunction& f : scans[i].functions) defined.insert(f.name);
    }
  }
  std::vector<OwnInclude> out;
  for (size_t i = 0; i < found.size(); ++i)
    if (joins[i]) out.push_back(found[i]);
  return out;
}

}  // namespace

Result<Analysis> AnalyzeFiles(const std::vector<std::string>& paths, const std::vector<std::string>& texts,
                              const AnalyzeOptions& options) {
  if (paths.empty() || paths.size() != texts.size()) return Status::InvalidArgument("no program file to analyse");
  std::vector<std::string> warnings;
  std::vector<AnalyzedFunction> functions;
  std::vector<RawCall> calls;
  std::string worst = "clang";
  std::vector<std::string> per_file, failures;
  std::map<std::string, std::vector<std::pair<int, int>>> inactive;
  std::map<std::string, std::string> file_errors;
  std::map<std::string, std::vector<std::string>> record_fields;
  for (size_t k = 0; k < paths.size(); ++k) {
    std::string used, failure;
    std::vector<std::string> file_warnings;
    Result<FrontEndResult> r = ParseOneFile(paths[k], texts[k], options, &used, &file_warnings, &failure);
    const std::string name = std::filesystem::path(paths[k]).filename().string();
    // A source of the program's beside main's that defines no function (its globals' definitions,
    // `namespace stats { unsigned iters; }`) has nothing to analyse, and is no error. ParseOneFile
    // fails only there: when no parse path, the lexical scan last, found a function definition.
    if (!r.ok() && k > 0) {
      warnings.push_back(name + ": defines no function (declarations only): nothing to analyse in it");
      per_file.push_back(name + " none");
      continue;
    }
    if (!r.ok()) return r.status();
    if (!failure.empty()) failures.push_back(failure);
    for (const auto& [b, e] : r->skipped)
      inactive[paths[k]].push_back({LineOf(texts[k], b), LineOf(texts[k], e > b ? e - 1 : b)});
    if (!r->first_file_error.empty()) file_errors[paths[k]] = r->first_file_error;
    for (auto& w : file_warnings) warnings.push_back(paths.size() > 1 ? name + ": " + w : w);
    record_fields.insert(r->record_fields.begin(), r->record_fields.end());
    for (AnalyzedFunction f : r->functions) {
      f.file = paths[k];
      functions.push_back(std::move(f));
    }
    for (RawCall c : r->calls) {
      c.file_index = static_cast<int>(k);
      calls.push_back(std::move(c));
    }
    if (PathRank(used) > PathRank(worst)) worst = used;
    per_file.push_back(name + " " + used);
  }
  bool per_thread_default = false;
  for (const auto& f : options.program_flags)
    per_thread_default |= f.rfind("-DCUDA_API_PER_THREAD_DEFAULT_STREAM", 0) == 0;
  Analysis a = BuildAnalysis(paths, functions, calls, per_thread_default);
  a.parse_path = worst;
  a.parse_failures = failures;
  a.inactive_lines = inactive;
  a.file_errors = file_errors;
  a.record_fields = record_fields;
  if (paths.size() > 1 && worst != "clang")
    warnings.push_back(fmt::format("parse paths per file: {}", fmt::join(per_file, ", ")));
  warnings.insert(warnings.end(), a.warnings.begin(), a.warnings.end());
  a.warnings = warnings;
  return a;
}

Result<Analysis> AnalyzeText(const std::string& path, const std::string& text, const AnalyzeOptions& options) {
  return AnalyzeFiles({path}, {text}, options);
}

Result<Analysis> AnalyzeFile(const std::string& path, const AnalyzeOptions& options) {
  return AnalyzeProgram({path}, options);
}

Result<Analysis> AnalyzeProgram(const std::vector<std::string>& listed, const AnalyzeOptions& options) {
  std::vector<std::string> paths = listed, texts;
  for (const auto& p : listed) {
    Result<std::string> t = ReadWhole(p);
    if (!t.ok()) return t.status();
    texts.push_back(std::move(*t));
  }
  AnalyzeOptions with_includes = options;
  // One walk of the includes: a listed file that another listed file includes is read from that
  // file's unit, and so is each communicating include (its includer's unit).
  std::vector<std::string> units;
  const std::vector<OwnInclude> found = OwnIncludes(listed, options.own_include_dirs, &units);
  std::map<std::string, std::string> unit_of;
  for (size_t k = 0; k < listed.size(); ++k) {
    unit_of[listed[k]] = units[k];
    if (units[k] != listed[k]) with_includes.included_from[listed[k]] = units[k];
  }
  for (OwnInclude& inc : JoiningIncludes(found)) {
    with_includes.included_from[inc.path] = unit_of[inc.includer];
    paths.push_back(std::move(inc.path));
    texts.push_back(std::move(inc.text));
  }
  // Launches written with their chevrons apart are read joined (spaced_launches.h), by clang
  // (unsaved), the analysis and the harness (cpp_texts), headers of the program's own included.
  for (size_t k = 0; k < texts.size(); ++k)
    if (std::string joined = WithLaunchChevronsJoined(texts[k]); joined != texts[k])
      texts[k] = with_includes.unsaved[paths[k]] = std::move(joined);
  // A C source is read as a harness builds it, as C++, with what C++ needs written in (c_as_cpp.h):
  // clang reads that text (unsaved), and so do the analysis and the harness (cpp_texts).
  for (size_t k = 0; k < listed.size(); ++k) {
    if (std::filesystem::path(listed[k]).extension() != ".c" || !options.allow_clang || !options.allow_full) continue;
    std::string as_cpp = WithEdits(texts[k], EditsCppNeeds(ClangErrorsIn(listed[k], texts[k], with_includes), texts[k]));
    if (as_cpp != texts[k]) texts[k] = with_includes.unsaved[listed[k]] = std::move(as_cpp);
  }
  Result<Analysis> a = AnalyzeFiles(paths, texts, with_includes);
  if (a.ok()) a->cpp_texts = std::move(with_includes.unsaved);
  return a;
}

}  // namespace cuco
