#include "propose/prompt_builder.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <sstream>
#include <utility>

#include "prompts/answer_format.h"
#include "prompts/design_space_text.h"
#include "prompts/key_lines.h"
#include "prompts/prompt_text.h"
#include "prompts/runtime_api_text.h"
#include "util/source_text.h"
#include "util/text.h"
#include "workload/evolve_blocks.h"

namespace cuco {
namespace {

using prompt_text::Fence;

std::string Fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

std::string Join(const std::vector<std::string>& v, const std::string& sep) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? sep : "") + v[i];
  return s;
}

std::string KnobText(const std::map<std::string, std::string>& knobs) {
  std::vector<std::string> parts;
  for (const auto& [k, v] : knobs) parts.push_back(k + "=" + v);
  return Join(parts, ", ");
}

// "ok, 1.234 ms, 1.12x the seed's speed" (what is known).
std::string Figures(const CandidateView& c) {
  std::string s = c.status.empty() ? "not evaluated" : c.status;
  if (c.time_ms >= 0) s += ", " + Fmt("%.4g", c.time_ms) + " ms";
  if (c.speedup > 0) s += ", speedup " + Fmt("%.3g", c.speedup) + "x over the seed";
  return s;
}

struct Section {
  std::string title;
  std::string body;
};

std::string Render(const std::vector<Section>& sections) {
  std::string s;
  for (const auto& sec : sections) {
    if (sec.body.empty()) continue;
    if (!s.empty()) s += "\n";
    if (!sec.title.empty()) s += "## " + sec.title + "\n";
    s += sec.body;
    if (s.back() != '\n') s += '\n';
  }
  return s;
}

// The role paragraph that opens the system message.
std::string RoleText(bool cuda) {
  return std::string("You are an expert ") + (cuda ? "CUDA, NCCL and multi-GPU" : "C++") +
         " performance engineer. You improve one candidate file of a " +
         (cuda ? "multi-GPU program so that it runs faster, typically by co-designing computation and "
                 "communication so that they overlap"
               : "program so that it runs faster") +
         ", while producing the same results. Only the code between an " + kEvolveBlockStart + " line and the next " +
         kEvolveBlockEnd + " line may change; everything else is frozen and checked byte for byte. Every "
         "candidate is compiled, verified against a frozen reference on every rank, and timed; a candidate "
         "that fails to compile, computes a wrong result, hangs or breaks a harness rule is worthless, so "
         "make changes you are confident are correct.\n";
}

// The workload section: name, ranks, sizes, tolerance and knobs.
std::string WorkloadText(const WorkloadConfig& wl) {
  std::ostringstream w;
  w << "Name: " << wl.name << "\n";
  if (!wl.description.empty()) w << "Description: " << wl.description << "\n";
  w << "Language: " << wl.language << "; ranks: " << wl.world_size;
  if (wl.world_sizes.size() > 1) {
    std::vector<std::string> ws;
    for (int n : wl.world_sizes) ws.push_back(std::to_string(n));
    w << " (must also work with " << Join(ws, ", ") << ")";
  }
  w << "\n";
  auto sizes = [](const std::map<std::string, int64_t>& m) {
    std::vector<std::string> v;
    for (const auto& [k, x] : m) v.push_back(k + "=" + std::to_string(x));
    return Join(v, ", ");
  };
  if (!wl.verify_sizes.empty()) w << "Sizes verified: " << sizes(wl.verify_sizes) << "\n";
  if (!wl.bench_sizes.empty()) w << "Sizes timed: " << sizes(wl.bench_sizes) << "\n";
  w << "Tolerance: relative L2 error <= " << wl.tol_rel_l2 << ", max abs error <= " << wl.tol_max_abs << "\n";
  if (!wl.knobs.empty()) {
    w << "Knobs (marked in the code as `constexpr ... = value;  // cuco:knob NAME`; change a knob by rewriting its "
         "value; allowed values only):\n";
    for (const auto& k : wl.knobs) {
      w << "  " << k.name << " in {" << Join(k.values, ", ") << "} (default " << k.default_value << ")";
      if (!k.description.empty()) w << ": " << k.description;
      w << "\n";
    }
  }
  return w.str();
}

