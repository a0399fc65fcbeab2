#include "scaffold/init_rewrite_main.h"

#include <fmt/format.h>

#include "scaffold/held_accessors.h"
#include "scaffold/main_rewrite.h"
#include "util/source_text.h"

namespace cuco::scaffold_internal {

Result<RewrittenMain> RewriteProgramMain(const ProgramFacts& f, const FoundLoop& found, const BoundBuffers& bound,
                                         InitPassTrace* trace) {
  const TimedLoop& loop = found.loop;
  RewrittenMain r;
  // Objects reached through an accessor: held in pointers, declared in front of the first of main's
  // lambdas the loop calls that uses them, or else in front of the loop.
  std::vector<std::pair<size_t, size_t>> spans;
  for (const TimedLoop::Lambda& l : loop.lambdas) spans.push_back({l.begin, l.end});
  const HeldInLambdas in_lambdas = UseHeldInLambdas(f.raw, spans, bound.held);
  r.lambdas = in_lambdas.lambdas;
  std::vector<HeldAccessor> before_loop;
  for (const HeldAccessor& h : bound.held)
    if (!in_lambdas.declared.count(h.object)) before_loop.push_back(h);
  TimedLoop served = loop;
  auto shifted = [&](size_t at) { return at != std::string::npos && at >= in_lambdas.after ? at + in_lambdas.shift : at; };
  served.begin = shifted(loop.begin), served.end = shifted(loop.end), served.main_name = shifted(loop.main_name);
  served.body = UseHeld(loop.body, bound.held);
  served.hoisted = HeldDeclarations(before_loop) + loop.hoisted;
  const std::string rewritten = RewriteMain(in_lambdas.text, served, bound.binds);
  r.text = RewriteMpiIncludes(rewritten);
  if (loop.main_name == std::string::npos)  // served_file.h
    trace->Add(fmt::format("main, in another file, renamed cuco_program_main: it runs once, up to the iteration in {} (the "
                           "harness's setup)", f.entry));
  else
    trace->Add(fmt::format("{}:{}: main renamed cuco_program_main: it runs once, up to the iteration (the harness's setup)",
                           f.file, LineOf(f.raw, loop.main_name)));
  const std::string lines = loop.end_line > loop.line ? fmt::format("{}-{}", loop.line, loop.end_line) : std::to_string(loop.line);
  trace->Add(fmt::format("{}:{}: {} replaced by cuco_program::serve(binds, body), with {} bind(s){}", f.file, lines,
                         loop.region ? "the statements served whole" : "the loop", bound.binds.size(),
                         bound.by_copy ? ", by copy" : ""));
  for (const HeldAccessor& h : bound.held)
    trace->Add(in_lambdas.declared.count(h.object)
                   ? fmt::format("`{}` held in `{}` in front of main's first lambda using it, which captures it by "
                                 "reference; the lambdas and the loop's body use the pointer", h.expr, h.local)
                   : fmt::format("`{}` held in `{}` in front of the serve call; the loop's body uses the pointer", h.expr,
                                 h.local));
  if (!loop.loop_var_decl.empty())
    trace->Add(fmt::format("the loop's variable `{}` is held at {} in every harness iteration (each is the first pass)",
                           loop.loop_var_decl, loop.loop_var_init.empty() ? "cuco_program::iteration()" : loop.loop_var_init));
  if (!loop.pinned_counter.empty())
    trace->Add(fmt::format("the loop's counter `{}` is held at its value when the loop starts", loop.pinned_counter));
  for (const std::string& g : loop.random_state.generators)
    trace->Add(fmt::format("the random generator `{}` the iteration draws from is held at its state when the loop starts "
                           "(each harness iteration draws the same numbers)", g));
  for (const std::string& c : loop.carried)
    trace->Add(fmt::format("`{}`, a host value the loop carries from pass to pass (read before it is set), is held at "
                           "its value when the loop starts (each harness iteration is the first pass)", c));
  for (const std::string& r : loop.random_state.restarts)
    trace->Add(fmt::format("the iteration calls the C library's generator without seeding it: `{};` restarts it in every "
                           "harness iteration", r));
  if (!loop.rank_flag.empty() && !loop.world_flag.empty())
    trace->Add(fmt::format("the entry point passes the harness's rank and rank count as {} and {}", loop.rank_flag,
                           loop.world_flag));
  else if (!loop.rank_flag.empty() || !loop.world_flag.empty())
    trace->Add(fmt::format("the entry point passes the harness's {} as {}", loop.rank_flag.empty() ? "rank count" : "rank",
                           loop.rank_flag.empty() ? loop.world_flag : loop.rank_flag));
  for (const TimedLoop::SizeFlag& z : loop.size_flags)
    if (!z.size.empty()) trace->Add(fmt::format("the entry point passes the size {} as {}", z.size, z.Spelling()));
  trace->Add(rewritten == r.text ? "no `#include <mpi.h>` to rewrite"
                                 : "`#include <mpi.h>` spelled `#include <cuco/program/mpi.h>` (MPI answered by the harness)");
  trace->Add("the entry point cuco_program_entry appended");
  return r;
}

}  // namespace cuco::scaffold_internal
