#include "scaffold/program_harness.h"

#include <optional>
#include <string>

#include "scaffold/gpus_per_process.h"
#include "scaffold/init_bind_buffers.h"
#include "scaffold/init_find_loop.h"
#include "scaffold/init_project.h"
#include "scaffold/init_render.h"
#include "scaffold/init_rewrite_main.h"

namespace cuco::scaffold_internal {

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
  const ProgramFacts& f = pinned ? *pinned : program;
  const std::string pinned_guess = per_process ? OneGpuPerProcessGuess(f, *per_process) : "";
  InitPassTrace* find = pass("find the loop");
  if (per_process) find->Add(pinned_guess);
  Result<FoundLoop> found = FindLoop(f, other_files, find);
  if (!found.ok()) return stopped(found.status());
  Result<BoundBuffers> bound = BindBuffers(f, other_files, *found, pass("bind the buffers"));
  if (!bound.ok()) return stopped(bound.status());
  Result<RewrittenMain> main = RewriteProgramMain(f, *found, *bound, pass("rewrite main"));
  if (!main.ok()) return stopped(main.status());
  Result<ProjectFiles> project = Project(f, other_files, *found, *main, pass("project"), bound->member_records);
  if (!project.ok()) return stopped(project.status());
  Result<ProgramHarness> h = Render(f, *found, *bound, *project, pass("render"));
  if (!h.ok()) return stopped(h.status());
  if (per_process) h->guesses.insert(h->guesses.begin(), pinned_guess);
  return h;
}

}  // namespace cuco::scaffold_internal