// The system message's sections (stable within a run); the communication API's section is left
// empty at *comm_index, to be filled at the size the prompt's cap allows.
std::vector<Section> SystemSections(const ProposalContext& ctx, const PromptOptions& options, bool cuda,
                                    size_t* comm_index) {
  std::vector<Section> sys;
  sys.push_back({"", RoleText(cuda)});
  if (cuda) {
    sys.push_back({"Design space", options.design_space.empty() ? DesignSpaceText() : options.design_space});
    sys.push_back({"Harness rules", options.harness_rules.empty() ? HarnessRulesText() : options.harness_rules});
  }
  sys.push_back({std::string("Candidate interface (frozen: ") + (cuda ? "cuco/harness.h" : "cuco/cpu_harness.h") + ")",
                 options.contract.empty() ? BuiltinCandidateContractText() : options.contract});
  if (!options.extra_api.empty()) sys.push_back({"Building blocks the includes provide", options.extra_api});
  *comm_index = sys.size();
  sys.push_back({"Installed communication API (declarations from this machine's headers)", ""});
  if (!ctx.hardware.empty()) sys.push_back({"Hardware", ctx.hardware});
  if (ctx.workload != nullptr) sys.push_back({"Workload", WorkloadText(*ctx.workload)});
  return sys;
}

// The island's own instructions and the knob values it keeps to.
std::string IslandText(const ProposalContext& ctx) {
  std::string island;
  if (!ctx.island_prompt.empty()) island += ctx.island_prompt + "\n";
  if (!ctx.allowed_knobs.empty()) {
    island += "This island explores only these knob values (a parent outside them must be moved inside):\n";
    for (const auto& [k, vals] : ctx.allowed_knobs) island += "  " + k + " in {" + Join(vals, ", ") + "}\n";
  }
  return island;
}

// The parent's heading: id, figures, the kind that made it, knobs and evaluator feedback.
std::string ParentHead(const CandidateView& parent, const PromptLimits& lim) {
  std::string head = "Candidate #" + std::to_string(parent.id) + ": " + Figures(parent);
  if (!parent.mutation_kind.empty()) head += " (made by: " + parent.mutation_kind + ")";
  head += "\n";
  if (!parent.knobs.empty()) head += "Knobs: " + KnobText(parent.knobs) + "\n";
  if (!Trim(parent.feedback).empty())
    head += "Evaluator feedback:\n" + CapText(Trim(parent.feedback), lim.max_feedback_chars) + "\n";
  return head;
}

// One failure as a negative example, at most max_failure_chars: status, feedback and the key
// lines of its code against `base_code` (the parent's, or the seed's).
std::string FailureText(const CandidateView& f, const std::string& base_code, const PromptLimits& lim) {
  std::string t = "### Candidate #" + std::to_string(f.id) + ": " + (f.status.empty() ? "failed" : f.status);
  if (!f.mutation_kind.empty()) t += " (made by: " + f.mutation_kind + ")";
  t += "\n";
  const size_t room = lim.max_failure_chars > t.size() ? lim.max_failure_chars - t.size() : 0;
  std::string fb = Trim(f.feedback);
  if (!fb.empty()) t += "Feedback: " + CapText(fb, room / 2) + "\n";
  const size_t left = lim.max_failure_chars > t.size() ? lim.max_failure_chars - t.size() : 0;
  std::string keys = KeyLines(f.code, f.feedback, base_code, std::min(left, lim.max_code_chars));
  if (!keys.empty()) t += "Key lines:\n" + keys;
  return t;
}

// The task: what to do for this mutation kind and phase, then the answer format.
std::string TaskText(const std::string& kind, const std::string& phase, int blocks) {
  std::string task;
  if (kind == "diff")
    task = "Improve the parent with focused edits.";
  else if (kind == "rewrite")
    task = "Rewrite the parent's EVOLVE blocks; a substantially different design is welcome.";
  else
    task = "Write a child that combines the best ideas of the parents shown (parent 1 is the base).";
  if (phase == "exploit")
    task += " Phase: exploit: refine the parent's design (tile shapes, chunk counts, how many CTAs communicate, "
            "synchronisation granularity, launch parameters) rather than replacing it.";
  else
    task += " Phase: explore: a different point of the design space (backend, placement, synchronisation scope, "
            "issuer, chunking) is welcome if you expect it to be faster.";
  task += "\n";
  if (blocks > 0) task += "The file has " + std::to_string(blocks) + " EVOLVE block" + (blocks == 1 ? "" : "s") + ".\n";
  return task + "\n" + AnswerFormatText(kind);
}

// How much of an inspiration a prompt shows.
enum class Shown { kFull, kBrief, kHidden };

