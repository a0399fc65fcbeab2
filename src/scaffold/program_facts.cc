#include "scaffold/program_facts.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <optional>
#include <regex>
#include <set>
#include <utility>

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

// Whether `at` in `code` lies in a preprocessor conditional whose condition names MPI (`#ifdef
// USE_MPI`, `#if defined(MPI_SUPPORT)`): a header's MPI code a build may leave out, which the analysis
// (main's file only) cannot say it does; taken as left out.
bool UnderMpiCondition(const std::string& code, size_t at) {
  static const std::regex directive_re(R"((^|\n)[ \t]*#[ \t]*(ifdef|ifndef|if|elif|else|endif)\b([^\n]*))");
  std::vector<std::string> open;  // the conditions of the blocks `at` is in
  const auto end = code.begin() + static_cast<std::ptrdiff_t>(std::min(at, code.size()));
  for (auto it = std::sregex_iterator(code.begin(), end, directive_re); it != std::sregex_iterator(); ++it) {
    const std::string kind = (*it)[2].str(), cond = (*it)[3].str();
    if (kind == "endif") {
      if (!open.empty()) open.pop_back();
    } else if (kind == "else" || kind == "elif") {
      if (!open.empty()) open.back() += " " + cond;
    } else {
      open.push_back(cond);
    }
  }
  return std::any_of(open.begin(), open.end(), [](const std::string& c) { return c.find("MPI") != std::string::npos; });
}

// Threads the program's files start that each make an NCCL rank: a start (`std::thread(...)`,
// `emplace_back(...)`, `pthread_create(...)`) whose arguments name a function calling ncclCommInitRank
// (other than main; a method by its own name) or hold that call (a lambda). "file:line: what", ""
// when none.
struct ThreadStart {
  std::string file;
  int line = 0;
  std::string what;  // "emplace_back running worker, which calls ncclCommInitRank"
  std::string Text() const { return fmt::format("{}:{}: threads each making an NCCL rank ({})", file, line, what); }
};

std::optional<ThreadStart> RankThreads(const ProgramFacts& f) {
  std::set<std::string> makers;
  for (const auto& op : f.analysis->ops)
    if (op.api.rfind("ncclCommInitRank", 0) == 0 && !op.function.empty() && op.function != "main")
      makers.insert(op.function.substr(op.function.rfind(':') == std::string::npos ? 0 : op.function.rfind(':') + 1));
  static const std::regex start_re(R"(\b(std::j?thread|emplace_back|pthread_create)\s*(?:\w+\s*)?\()");
  std::vector<std::pair<std::string, const std::string*>> texts = {{f.file, &f.code}};
  for (const auto& [name, code] : f.other_code) texts.push_back({name, &code});
  for (const auto& [file, text] : texts) {
  const std::string code = BlankCommentsAndLiterals(*text);
  for (auto it = std::sregex_iterator(code.begin(), code.end(), start_re); it != std::sregex_iterator(); ++it) {
    const size_t open = static_cast<size_t>(it->position(0) + it->length(0)) - 1;
    int depth = 0;
    size_t close = open;
    for (; close < code.size(); ++close)
      if (code[close] == '(') ++depth;
      else if (code[close] == ')' && --depth == 0) break;
    const std::string args = code.substr(open, close - open);
    std::string why = args.find("ncclCommInitRank") != std::string::npos ? "a lambda calling ncclCommInitRank" : "";
    for (const std::string& fn : makers)
      if (why.empty() && std::regex_search(args, std::regex("\\b" + fn + "\\b"))) why = fn + ", which calls ncclCommInitRank";
    if (!why.empty()) return ThreadStart{file, LineOf(code, static_cast<size_t>(it->position(0))), (*it)[1].str() + " running " + why};
  }
  }
  return std::nullopt;
}

