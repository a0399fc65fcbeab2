#include "scaffold/program_harness.h"

#include "scaffold/init_bind_buffers.h"
#include "scaffold/init_find_loop.h"
#include "scaffold/init_project.h"
#include "scaffold/init_render.h"
#include "scaffold/init_rewrite_main.h"

namespace cuco::scaffold_internal {

Result<ProgramHarness> MakeProgramHarness(const ProgramFacts& f, const std::vector<ProgramFile>& other_files,
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
  for (const Status& refused : {CSourcesRefusal(f), RankThreadsRefusal(f)})  // what no harness can be made of
    if (!refused.ok()) {
      pass("find the loop");
      return stopped(refused);
    }
  Result<FoundLoop> found = FindLoop(f, other_files, pass("find the loop"));
  if (!found.ok()) return stopped(found.status());
  Result<BoundBuffers> bound = BindBuffers(f, other_files, *found, pass("bind the buffers"));
  if (!bound.ok()) return stopped(bound.status());
  Result<RewrittenMain> main = RewriteProgramMain(f, *found, *bound, pass("rewrite main"));
  if (!main.ok()) return stopped(main.status());
  Result<ProjectFiles> project = Project(f, other_files, *found, *main, pass("project"), bound->member_records);
  if (!project.ok()) return stopped(project.status());
  Result<ProgramHarness> h = Render(f, *found, *bound, *project, pass("render"));
  if (!h.ok()) return stopped(h.status());
  return h;
}

}  // namespace cuco::scaffold_internal