// What the prompt's cap has cut so far.
struct Cuts {
  std::vector<Shown> shown;  // per inspiration shown at all
  size_t n_fail = 0;         // failures shown (the first ones)
  size_t meta_cap = 0, comm_cap = 0;
};

// One cut more, in the order the header states: inspirations lose their code (the last first,
// crossover partners last), then non-partners go, then failures (the oldest first), the
// meta-summary and the communication API shrink. False when nothing is left to cut.
bool CutOnce(Cuts* c, size_t n_partners) {
  const size_t n_insp = c->shown.size();
  for (size_t i = n_insp; i-- > n_partners;)
    if (c->shown[i] == Shown::kFull) return c->shown[i] = Shown::kBrief, true;
  for (size_t i = n_partners; i-- > 0;)
    if (c->shown[i] == Shown::kFull) return c->shown[i] = Shown::kBrief, true;
  for (size_t i = n_insp; i-- > n_partners;)
    if (c->shown[i] == Shown::kBrief) return c->shown[i] = Shown::kHidden, true;
  if (c->n_fail > 0) return --c->n_fail, true;
  if (c->meta_cap > 1500) return c->meta_cap = 1500, true;
  if (c->comm_cap > 3000) return c->comm_cap = std::max<size_t>(3000, c->comm_cap / 2), true;
  return false;
}

// The parts of a prompt that stay the same while the cap cuts.
struct PromptParts {
  PromptParts(const ProposalContext& c, const PromptLimits& l, std::string lang_in, std::string kind_in)
      : ctx(c), lim(l), lang(std::move(lang_in)), kind(std::move(kind_in)) {}
  const ProposalContext& ctx;
  const PromptLimits& lim;
  std::string lang, kind;
  std::vector<Section> sys;
  size_t sys_comm_index = 0;
  std::string island, parent_head, parent_code;
  size_t n_partners = 0;  // crossover partners: the first inspirations (the search puts them first)
  std::vector<std::string> failure_text;
  std::string task;
};

// The inspirations' sections (partners apart) as `cuts` shows them; their ids into `p`.
void AddInspirations(const PromptParts& parts, const Cuts& cuts, Prompt* p, std::vector<Section>* user) {
  std::string partners, insp;
  for (size_t i = 0; i < cuts.shown.size(); ++i) {
    if (cuts.shown[i] == Shown::kHidden) continue;
    const CandidateView& c = parts.ctx.inspirations[i];
    std::string t = "### Candidate #" + std::to_string(c.id) + ": " + Figures(c);
    if (!c.mutation_kind.empty()) t += " (made by: " + c.mutation_kind + ")";
    t += "\n";
    if (!c.knobs.empty()) t += "Knobs: " + KnobText(c.knobs) + "\n";
    if (cuts.shown[i] == Shown::kFull) t += Fence(parts.lang, CapText(c.code, parts.lim.max_code_chars));
    if (i < parts.n_partners) {
      partners += "### Parent " + std::to_string(i + 2) + " = c" + t.substr(5);
      p->partner_ids.push_back(c.id);
    } else {
      insp += t;
    }
    p->inspiration_ids.push_back(c.id);
  }
  if (!partners.empty()) user->push_back({"Other parents to combine with parent 1", partners});
  if (!insp.empty()) user->push_back({"Inspirations: other candidates of this search (learn from the fast ones)", insp});
}

// The prompt as `cuts` shows it.
// The measured moves that helped, largest gain first, at most kMaxMoves lines:
// "- backend=ce, strategy=interleaved: 1.09x over its parent (2 pairs: #3, #7)".
std::string MovesText(const std::vector<KnobMove>& moves) {
  constexpr size_t kMaxMoves = 8;
  std::string s;
  for (size_t i = 0; i < moves.size() && i < kMaxMoves; ++i) {
    std::string set, ids;
    for (const auto& [k, v] : moves[i].set) set += (set.empty() ? "" : ", ") + k + "=" + v;
    for (int64_t id : moves[i].children) ids += (ids.empty() ? "#" : ", #") + std::to_string(id);
    char gain[64];
    std::snprintf(gain, sizeof gain, ": %.2fx over its parent (%d pair%s: ", moves[i].gain, moves[i].observations,
                  moves[i].observations == 1 ? "" : "s");
    s += "- " + set + gain + ids + ")\n";
  }
  if (moves.size() > kMaxMoves) s += "(" + std::to_string(moves.size() - kMaxMoves) + " more)\n";
  return s;
}

