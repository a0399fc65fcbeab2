#include "scaffold/program_facts.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <regex>
#include <set>
#include <utility>

#include "scaffold/function_pointers.h"
#include "scaffold/launcher_guess.h"
#include "scaffold/loop_accesses.h"
#include "scaffold/print_condition.h"
#include "scaffold/program_text.h"
#include "util/source_text.h"

namespace cuco::scaffold_internal {
namespace {

// Identifiers called in the code (`name(` or `name<<<`), each with its first line.
std::map<std::string, int> CalledNames(const std::string& code) {
  std::map<std::string, int> out;
  static const std::regex call_re(R"(\b([A-Za-z_]\w*)\s*(?:\(|<<<))");
  for (auto it = std::sregex_iterator(code.begin(), code.end(), call_re); it != std::sregex_iterator(); ++it)
    if (!out.count((*it)[1].str())) out.emplace((*it)[1].str(), LineOf(code, static_cast<size_t>(it->position(0))));
  return out;
}

// What program mode cannot run as is: no main().
void NoteProgramShape(ProgramFacts& f) {
  const Analysis& analysis = *f.analysis;
  f.has_main = std::any_of(analysis.functions.begin(), analysis.functions.end(),
                           [](const AnalyzedFunction& fn) { return fn.name == "main"; }) ||
               f.called.count("main") > 0;
  if (!f.has_main)
    f.todos.push_back(fmt::format("{} defines no main(): program mode runs the program as it is, so it must be a "
                                  "complete program", f.file));
}

// A TODO for each of the program's files where clang, reading it with the build line's flags, finds
// an error in the file's own host code that nvcc would make too (NvccWouldFailToo: a call the
// installed MPI or NCCL lacks, an argument order of an older API, a call no overload takes): the
// user's build line most likely fails there, and so would the harness.
void NoteClangErrors(ProgramFacts& f) {
  for (const std::string& path : f.analysis->files) {  // main's file first
    const auto it = f.analysis->file_errors.find(path);
    if (it == f.analysis->file_errors.end()) continue;
    const std::string name = SourceFileName(path);
    const std::string* text = SourceText(f, name);
    if (!NvccWouldFailToo(it->second, text != nullptr ? *text : std::string())) continue;
    f.todos.push_back(fmt::format("{}: clang, given the build line's flags, finds an error in the program itself: {}; "
                                  "if the build line fails there too, fix the program or the line (-D, -I after `--`) "
                                  "before compiling the harness",
                                  name, it->second));
  }
}

// Libraries, in the order the builder is usually given them.
void GuessLibs(ProgramFacts& f) {
  // The main file's calls and every file's ops (a GEMM in the program's other source).
  auto calls_prefix = [&](const std::string& p, const char* not_prefix = nullptr) {
    auto is = [&](const std::string& n) { return n.rfind(p, 0) == 0 && (!not_prefix || n.rfind(not_prefix, 0) != 0); };
    for (const auto& [n, line] : f.called)
      if (is(n)) return true;
    if (f.analysis != nullptr)
      for (const auto& op : f.analysis->ops)
        if (is(op.api)) return true;
    return false;
  };
  if (calls_prefix("cublasLt")) f.libs.push_back("cublasLt");
  if (calls_prefix("cublas", "cublasLt")) f.libs.push_back("cublas");
  f.libs.push_back("nccl");
  if (calls_prefix("nvshmem")) f.libs.push_back("nvshmem");
  if (f.launcher == "mpirun" || calls_prefix("MPI_")) f.libs.push_back("mpi");
}

// Where the pass line is printed under no condition and nothing but an error-checking macro prints a
// failure (NCCL's examples' closing "Success"): a TODO saying that it shows the program ran to its
// end, not that its results are right.
void UnconditionalPassTodo(ProgramFacts& f) {
  std::vector<PrintCall> outside_macros;
  for (const PrintCall& p : f.prints)
    if (!InDirective(f.code, p.line)) outside_macros.push_back(p);
  if (GuessVerdictRegex(outside_macros, false)) return;
  for (const PrintCall& p : f.prints)
    if (p.line == f.pass->line && !PrintedUnderACondition(f.code, p)) {
      f.todos.push_back(fmt::format("workload.toml [program] pass_regex: {}:{} prints its pass line under no condition, "
                                    "and nothing outside the program's error-checking macros prints a failure: the line "
                                    "says the program ran to its end, not that its results are right, so program mode "
                                    "passes whenever it does (harness/ checks its outputs)", f.file, p.line));
      return;
    }
}

// The output regexes, and a TODO for each that is missing or not in milliseconds.
void GuessOutputRegexes(ProgramFacts& f) {
  f.prints = FindPrints(f.code);
  f.time = GuessTimeRegex(f.prints);
  f.pass = GuessVerdictRegex(f.prints, true);
  f.fail = GuessVerdictRegex(f.prints, false);
  if (!f.time) f.todos.push_back("workload.toml [program] time_regex: no timing line found in the program's output; "
                                 "the default expects \"Time: <ms> ms\"");
  else if (f.time->unit != "ms")
    f.todos.push_back(fmt::format("workload.toml [program] time_regex: {}:{} prints {}; cuco reads milliseconds",
                                  f.file, f.time->line,
                                  f.time->unit.empty() ? "a time without a unit" : "a time in " + f.time->unit));
  if (!f.pass) {  // no verdict printed: the checksum line, when there is one, says the program ran to its end
    for (const auto& p : f.prints) {
      std::string lower = p.format;
      for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      const size_t at = lower.find("checksum");
      if (at == std::string::npos) continue;
      const std::string label = p.format.substr(at, p.format.find('%', at) == std::string::npos
                                                        ? std::string::npos
                                                        : p.format.find('%', at) - at);
      f.pass = RegexGuess{RegexFor(Trim(label)), p.line, p.format, ""};
      f.todos.push_back(fmt::format("workload.toml [program] pass_regex: the program prints no verdict; its checksum line "
                                    "({}:{}) is taken as the sign that it ran to its end, so program mode passes whenever it "
                                    "does (harness/ checks its outputs)", f.file, p.line));
      break;
    }
  }
  if (!f.pass) f.todos.push_back("workload.toml [program] pass_regex: no pass line found; the default expects \"PASS\"");
  else UnconditionalPassTodo(f);
}

}  // namespace

const std::string* SourceText(const ProgramFacts& f, const std::string& file) {
  const std::string* text = file == f.file ? &f.raw : nullptr;
  for (const auto& [name, code] : f.other_code) text = name == file ? &code : text;
  return text;
}

bool NvccWouldFailToo(const std::string& error, const std::string& text) {
  static const std::regex located(R"(^.*?:(\d+):(?:\d+:)?\s*(?:fatal )?error:\s*(.*)$)");
  static const std::regex undeclared(R"(undeclared identifier '([^']*)')");
  static const std::regex api(R"(^(cuda|cu[A-Z]|nccl|NCCL_|MPI_|MPIX_|cublas|CUBLAS_|cudnn|CUDNN_|nvshmem|curand|cusparse|cufft))");
  if (error.find("namespace 'std'") != std::string::npos) return false;
  std::smatch m, u;
  if (!std::regex_match(error, m, located)) return true;
  const std::string message = m[2].str();
  if (std::regex_search(message, u, undeclared) && !std::regex_search(u[1].str(), api)) return false;
  if (m[1].length() > 9) return true;
  const size_t at = OffsetOfLine(text, std::stoi(m[1].str()));
  return text.substr(at, text.find('\n', at) - at).find("<<<") == std::string::npos;
}

void AddBuildLineLibraries(const std::vector<std::string>& build_line_libs, std::vector<std::string>* libs) {
  auto starts = [](const std::string& s, const char* p) { return s.rfind(p, 0) == 0; };
  for (const std::string& l : build_line_libs) {
    if (l.empty() || starts(l, "mpi") || starts(l, "nccl") || starts(l, "cudart") || starts(l, ":libnccl") ||
        starts(l, ":libmpi") || starts(l, ":libcudart"))
      continue;
    if (std::find(libs->begin(), libs->end(), l) == libs->end()) libs->push_back(l);
  }
}

int FirstCall(const ProgramFacts& f, const std::string& prefix, std::string* which) {
  for (const auto& [name, line] : f.called)
    if (name.rfind(prefix, 0) == 0) {
      if (which) *which = name;
      return line;
    }
  return 0;
}

void SetProgramArguments(ProgramFacts* f, std::vector<std::string> args) {
  f->program_args = std::move(args);
  std::string elsewhere;  // the other files: their enums, an options parser's member defaults
  for (const auto* files : {&f->other_code, &f->header_code})
    for (const auto& [name, code] : *files) elsewhere += code + "\n";
  f->run_defaults = DefaultsOf(f->code, {}, f->program_args, elsewhere);
}

std::string WithoutInactiveLines(const Analysis& analysis, const std::string& path, std::string text) {
  if (auto it = analysis.inactive_lines.find(path); it != analysis.inactive_lines.end()) return BlankLines(std::move(text), it->second);
  return text;
}

ProgramFacts GatherFacts(const Analysis& analysis, const std::string& file, const std::string& name,
                         const std::string& raw, const std::vector<ProgramFile>& files) {
  ProgramFacts f;
  auto active = [&](const std::string& path, const std::string& text) {
    return WithoutInactiveLines(analysis, path, StripComments(text));
  };
  for (const ProgramFile& pf : files)
    if (pf.source) f.other_code.push_back({std::filesystem::path(pf.path).filename().string(), active(pf.path, pf.text)});
    else f.header_code.push_back({pf.name, active(pf.path, pf.text)});
  f.analysis = &analysis;
  f.file = file;
  f.name = name;
  f.raw = raw;
  // What the preprocessor skipped in this build is not the program's (`#ifdef MPI_SUPPORT` without
  // it: no MPI_Init, so no mpirun).
  f.code = WithoutInactiveLines(analysis, analysis.path, StripComments(f.raw));
  f.called = CalledNames(f.code);
  f.world_vars = WorldSizeVariables(f.code);
  f.constants = FindConstants(f.code);
  f.world = GuessWorldSize(f.raw, f.code, f.file, f.constants, f.world_vars);
  if (f.world.source.empty()) {  // no count named: the ranks its calls name may need more than 2
    std::vector<NamedRank> ranks;
    for (const auto& op : analysis.ops)
      if (IsCommOp(op) && (op.file.empty() || op.file == analysis.path))
        for (const std::string* t : {&op.peer, &op.root})
          if (!t->empty()) ranks.push_back({*t, op.api, op.line});
    f.world = LeastWorldForNamedRanks(f.code, f.file, f.constants, ranks, f.world_vars);
  }
  GuessLauncher(f);
  if (f.launcher == "single")  // the harness tells it the rank count as its GPU count (projection.h)
    for (const std::string& v : DeviceCountVariables(f.code)) f.world_vars.insert(v);
  NoteProgramShape(f);
  NoteClangErrors(f);
  GuessLibs(f);
  GuessOutputRegexes(f);

  for (const auto& op : analysis.ops) {
    if (!IsCommOp(op)) continue;
    const std::string where = op.file.empty() ? f.file : std::filesystem::path(op.file).filename().string();
    f.collectives.push_back(fmt::format("{} ({}:{})", op.api, where, op.line));
    if (f.dtype == "kF32" && DTypeFor(op.datatype)) f.dtype = DTypeFor(op.datatype);
  }
  std::string every = f.code;  // headers too: a table's struct is often declared in one
  for (const auto& code : {&f.other_code, &f.header_code})
    for (const auto& [file_name, text] : *code) every += "\n" + text;
  std::set<std::string> functions;
  for (const AnalyzedFunction& fn : analysis.functions) functions.insert(fn.name);
  f.pointer_targets = FunctionPointerTargets(every, functions);
  f.iteration = IterationOps(analysis);
  f.io = GuessIo(analysis, f.iteration);
  SetProgramArguments(&f, {});
  return f;
}

}  // namespace cuco::scaffold_internal
