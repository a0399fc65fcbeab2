#include "scaffold/program_harness.h"

#include <fmt/format.h>

#include <optional>
#include <string>

#include "scaffold/clock_counts.h"
#include "scaffold/gpus_per_process.h"
#include "scaffold/helper_loop.h"
#include "scaffold/init_bind_buffers.h"
#include "scaffold/init_find_loop.h"
#include "scaffold/init_project.h"
#include "scaffold/init_render.h"
#include "scaffold/init_rewrite_main.h"
#include "scaffold/served_file.h"

namespace cuco::scaffold_internal {

namespace {

// The program seen from a served file (served_file.h), with the loop FindLoop finds there, if any.
struct There {
  ProgramFacts facts;
  std::vector<ProgramFile> others;
  InitPassTrace trace;
  std::optional<FoundLoop> loop;
};
There SeenFrom(const ProgramFacts& f, const std::vector<ProgramFile>& other_files, const ServedFile& served) {
  There t;
  t.facts = ServingAnotherFile(f, other_files, served, &t.others);
  Result<FoundLoop> loop = FindLoop(t.facts, t.others, &t.trace);
  if (loop.ok()) t.loop = std::move(*loop);
  return t;
}

// Where no loop of main's file reaches the communication (*found serves statements run whole; an
// error of main's file, such as two loops init cannot choose between, stands) and main calls a
// function of another source file that holds such a loop: the program seen from that file
// (served_file.h), *found its loop and *others its other files. nullopt otherwise, *found unchanged
// (or, where main calls two such functions by a condition, the error asking which).
std::optional<ProgramFacts> ServedElsewhere(const ProgramFacts& f, const std::vector<ProgramFile>& other_files,
                                            Result<FoundLoop>* found, std::vector<ProgramFile>* others,
                                            InitPassTrace* trace) {
  if (!found->ok() || !(*found)->loop.region || (*found)->threads) return std::nullopt;
  std::optional<ServedFile> s = FunctionInAnotherFile(f, other_files);
  if (!s) return std::nullopt;
  // Its loop: none where the file holds no loop reaching the communication (only statements).
  auto serve = [&](const ServedFile& served) {
    There t = SeenFrom(f, other_files, served);
    if (t.loop && t.loop->loop.region) t.loop.reset();
    return t;
  };
  There there = serve(*s);
  if (!s->other.empty()) {  // two by a condition: the user says which (--loop) where both hold one
    There other = serve(ServedFile(s->other, s->other_file));
    if (other.loop && there.loop) {
      *found = ChoiceBetweenFiles(f, *s, there.loop->loop.line, other.loop->loop.line);
      return std::nullopt;
    }
    if (other.loop) s = ServedFile(s->other, s->other_file), there = std::move(other);
  }
  if (!there.loop) {  // why that file's loop is not served either, where the choice is the user's
    for (const std::string& line : there.trace.lines)
      if (line.find("--loop FILE:LINE") != std::string::npos)
        trace->Add(fmt::format("{} calls {} of {} once: {}", s->caller, s->function, other_files[s->file].name, line));
    return std::nullopt;
  }
  trace->Add(fmt::format("no loop of {} reaches the communication; {} calls {} of {} once, whose loop does: {} is "
                         "served, main's file being one of the program's other sources",
                         f.file, s->caller, s->function, other_files[s->file].name, there.facts.file));
  for (const std::string& line : there.trace.lines) trace->Add(line);
  *found = std::move(*there.loop);
  *others = std::move(there.others);
  return std::move(there.facts);
}

// Where no thread function or lambda of main's file holds the timed loop (*found: why) because the
// threads per GPU start in a function of another source file: the program seen from that file,
// the function standing for main (served_file.h), *found its loop and *others its other files.
// nullopt, *found unchanged, where they start elsewhere or that file holds no such loop either.
std::optional<ProgramFacts> ServedWhereThreadsStart(const ProgramFacts& f, const std::vector<ProgramFile>& other_files,
                                                    Result<FoundLoop>* found, std::vector<ProgramFile>* others,
                                                    InitPassTrace* trace) {
  if (found->ok()) return std::nullopt;
  const std::optional<ServedFile> s = ThreadsStartInAnotherFile(f, other_files);
  if (!s) return std::nullopt;
  There there = SeenFrom(f, other_files, *s);
  if (!there.loop) return std::nullopt;
  trace->Add(fmt::format("{}:{}: the threads start in {}, which main reaches: {} is served (the harness serves main's "
                         "first call of {}), main's file being one of the program's other sources",
                         there.facts.file, f.thread_start.second, s->function, there.facts.file, s->function));
  for (const std::string& line : there.trace.lines) trace->Add(line);
  *found = std::move(*there.loop);
  *others = std::move(there.others);
  return std::move(there.facts);
}

// The program with `line` of its file served for `why`, as `cuco init --loop FILE:LINE` would serve
// it: the loop found there and, where one is, its buffers bound. Each pass is traced, the first
// opening with `intro`; found holds the stop where no loop is found (bound is then unset).
struct ServedLine {
  ProgramFacts facts;
  Result<FoundLoop> found = Status::NotFound("");
  Result<BoundBuffers> bound = Status::NotFound("");
  std::optional<std::vector<ProgramFile>> others;  // where another file is served: the program's other files
};
// The loop of s->facts found (traced in the pass already open) and, where found, its buffers bound.
void FindAndBind(ServedLine* s, const std::vector<ProgramFile>& others, std::vector<InitPassTrace>* trace) {
  s->found = FindLoop(s->facts, others, &trace->back());
  if (!s->found.ok()) return;
  trace->push_back({"bind the buffers", {}});
  s->bound = BindBuffers(s->facts, others, *s->found, &trace->back());
}
ServedLine ServingLine(const ProgramFacts& f, const std::vector<ProgramFile>& others, int line, std::string why,
                       const std::string& intro, std::vector<InitPassTrace>* trace) {
  ServedLine s{f, Status::NotFound(""), Status::NotFound(""), std::nullopt};
  s.facts.forced_loop_line = line;
  s.facts.forced_loop_why = std::move(why);
  trace->push_back({"find the loop", {}});
  trace->back().Add(intro);
  FindAndBind(&s, others, trace);
  return s;
}

// ServingLine for a line of another source file (`at`), as `cuco init --loop FILE:LINE` naming it
// serves it: that file served (ServingTheFileLoopNames), main's among the other files (s.others).
ServedLine ServingTheOtherFilesLine(const ProgramFacts& f, const std::vector<ProgramFile>& others,
                                    const LoopNamingOutput& at, std::string why, const std::string& intro,
                                    std::vector<InitPassTrace>* trace) {
  ProgramFacts named = f;
  named.forced_loop_file = at.file;
  named.forced_loop_line = at.line;
  ServedLine s{f, Status::NotFound(""), Status::NotFound(""), std::nullopt};
  trace->push_back({"find the loop", {}});
  trace->back().Add(intro);
  s.others.emplace();
  Result<ProgramFacts> served = ServingTheFileLoopNames(named, others, &*s.others);
  if (!served.ok()) {
    s.found = served.status();
    return s;
  }
  s.facts = std::move(*served);
  s.facts.forced_loop_why = std::move(why);
  FindAndBind(&s, *s.others, trace);
  return s;
}

// `stop` with `more` said after it, a missing output staying kNotFound.
Status Extended(const Status& stop, const std::string& more) {
  return stop.code() == Status::Code::kNotFound ? Status::NotFound(stop.message() + more)
                                                : Status::InvalidArgument(stop.message() + more);
}

// Where main's own statements would be served, no loop of main reaching the communication, and one
// helper it calls times a loop that does (HelperTimedLoop, `find` tracing it): the program with that
// loop served. nullopt where there is none or it cannot be found again (said in the trace).
std::optional<ServedLine> ServingTheHelpersTimedLoop(const ProgramFacts& f, const std::vector<ProgramFile>& others,
                                                     const FoundLoop& mains, InitPassTrace* find,
                                                     std::vector<InitPassTrace>* trace) {
  const std::optional<int> line = HelperTimedLoop(f, mains, find);
  if (!line) return std::nullopt;
  const std::string why = "the loop of a function main calls, no loop of main reaching the communication (as `--loop " +
                          f.file + ":" + std::to_string(*line) + "` would serve)";
  ServedLine s = ServingLine(f, others, *line, why,
                             fmt::format("{}:{}: served instead of main's statements: {}", f.file, *line, why), trace);
  if (s.found.ok()) return s;
  trace->back().Add("not served: " + s.found.status().message());
  return std::nullopt;
}

// Where the iteration has no output main can bind (*bound is BindBuffers' kNotFound) and the function
// making it holds a timed loop (LoopWhereOutputIsNamed): the program with that loop served. nullopt
// where there is none; where serving it stops too, nullopt with *bound saying so.
std::optional<ServedLine> ServingTheLoopNamingTheOutput(const ProgramFacts& f, const std::vector<ProgramFile>& others,
                                                        const FoundLoop& found, Result<BoundBuffers>* bound,
                                                        std::vector<InitPassTrace>* trace) {
  if (bound->ok() || bound->status().code() != Status::Code::kNotFound || f.forced_loop_line > 0) return std::nullopt;
  const std::optional<LoopNamingOutput> at = LoopWhereOutputIsNamed(f, others, found);
  if (!at) return std::nullopt;
  const std::string why = "the loop where the iteration's output is named, as `--loop " + at->file + ":" +
                          std::to_string(at->line) + "` would serve";
  const std::string intro = fmt::format("{}: so {}:{} is served instead", bound->status().message(), at->file, at->line);
  ServedLine s = at->file == f.file ? ServingLine(f, others, at->line, why, intro, trace)
                                    : ServingTheOtherFilesLine(f, others, *at, why, intro, trace);
  const Status& stop = s.found.ok() ? s.bound.status() : s.found.status();
  if (stop.ok()) return s;
  *bound = Status::InvalidArgument(bound->status().message() + "; serving that loop stops too: " + stop.message());
  return std::nullopt;
}

}  // namespace

Result<ProgramHarness> MakeProgramHarness(const ProgramFacts& program, const std::vector<ProgramFile>& other_files,
                                          std::vector<InitPassTrace>* trace) {
  std::vector<InitPassTrace> local;
  if (trace == nullptr) trace = &local;
  auto pass = [&](const char* name) {
    trace->push_back({name, {}});
    return &trace->back();
  };
  // Each pass's trace ends with the status that stopped init there, when one did.
  auto stopped = [&](const Status& s) {
    trace->back().Add("stopped: " + s.message());
    return s;
  };
  // What no harness can be made of.
  for (const Status& refused : {CSourcesRefusal(program), RankThreadsRefusal(program), UngroupedRankInitsRefusal(program)})
    if (!refused.ok()) {
      pass("find the loop");
      return stopped(refused);
    }
  // The program as the harness starts it: with one GPU per process where it drives a fixed number.
  const std::optional<GpusPerProcess> per_process = FixedGpusPerProcess(program);
  std::optional<ProgramFacts> pinned;
  if (per_process) pinned = WithOneGpuPerProcess(program, *per_process);
  const ProgramFacts& main_facts = pinned ? *pinned : program;
  const std::string pinned_guess = per_process ? OneGpuPerProcessGuess(main_facts, *per_process) : "";
  InitPassTrace* find = pass("find the loop");
  if (per_process) find->Add(pinned_guess);
  std::vector<ProgramFile> served_others;
  std::optional<ProgramFacts> served;
  Result<FoundLoop> found = Status::NotFound("");
  if (main_facts.forced_loop_file.empty()) {
    found = FindLoop(main_facts, other_files, find);
    served = ServedElsewhere(main_facts, other_files, &found, &served_others, find);
    if (!served) served = ServedWhereThreadsStart(main_facts, other_files, &found, &served_others, find);
  } else {  // --loop names another file's line: that file is served
    Result<ProgramFacts> named = ServingTheFileLoopNames(main_facts, other_files, &served_others);
    if (!named.ok()) return stopped(named.status());
    served = std::move(*named);
    find->Add(fmt::format("--loop names a line of {}: that file is served, main's file being one of the program's "
                          "other sources", served->file));
    found = FindLoop(*served, served_others, find);
  }
  const std::vector<ProgramFile>& others = served ? served_others : other_files;
  if (!found.ok()) return stopped(found.status());
  // Main's statements, where served whole, give way to a helper's timed loop (both reasons where
  // neither binds); an iteration whose output main cannot name, to the loop that names it.
  std::optional<ServedLine> retry =
      served ? std::nullopt : ServingTheHelpersTimedLoop(main_facts, others, *found, find, trace);
  std::string helper_stop;
  if (retry && !retry->bound.ok()) {
    helper_stop = fmt::format("; serving the loop at {}:{} instead stops too: {}", main_facts.file,
                              retry->facts.forced_loop_line, retry->bound.status().message());
    retry.reset();
  }
  const ProgramFacts& chosen = served ? *served : main_facts;
  Result<BoundBuffers> bound = retry ? retry->bound : BindBuffers(chosen, others, *found, pass("bind the buffers"));
  if (!bound.ok() && !helper_stop.empty()) bound = Extended(bound.status(), helper_stop);
  if (!retry && !served) retry = ServingTheLoopNamingTheOutput(chosen, others, *found, &bound, trace);
  if (retry) found = retry->found, bound = retry->bound;
  if (!bound.ok()) return stopped(bound.status());
  const ProgramFacts& f = retry ? retry->facts : chosen;
  const std::vector<ProgramFile>& files = retry && retry->others ? *retry->others : others;
  Result<RewrittenMain> main = RewriteProgramMain(f, *found, *bound, pass("rewrite main"));
  if (!main.ok()) return stopped(main.status());
  Result<ProjectFiles> project = Project(f, files, *found, *main, pass("project"), bound->member_records);
  if (!project.ok()) return stopped(project.status());
  Result<ProgramHarness> h = Render(f, *found, *bound, *project, pass("render"));
  if (!h.ok()) return stopped(h.status());
  if (per_process) h->guesses.insert(h->guesses.begin(), pinned_guess);
  for (const std::string& count : ClockDerivedCounts(f.file, f.code, found->loop_fn, found->loop.line, found->loop.body))
    h->todos.push_back("harness/: " + count);
  return h;
}

}  // namespace cuco::scaffold_internal