Prompt Assemble(const PromptParts& parts, const Cuts& cuts) {
  const ProposalContext& ctx = parts.ctx;
  Prompt p;
  std::vector<Section> sys = parts.sys;
  sys[parts.sys_comm_index].body = ctx.comm_api.empty() ? "" : CapText(ctx.comm_api, cuts.comm_cap);
  p.system = Render(sys);
  std::vector<Section> user;
  if (!parts.island.empty()) user.push_back({"Island instructions", parts.island});
  if (!Trim(ctx.meta_summary).empty())
    user.push_back({"What the search has learned so far", CapText(Trim(ctx.meta_summary), cuts.meta_cap)});
  if (!ctx.improving_moves.empty())
    user.push_back({"Knob moves measured faster than their parent (try them together)", MovesText(ctx.improving_moves)});
  user.push_back({parts.kind == "crossover" ? "Parent 1 (the base)" : "Parent (the candidate to improve)",
                  parts.parent_head + parts.parent_code});
  AddInspirations(parts, cuts, &p, &user);
  std::string fails;
  for (size_t i = 0; i < cuts.n_fail; ++i) fails += parts.failure_text[i];
  if (!fails.empty()) user.push_back({"Recent failures (do not repeat these mistakes)", fails});
  user.push_back({"Task", parts.task});
  p.user = Render(user);
  return p;
}

}  // namespace

Prompt BuildPrompt(const ProposalContext& ctx, const PromptOptions& options) {
  const PromptLimits& lim = options.limits;
  const bool cuda = ctx.workload == nullptr || ctx.workload->language != "cpu";
  PromptParts parts(ctx, lim, cuda ? "cuda" : "cpp", NormalizedMutationKind(ctx.mutation_kind));
  parts.sys = SystemSections(ctx, options, cuda, &parts.sys_comm_index);
  parts.island = IslandText(ctx);
  parts.parent_head = ParentHead(ctx.parent, lim);
  parts.parent_code = Fence(parts.lang, ctx.parent.code);
  parts.n_partners = parts.kind == "crossover" ? std::min<size_t>(2, ctx.inspirations.size()) : 0;
  const std::string& base_code = ctx.parent.code.empty() ? ctx.seed_code : ctx.parent.code;
  for (size_t i = 0; i < ctx.failures.size() && i < lim.max_failures; ++i)
    parts.failure_text.push_back(FailureText(ctx.failures[i], base_code, lim));
  int blocks = 0;
  if (auto split = SplitEvolveBlocks(ctx.seed_code.empty() ? ctx.parent.code : ctx.seed_code, "seed"); split.ok())
    blocks = static_cast<int>(split->blocks.size());
  parts.task = TaskText(parts.kind, ctx.phase, blocks);

  Cuts cuts;
  cuts.shown.assign(std::min(ctx.inspirations.size(), parts.n_partners + lim.max_inspirations), Shown::kFull);
  cuts.n_fail = std::min(ctx.failures.size(), lim.max_failures);
  cuts.meta_cap = lim.max_meta_chars;
  cuts.comm_cap = lim.max_comm_api_chars;
  bool truncated = false;
  Prompt p = Assemble(parts, cuts);
  while (p.size() > lim.max_total_chars && CutOnce(&cuts, parts.n_partners)) {
    truncated = true;
    p = Assemble(parts, cuts);
  }
  p.truncated = truncated;
  return p;
}

Prompt BuildSummaryPrompt(const std::string& stats_text, size_t max_chars) {
  Prompt p;
  p.system =
      "You are the research lead of an automated search that optimises a multi-GPU CUDA/NCCL program by mutating "
      "its code. You write the notes that guide the next generation's proposals.\n";
  p.user =
      "Here are the statistics of the search so far (candidates tried, their status and times, per knob and per "
      "mutation kind):\n\n" +
      CapText(stats_text, max_chars) +
      "\nWrite a compact summary (at most about 300 words, plain text, no code) under three headings:\n"
      "TRIED: the designs and changes tried so far, grouped by idea;\n"
      "WORKED: what made candidates faster, and what failed and why (compile errors, wrong results, timeouts, "
      "rejections);\n"
      "NEXT: the three to five most promising things to try next, most promising first, each specific enough to "
      "implement.\n";
  p.truncated = stats_text.size() > max_chars;
  return p;
}

}  // namespace cuco