// Launcher: MPI_Init means mpirun; one process driving every GPU means "single"; otherwise cuco's
// launcher (a TODO when the program reads no rank from its environment), and the environment
// variables the program reads that are not CUCO_*.
void GuessLauncher(ProgramFacts& f) {
  std::string mpi_init;
  int mpi_line = 0;
  for (const auto& op : f.analysis->ops)
    if (op.api == "MPI_Init" || op.api == "MPI_Init_thread") {
      mpi_init = op.api, mpi_line = op.line;
      break;
    }
  if (mpi_init.empty()) mpi_line = FirstCall(f, "MPI_Init", &mpi_init);
  if (mpi_line > 0) {
    f.launcher = "mpirun";
    f.launcher_source = fmt::format("{}:{}: {}", f.file, mpi_line, mpi_init);
    if (const auto rt = RankThreads(f)) f.rank_threads = rt->Text();
    return;
  }
  // MPI started in one of the program's own headers (a context class's constructor, an inline
  // `init_nccl()`), which the analysis of main's file does not list.
  static const std::regex mpi_init_re(R"(\b(MPI_Init(?:_thread)?)\s*\()");
  for (const auto& [name, code] : f.header_code) {
    std::smatch m;
    if (!std::regex_search(code, m, mpi_init_re) || UnderMpiCondition(code, static_cast<size_t>(m.position(0)))) continue;
    f.launcher = "mpirun";
    f.launcher_source = fmt::format("{}:{}: {} (the program's own header)", name, LineOf(code, static_cast<size_t>(m.position(0))),
                                    m[1].str());
    return;
  }
  // One process driving every GPU: ncclCommInitAll, ncclCommInitRank inside a group (a loop over
  // the GPUs), or a thread per GPU. It runs once, with all the GPUs visible. Communicators made
  // for every GPU at once and then handed to a thread per GPU (ncclCommInitAll, then
  // `threads.emplace_back(rank_fn, ...)`) are the threads' case: each thread does its GPU's work.
  std::string drives_all;
  for (const auto& op : f.analysis->ops) {
    if (op.api == "ncclCommInitAll" || (op.api == "ncclCommInitRank" && op.group >= 0)) {
      // The file that makes the call (a class's set-up in another file), not main's.
      const std::string file = op.file.empty() || op.file == f.analysis->path
                                   ? f.file
                                   : std::filesystem::path(op.file).filename().string();
      drives_all = fmt::format("{}:{}: {}{} (one process drives every GPU)", file, op.line, op.api,
                               op.api == "ncclCommInitRank" ? " in a group" : "");
      break;
    }
  }
  // Threads started here or in another of the program's files (a shared utils.cc's pthread_create),
  // or threads making NCCL ranks (a class's `threads.emplace_back(worker, ...)`, its vector declared
  // in a header).
  static const std::regex thread_re(R"(\bstd::j?thread\b|\bpthread_create\b)");
  std::vector<std::pair<std::string, const std::string*>> texts = {{f.file, &f.code}};
  for (const auto& [name, code] : f.other_code) texts.push_back({name, &code});
  for (const auto& [name, code] : texts) {
    std::smatch tm;
    if (!std::regex_search(*code, tm, thread_re)) continue;
    f.launcher = "single";
    f.thread_start = {name, LineOf(*code, static_cast<size_t>(tm.position(0)))};
    f.launcher_source = fmt::format("{}:{}: {} (a thread per GPU in one process)", name, f.thread_start.second, tm.str(0));
    if (!drives_all.empty()) f.launcher_source = drives_all + ", " + f.launcher_source;
    return;
  }
  if (const auto rt = RankThreads(f)) {
    f.launcher = "single";
    f.thread_start = {rt->file, rt->line};
    f.launcher_source = (drives_all.empty() ? "" : drives_all + ", ") + rt->Text() + " (a thread per GPU in one process)";
    return;
  }
  if (!drives_all.empty()) {
    f.launcher = "single";
    f.launcher_source = drives_all;
    return;
  }
  f.launcher = "cuco";
  f.launcher_source = "no MPI_Init in " + f.file;
  static const std::regex getenv_re(R"xx(\bgetenv\s*\(\s*"([^"]+)")xx");
  for (auto it = std::sregex_iterator(f.code.begin(), f.code.end(), getenv_re); it != std::sregex_iterator(); ++it) {
    const std::string v = (*it)[1].str();
    if (v.rfind("CUCO_", 0) != 0 && std::find(f.env_reads.begin(), f.env_reads.end(), v) == f.env_reads.end())
      f.env_reads.push_back(v);
  }
  // cuco's launcher gives each rank CUCO_RANK ... and torchrun's RANK, WORLD_SIZE, LOCAL_RANK,
  // LOCAL_WORLD_SIZE, MASTER_ADDR, MASTER_PORT: a program reading those runs as it is.
  static const std::set<std::string> given = {"RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE"};
  const bool reads_rank = std::any_of(f.env_reads.begin(), f.env_reads.end(), [](const std::string& v) { return given.count(v) > 0; }) ||
                          f.code.find("CUCO_RANK") != std::string::npos;
  f.launcher_reads_rank = reads_rank;
  if (!reads_rank)
    f.todos.push_back("workload.toml [program]: the program does not use MPI and reads no rank from its environment; "
                      "make it read RANK / WORLD_SIZE (or CUCO_RANK / CUCO_WORLD_SIZE), which cuco's launcher sets");
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

// The output regexes, and a TODO for each that is missing or not in milliseconds.
void GuessOutputRegexes(ProgramFacts& f) {
  f.prints = FindPrints(f.code);
  f.time = GuessTimeRegex(f.prints);
  f.pass = GuessVerdictRegex(f.prints, true);
  f.fail = GuessVerdictRegex(f.prints, false);
  if (!f.time) f.todos.push_back("workload.toml [program] time_regex: no timing line found in the program's output; "
                                 "the default expects \"Time: <ms> ms\"");
  else if (f.time->unit != "ms")
    f.todos.push_back(fmt::format("workload.toml [program] time_regex: {}:{} prints {} time; cuco reads milliseconds",
                                  f.file, f.time->line, f.time->unit.empty() ? "a unitless" : f.time->unit));
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
}

}  // namespace

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
  f->run_defaults = DefaultsOf(f->code, {}, f->program_args);
}

ProgramFacts GatherFacts(const Analysis& analysis, const std::string& file, const std::string& name,
                         const std::string& raw, const std::vector<std::pair<std::string, std::string>>& others,
                         const std::vector<ProgramFile>& files) {
  ProgramFacts f;
  auto active = [&](const std::string& path, const std::string& text) {
    std::string code = StripComments(text);
    if (auto it = analysis.inactive_lines.find(path); it != analysis.inactive_lines.end()) code = BlankLines(code, it->second);
    return code;
  };
  for (const auto& [path, text] : others) f.other_code.push_back({std::filesystem::path(path).filename().string(), active(path, text)});
  for (const ProgramFile& pf : files)
    if (!pf.source) f.header_code.push_back({pf.name, active(pf.path, pf.text)});
  f.analysis = &analysis;
  f.file = file;
  f.name = name;
  f.raw = raw;
  f.code = StripComments(f.raw);
  // What the preprocessor skipped in this build is not the program's (`#ifdef MPI_SUPPORT` without
  // it: no MPI_Init, so no mpirun).
  if (auto it = analysis.inactive_lines.find(analysis.path); it != analysis.inactive_lines.end())
    f.code = BlankLines(f.code, it->second);
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
    f.world = LeastWorldForNamedRanks(f.code, f.file, f.constants, ranks);
  }
  GuessLauncher(f);
  NoteProgramShape(f);
  GuessLibs(f);
  GuessOutputRegexes(f);

  for (const auto& op : analysis.ops) {
    if (!IsCommOp(op)) continue;
    const std::string where = op.file.empty() ? f.file : std::filesystem::path(op.file).filename().string();
    f.collectives.push_back(fmt::format("{} ({}:{})", op.api, where, op.line));
    if (f.dtype == "kF32" && DTypeFor(op.datatype)) f.dtype = DTypeFor(op.datatype);
  }
  f.iteration = IterationOps(analysis);
  f.io = GuessIo(analysis, f.iteration);
  SetProgramArguments(&f, {});
  return f;
}

}  // namespace cuco::scaffold_internal
