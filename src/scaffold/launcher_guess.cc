#include "scaffold/launcher_guess.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <optional>
#include <regex>
#include <set>
#include <utility>
#include <vector>

#include "scaffold/program_text.h"
#include "util/source_text.h"

namespace cuco::scaffold_internal {
namespace {

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

// The name of the file that makes `op` (a class's set-up in another file), not main's.
std::string CallFile(const ProgramFacts& f, const AnalyzedOp& op) {
  return op.file.empty() || op.file == f.analysis->path ? f.file : std::filesystem::path(op.file).filename().string();
}

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
      const size_t close = MatchParen(code, open);  // npos when unbalanced: the rest of the file
      const std::string args = code.substr(open, close == std::string::npos ? std::string::npos : close - open);
      std::string why = args.find("ncclCommInitRank") != std::string::npos ? "a lambda calling ncclCommInitRank" : "";
      for (const std::string& fn : makers)
        if (why.empty() && std::regex_search(args, std::regex("\\b" + fn + "\\b"))) why = fn + ", which calls ncclCommInitRank";
      if (!why.empty())
        return ThreadStart{file, LineOf(code, static_cast<size_t>(it->position(0))), (*it)[1].str() + " running " + why};
    }
  }
  return std::nullopt;
}

// Sets f.env_reads: getenv("NAME") in any of the program's files, and, where one calls getenv on a
// variable (a helper such as `env_to_int("RANK", -1)`), the literals naming what cuco's launcher
// gives. Whether the program reads its rank so (or CUCO_RANK).
bool ReadsRankFromEnvironment(ProgramFacts& f, const std::vector<std::pair<std::string, const std::string*>>& texts) {
  // cuco's launcher gives each rank CUCO_RANK ... and torchrun's RANK, WORLD_SIZE, LOCAL_RANK,
  // LOCAL_WORLD_SIZE, MASTER_ADDR, MASTER_PORT: a program reading those runs as it is.
  static const std::set<std::string> given = {"RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE"};
  static const std::regex getenv_re(R"xx(\bgetenv\s*\(\s*"([^"]+)")xx");
  static const std::regex getenv_of_variable(R"(\bgetenv\s*\(\s*[A-Za-z_])");
  static const std::regex given_literal(R"xx("(RANK|WORLD_SIZE|LOCAL_RANK|LOCAL_WORLD_SIZE)")xx");
  auto read = [&](const std::string& v) {
    if (v.rfind("CUCO_", 0) != 0 && std::find(f.env_reads.begin(), f.env_reads.end(), v) == f.env_reads.end())
      f.env_reads.push_back(v);
  };
  bool through_a_helper = false;
  for (const auto& [name, code] : texts) {
    for (auto it = std::sregex_iterator(code->begin(), code->end(), getenv_re); it != std::sregex_iterator(); ++it)
      read((*it)[1].str());
    through_a_helper |= std::regex_search(*code, getenv_of_variable);
  }
  if (through_a_helper)
    for (const auto& [name, code] : texts)
      for (auto it = std::sregex_iterator(code->begin(), code->end(), given_literal); it != std::sregex_iterator(); ++it)
        read((*it)[1].str());
  return std::any_of(f.env_reads.begin(), f.env_reads.end(), [](const std::string& v) { return given.count(v) > 0; }) ||
         f.code.find("CUCO_RANK") != std::string::npos;
}

// One thread driving every GPU: a TODO at its first collective or send/recv issued for one GPU's
// communicator (`comms[i]`) outside ncclGroupStart/End, which NCCL may block in until the other
// GPUs' calls arrive (NCCL-1-era examples loop over the GPUs without a group).
void NoteUngroupedPerGpuCalls(ProgramFacts& f) {
  static const std::regex per_gpu_comm(R"(\bcomms?\w*\s*\[\s*[A-Za-z_])");
  for (const auto& op : f.analysis->ops) {
    if ((op.kind != "collective" && op.kind != "p2p") || op.group >= 0) continue;
    if (std::none_of(op.args.begin(), op.args.end(), [](const std::string& a) { return std::regex_search(a, per_gpu_comm); }))
      continue;
    f.todos.push_back(fmt::format("{}:{}: {} is called for each GPU from one thread outside ncclGroupStart/ncclGroupEnd: "
                                  "NCCL may block in such a call until the other GPUs' calls arrive, so the program can "
                                  "hang as written (program mode); put the loop between ncclGroupStart() and "
                                  "ncclGroupEnd(). The harness runs each GPU as a rank of its own, where it does not",
                                  CallFile(f, op), op.line, op.api));
    return;
  }
}

}  // namespace

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
      drives_all = fmt::format("{}:{}: {}{} (one process drives every GPU)", CallFile(f, op), op.line, op.api,
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
    NoteUngroupedPerGpuCalls(f);
    return;
  }
  f.launcher = "cuco";
  f.launcher_source = "no MPI_Init in " + f.file;
  static const std::regex per_gpu_comm(R"(\[\s*[A-Za-z_])");  // `&comms[r]`, not `&comm[0]`
  for (const auto& op : f.analysis->ops)
    if (op.api == "ncclCommInitRank" && op.group < 0 && !op.args.empty() && std::regex_search(op.args[0], per_gpu_comm)) {
      f.ungrouped_rank_inits = fmt::format("{}:{}: ncclCommInitRank({}, ...)", CallFile(f, op), op.line, op.args[0]);
      break;
    }
  const bool reads_rank = ReadsRankFromEnvironment(f, texts);
  f.launcher_reads_rank = reads_rank;
  if (!reads_rank) f.todos.push_back(ProgramModeRankTodo(0));
}

std::string ProgramModeRankTodo(int rank_argument) {
  const std::string how = "make it read RANK / WORLD_SIZE (or CUCO_RANK / CUCO_WORLD_SIZE), which cuco's launcher sets";
  if (rank_argument == 0)
    return "workload.toml [program]: the program does not use MPI and reads no rank from its environment; " + how;
  return fmt::format("workload.toml [program]: the program reads its rank from argv[{}], which program mode gives every "
                     "process alike (the harness gives each its own); for program mode, {}",
                     rank_argument, how);
}

}  // namespace cuco::scaffold_internal
