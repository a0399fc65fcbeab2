#include "scaffold/init_project.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <regex>
#include <set>

#include "scaffold/file_local_names.h"
#include "scaffold/loop_accesses.h"
#include "scaffold/main_rewrite.h"
#include "scaffold/projection.h"
#include "scaffold/tokens.h"
#include "util/source_text.h"
#include "workload/evolve_blocks.h"

namespace cuco::scaffold_internal {

namespace fs = std::filesystem;

namespace {

// Whether a header guards itself against a second inclusion: its first directive is `#pragma once`,
// or `#ifndef X` with `#define X` next.
bool IncludeGuarded(const std::string& text) {
  static const std::regex first(R"(^\s*#\s*(pragma\s+once|ifndef\s+(\w+)\s*\n\s*#\s*define\s+(\w+)))");
  std::smatch m;
  const std::string code = BlankComments(text);
  if (!std::regex_search(code, m, first)) return false;
  return m[1].str().rfind("pragma", 0) == 0 || m[2].str() == m[3].str();
}

}  // namespace

Status CSourcesRefusal(const ProgramFacts& f) {
  static const std::regex located(R"(^.*?:(\d+):(?:\d+:)?\s*(?:fatal )?error:\s*(.*)$)");
  for (const std::string& path : f.analysis->files) {  // main's file first
    const auto it = f.analysis->file_errors.find(path);
    if (it == f.analysis->file_errors.end() || fs::path(path).extension() != ".c") continue;
    const std::string& error = it->second;
    std::smatch m;
    const std::string file = SourceFileName(path);
    const bool at = std::regex_match(error, m, located);
    return Status::InvalidArgument(fmt::format(
        "{}:{}: C that C++ does not take ({}): the harness builds the program's files as one C++/CUDA unit; make {} "
        "build as C++ too (cast what C converts by itself, such as malloc's void*; name enumerators of a struct's "
        "enum through the struct) and give cuco that copy, named .cpp",
        file, at ? m[1].str() : "1", at ? m[2].str() : error, file));
  }
  return Status::Ok();
}

Status RankThreadsRefusal(const ProgramFacts& f) {
  if (f.rank_threads.empty()) return Status::Ok();
  return Status::InvalidArgument(f.rank_threads + ", in each MPI process (" + f.launcher_source +
                                 "): NCCL ranks in threads of several processes, which the harness does not run "
                                 "(it runs a GPU a process under mpirun, or every GPU from one process); with one "
                                 "thread a process, or one process for every GPU, it would be a harness");
}

Status UngroupedRankInitsRefusal(const ProgramFacts& f) {
  if (f.ungrouped_rank_inits.empty()) return Status::Ok();
  return Status::InvalidArgument(
      f.ungrouped_rank_inits + " makes every GPU's communicator from one thread, outside ncclGroupStart/ncclGroupEnd: "
      "real NCCL waits in the first call for the ranks this thread has not made yet, so the program hangs as written; "
      "put the loop between ncclGroupStart() and ncclGroupEnd() (or call ncclCommInitAll), and cuco runs it as one "
      "process driving every GPU");
}

Status ProjectionRefusal(const ProgramFacts& f, const std::vector<ProgramFile>& other_files, const std::string& all_code) {
  std::string peer = CrossGpuCopy(f.file, f.raw);
  for (const ProgramFile& pf : other_files)
    if (peer.empty() && pf.source) peer = CrossGpuCopy(pf.name, pf.text);
  if (!peer.empty())
    return Status::InvalidArgument(peer + ": a copy between GPUs outside NCCL; the harness runs each GPU of this program "
                                   "as a rank of its own, where such a copy has no meaning (use ncclSend/ncclRecv)");
  const std::string foreign = ForeignBufferCall(*f.analysis);  // every NCCL call of every source
  if (!foreign.empty())
    return Status::InvalidArgument(foreign + ": the harness runs each GPU of this program as a rank of its own, which "
                                   "holds only its own GPU's buffers");
  const std::set<std::string> guarded = GuardedNames(all_code, /*reference=*/true);  // both sides' (a superset)
  std::string qualified = QualifiedGuardedCall(f.file, f.raw, guarded);
  for (const ProgramFile& pf : other_files)
    if (qualified.empty() && pf.source) qualified = QualifiedGuardedCall(pf.name, pf.text, guarded);
  if (!qualified.empty())
    return Status::InvalidArgument(qualified + "(...): each rank does only its own GPU's part of this program, and cuco "
                                   "skips the other GPUs' calls through a macro of the call's name, which a call "
                                   "qualified with `::` does not reach; write it without `::`");
  return Status::Ok();
}

Result<ProjectFiles> Project(const ProgramFacts& f, const std::vector<ProgramFile>& other_files, const FoundLoop& found,
                             const RewrittenMain& main, InitPassTrace* trace, const std::set<std::string>& open_records) {
  // A program of one GPU a rank that starts threads of its own (an MPI rank's helper threads calling NCCL,
  // 1duo's two communicators each driven by a std::thread) has them spelled cuco_program::rank_thread
  // too: in the reference every rank is a thread, and a thread the program starts must carry its
  // creator's rank into the emulated NCCL (stop 81 on one H100: "a call from a thread that is not one
  // of the program's ranks").
  static const std::regex starts_threads(R"(\bstd\s*::\s*thread\b|\bpthread_create\s*\()");
  bool own_threads = !found.projected && std::regex_search(f.raw, starts_threads);
  for (const ProgramFile& pf : other_files) own_threads |= !found.projected && pf.source && std::regex_search(pf.text, starts_threads);
  if (own_threads) trace->Add("the program starts threads of its own: std::thread and pthread_create spelled as "
                              "cuco_program's, so that each thread keeps its creator's rank");
  // A projected program's kernel launches run only while the rank's GPU is selected.
  auto guarded = [&](const std::string& file, const std::string& text0) -> ProjectedText {
    const std::string text = OpenRecords(text0, open_records);
    if (!found.projected) return {file, own_threads ? RenameStdThread(text) : text, Status::Ok()};
    Result<std::string> g = GuardLaunches(file, found.threads ? RenameStdThread(text) : text);
    if (!g.ok()) return {file, "", g.status()};
    return {file, *g, Status::Ok()};
  };
  const char* done = !found.projected ? ""
                     : found.threads  ? ", its launches guarded and std::thread spelled cuco_program::rank_thread"
                                      : ", its launches guarded";
  ProjectFiles p;
  std::set<std::string> names;  // what a source's `#include "P"` beside it names, from seed.cu's folder
  for (const ProgramFile& pf : other_files) names.insert(pf.name);
  // The served file of another folder than main's (served_file.h): its includes spelled from the root.
  const std::string served = f.unit_name.empty() ? main.text : IncludesFromUnitRoot(main.text, f.unit_name, names);
  ProjectedText m = guarded(f.file, served);
  if (!m.status.ok()) return m.status;
  p.main_text = std::move(m.text);
  trace->Add(fmt::format("{}: {}, rewritten{}", f.file, f.entry == "main" ? "main's file" : "the served file", done));
  p.own_blocks = HasEvolveMarker(p.main_text);
  for (const ProgramFile& pf : other_files) p.own_blocks |= HasEvolveMarker(pf.text);
  for (size_t i = 0; i < found.loop.lambdas.size(); ++i) {
    const TimedLoop::Lambda& l = found.loop.lambdas[i];
    ProjectedText t = guarded(f.file, i < main.lambdas.size() ? main.lambdas[i] : f.raw.substr(l.begin, l.end - l.begin));
    t.name = l.name;
    p.lambdas.push_back(std::move(t));
  }
  // The program's source files are one unit in the harness (seed.cu, reference.cu): a header
  // that two of them include would be defined twice there unless it guards itself.
  const bool one_unit = std::any_of(other_files.begin(), other_files.end(), [](const ProgramFile& pf) { return pf.source; });
  // ... and a name two of them keep to themselves (`static`) would be defined twice: main's file
  // keeps its names, each other source spells its own after an earlier file's.
  std::vector<std::string> unit_texts = {main.text}, tags = {""};
  for (const ProgramFile& pf : other_files)
    if (pf.source) unit_texts.push_back(pf.text), tags.push_back(std::regex_replace(fs::path(pf.name).stem().string(),
                                                                                    std::regex("\\W"), "_"));
  const auto renames = FileLocalRenames(unit_texts, tags);
  size_t source_index = 0;
  for (const ProgramFile& pf : other_files) {
    if (!pf.source) {
      const bool guard = one_unit && !IncludeGuarded(pf.text);
      p.headers.push_back({pf.name, (guard ? "#pragma once  // cuco init: the program's files are one unit in the harness\n"
                                           : "") + OpenRecords(RewriteMpiIncludes(pf.text), open_records)});
      trace->Add(fmt::format("{}: the program's own header, copied beside seed.cu{}", pf.name,
                             guard ? " (with `#pragma once`: it has no include guard, and the program's files are one "
                                     "unit in the harness)" : ""));
      continue;
    }
    const auto& own = renames[++source_index];
    p.sources.push_back(
        guarded(pf.name, RewriteMpiIncludes(IncludesFromUnitRoot(RenameTokens(pf.text, own, {.members = false}), pf.name, names))));
    trace->Add(fmt::format("{}: a source file of the program, in seed.cu and reference.cu before main's{}", pf.name, done));
    for (const auto& [from, to] : own)
      trace->Add(fmt::format("{}: its own `{}` (static, or in an unnamed namespace) spelled `{}`: an earlier file of the "
                             "unit keeps a name `{}` to itself too", pf.name, from, to, from));
  }
  for (const std::string& r : open_records)
    trace->Add(fmt::format("`{}`: its members made public in the harness's copies (main binds a member of one)", r));
  if (p.own_blocks) trace->Add("the program marks its own EVOLVE blocks: they are kept, and no others added");
  // A projected program: the flag before the harness's headers, the guards after them.
  p.defines = found.projected ? "#define CUCO_PROGRAM_PROJECTED 1  // one GPU of the program per rank\n" : "";
  if (found.threads) p.defines += "#define CUCO_PROGRAM_THREADS 1  // a thread per GPU: each rank's own does the work\n";
  if (found.captures_comm)
    p.defines += "#define CUCO_PROGRAM_CAPTURES_GRAPHS 1  // the reference asks CUDA for 32 hardware queues\n";
  if (found.projected) {
    p.seed_guards = "\n" + ProjectionGuards(found.all_code, false);
    p.reference_guards = "\n" + ProjectionGuards(found.all_code, true);
    trace->Add(fmt::format("projected: {} call(s) the program makes guarded, so that each rank does only its GPU's part",
                           GuardedNames(found.all_code, true).size()));
  }
  return p;
}

}  // namespace cuco::scaffold_internal
