// Proposer: the mutation operator of the search. Given a parent (and inspirations), it
// returns new candidate code. Implementations: builtin (design-space knobs, no network) and
// llm (a language model through src/llm/). A proposer never evaluates anything.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "util/status.h"
#include "workload/workload_config.h"

namespace cuco {

// A stored candidate as a proposer sees it.
struct CandidateView {
  int64_t id = 0;
  std::string code;                            // the whole file
  std::string status;                          // ok, wrong_result, compile_error, ...
  double time_ms = -1;                         // < 0: none
  double speedup = 0;                          // over the seed, when known
  std::string feedback;                        // the evaluator's text for this candidate
  std::map<std::string, std::string> knobs;    // knob -> value as marked in its code
  std::string mutation_kind;
};

// A knob move the search has measured: a passing candidate that differs from its passing parent
// only in these knob values, and how much faster it ran (parent median / child median; the
// geometric mean when several such pairs made the same move).
struct KnobMove {
  std::map<std::string, std::string> set;      // knob -> the value the move sets
  double gain = 1;                             // > 1: the child was faster
  int observations = 0;                        // parent-child pairs behind `gain`
  std::vector<int64_t> children;               // their ids, in id order
};

struct ProposalContext {
  const WorkloadConfig* workload = nullptr;
  std::string seed_code;                       // the frozen seed (its blocks are the interface)
  int island = 0;
  int generation = 0;
  std::string phase = "explore";               // "explore" | "exploit"
  std::string mutation_kind;                   // what the search asks for: knobs, diff, rewrite, crossover
  CandidateView parent;
  std::vector<CandidateView> inspirations;     // top-k and archive picks (crossover partners first)
  std::vector<CandidateView> failures;         // recent failures, as negative examples
  std::string meta_summary;                    // what was tried, what worked, what to try next
  std::vector<KnobMove> improving_moves;       // measured moves that sped their parent up, best first
  std::string hardware;                        // facts: GPUs, SM count, NVLink topology
  std::string comm_api;                        // the communication API actually installed
  double temperature = 0.7;
  uint64_t rng_seed = 0;                       // the proposer's randomness for this call
  // Has this exact code (or knob set) been evaluated already? Proposers use it to avoid repeats.
  std::function<bool(const std::string& code)> already_tried;
  // The island's restriction of the design space: knob -> the values allowed there (knobs not
  // listed are free). A parent outside it must be moved inside.
  std::map<std::string, std::vector<std::string>> allowed_knobs;
  std::string island_prompt;                   // the island's own instructions, if any
};

struct Proposal {
  std::string code;                            // the whole new file (frozen text unchanged)
  std::string mutation_kind;                   // knobs | diff | rewrite | crossover
  std::string description;                     // one line: what changed and why
  std::vector<int64_t> extra_parent_ids;       // crossover partners
  // > 0: the code derives from this candidate (one of ctx.inspirations), not from ctx.parent; the
  // search records it as the parent (e.g. the builtin proposer given a parent without knob marks).
  int64_t parent_id = 0;
  // A malformed answer (no diff, a diff that does not apply, an edit outside the EVOLVE blocks):
  // the search stores it as a failed candidate with this reason instead of evaluating it.
  std::string failure;
  double dollars = 0;                          // what producing it cost (LLM calls)
  int64_t input_tokens = 0, output_tokens = 0;
  std::string model;                           // which model produced it, if any
  // Nothing new can be proposed from this context (e.g. every knob configuration was tried):
  // `code` is empty and the search does not ask this island again this generation.
  bool exhausted = false;
};

class Proposer {
 public:
  virtual ~Proposer() = default;
  // An error Status means the proposer itself could not work (no network, bad config); a
  // Proposal with `failure` set means it produced something unusable, which is stored.
  virtual Result<Proposal> Propose(const ProposalContext& ctx) = 0;
  // Called after the proposal was evaluated (for bandits and per-model statistics).
  virtual void Feedback(const Proposal& /*p*/, bool /*improved_parent*/, bool /*valid*/) {}
  virtual std::string Name() const = 0;        // "builtin", "llm:<model>", ...
};

}  // namespace cuco
