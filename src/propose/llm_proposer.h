// LlmProposer: the search's mutation operator backed by language models.
//
// For each Propose() it picks an endpoint (a ModelBandit over several; the only one otherwise),
// builds the prompt (prompt_builder.h) for the requested mutation kind, sends it, and turns the
// answer into a candidate with block_edits.h. A malformed answer (no diff, a diff that does not
// apply, an edit outside the EVOLVE blocks, an empty answer, unbalanced markers) becomes a
// Proposal with `failure` set, which the search stores without evaluating. A call that fails
// (network, HTTP errors after the client's retries) is tried on the other endpoints before
// Propose returns the error. Feedback() rewards the endpoint that wrote the proposal.
//
// API keys never reach this code's outputs: clients hold them, and the optional log holds only
// prompts, answers, usage and the endpoint's name.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "llm/llm_client.h"
#include "llm/llm_endpoint.h"
#include "llm/model_bandit.h"
#include "propose/prompt_builder.h"
#include "propose/proposer.h"
#include "util/status.h"

namespace cuco {

struct LlmProposerOptions {
  PromptOptions prompt;          // contract / extra_api left empty are loaded from the runtime folder
  int max_tokens = 16384;        // the answer's limit (rewrites of large blocks need room)
  bool load_contract = true;     // read cuco/harness.h (or cpu_harness.h) for the frozen interface
  bool load_codesign_api = true; // show cuco/codesign's API when the seed includes it
  BanditOptions bandit;          // when there are several endpoints (bandit.seed is set from the seed)
  double reward_improved = 1.0;  // Feedback: the child beat its parent
  double reward_valid = 0.1;     // Feedback: the child passed but was not faster
  std::string log_dir;           // "" : no log; else one file per call: prompt, answer, usage
};

// One endpoint the proposer may use.
struct LlmArm {
  std::string name;                 // the endpoint's name (bandit arm, Proposal::model)
  std::string model;                // sent as ChatRequest::model ("" : the client's default)
  std::shared_ptr<LlmClient> client;
};

class LlmProposer : public Proposer {
 public:
  // `arms` must not be empty and their names must be unique.
  LlmProposer(std::vector<LlmArm> arms, uint64_t seed, LlmProposerOptions options = {});

  Result<Proposal> Propose(const ProposalContext& ctx) override;
  // Rewards the arm named by p.model: reward_improved, reward_valid or 0. Proposals with a
  // failure were rewarded 0 when proposed and are ignored here.
  void Feedback(const Proposal& p, bool improved_parent, bool valid) override;
  // "llm:<name>" for one endpoint, "llm:<a>+<b>+..." for several.
  std::string Name() const override;

  // The bandit's arms (empty with a single endpoint).
  std::vector<BanditArm> BanditArms() const;
  // The prompt Propose would send for `ctx` (for tests and `--dry-run` style inspection).
  Prompt PromptFor(const ProposalContext& ctx);

 private:
  PromptOptions PromptOptionsFor(const ProposalContext& ctx);
  void Log(const std::string& arm, const Prompt& prompt, const std::string& answer, const std::string& usage,
           const std::string& outcome);

  std::vector<LlmArm> arms_;
  LlmProposerOptions options_;
  std::unique_ptr<ModelBandit> bandit_;  // null with one arm
  std::mutex mu_;                        // guards contracts_ and codesign_
  std::map<std::string, std::string> contracts_;  // language -> contract text
  bool codesign_loaded_ = false;
  std::string codesign_;
  std::atomic<int64_t> calls_{0};
};

// Asks `client` for the meta-summary (what was tried, what worked, what to try next) from the
// search's statistics text. Returns the model's text, trimmed; an empty answer is an error.
Result<std::string> SummarizeRun(LlmClient& client, const std::string& stats_text);

// A proposer over these endpoints (one client each; a bandit when there are several). Fails when
// an endpoint is invalid, names repeat, or a key variable is unset.
Result<std::unique_ptr<Proposer>> MakeLlmProposer(const std::vector<LlmEndpoint>& endpoints, uint64_t seed);
Result<std::unique_ptr<Proposer>> MakeLlmProposer(const std::vector<LlmEndpoint>& endpoints, uint64_t seed,
                                                  LlmProposerOptions options);

// The same from a run config's [proposer.llm] table as JSON:
//   endpoints = [{name, provider, base_url, model, api_key_env, command, timeout_s, max_retries,
//                 backoff_initial_s, backoff_max_s, price_in_per_mtok, price_out_per_mtok}, ...]
//   (or one endpoint's keys directly in the table), bandit = "thompson" | "ucb1",
//   max_tokens, max_prompt_chars, log_dir.
// Errors start with `where` (e.g. "run.toml:12") and name unknown keys.
Result<std::unique_ptr<Proposer>> MakeLlmProposerFromJson(const nlohmann::json& options, uint64_t seed,
                                                          const std::string& where);

}  // namespace cuco
