#include "propose/llm_proposer.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <set>

#include "edit/block_edits.h"
#include "prompts/answer_format.h"
#include "prompts/runtime_api_text.h"
#include "util/files.h"
#include "util/source_text.h"

namespace cuco {
namespace fs = std::filesystem;
namespace {

std::string SafeFileName(const std::string& s) {
  std::string out;
  for (char c : s) out += std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.' ? c : '_';
  return out.substr(0, 60);
}

std::string UsageText(const ChatResponse& r) {
  std::string s = "model " + (r.model.empty() ? std::string("?") : r.model) + ", " + std::to_string(r.usage.input_tokens) +
                  " tokens in, " + std::to_string(r.usage.output_tokens) + " out, ";
  s += r.usage.priced ? "$" + std::to_string(r.usage.dollars) : std::string("unpriced");
  s += ", finish " + (r.finish_reason.empty() ? std::string("?") : r.finish_reason) + ", " +
       std::to_string(r.attempts) + " attempt(s), " + std::to_string(r.seconds) + " s";
  return s;
}

}  // namespace

LlmProposer::LlmProposer(std::vector<LlmArm> arms, uint64_t seed, LlmProposerOptions options)
    : arms_(std::move(arms)), options_(std::move(options)) {
  if (arms_.size() > 1) {
    std::vector<std::string> names;
    for (const auto& a : arms_) names.push_back(a.name);
    BanditOptions b = options_.bandit;
    b.seed = seed;
    bandit_ = std::make_unique<ModelBandit>(names, b);
  }
}

std::string LlmProposer::Name() const {
  std::string s = "llm:";
  for (size_t i = 0; i < arms_.size(); ++i) s += (i ? "+" : "") + arms_[i].name;
  return s;
}

std::vector<BanditArm> LlmProposer::BanditArms() const { return bandit_ ? bandit_->Arms() : std::vector<BanditArm>{}; }

PromptOptions LlmProposer::PromptOptionsFor(const ProposalContext& ctx) {
  PromptOptions o = options_.prompt;
  const std::string language = ctx.workload ? ctx.workload->language : "cuda";
  std::lock_guard<std::mutex> lock(mu_);
  if (o.contract.empty() && options_.load_contract) {
    auto it = contracts_.find(language);
    if (it == contracts_.end()) {
      auto loaded = LoadCandidateContract(language);
      // Unreadable: the prompt builder's built-in summary stands in.
      it = contracts_.emplace(language, loaded.ok() ? *loaded : std::string()).first;
    }
    o.contract = it->second;
  }
  const std::string& frozen_source = ctx.seed_code.empty() ? ctx.parent.code : ctx.seed_code;
  if (o.extra_api.empty() && options_.load_codesign_api && frozen_source.find("cuco/codesign") != std::string::npos) {
    if (!codesign_loaded_) {
      codesign_ = LoadCodesignApiText();
      codesign_loaded_ = true;
    }
    o.extra_api = codesign_;
  }
  return o;
}

Prompt LlmProposer::PromptFor(const ProposalContext& ctx) { return BuildPrompt(ctx, PromptOptionsFor(ctx)); }

void LlmProposer::Log(const std::string& arm, const Prompt& prompt, const std::string& answer, const std::string& usage,
                      const std::string& outcome) {
  if (options_.log_dir.empty()) return;
  const int64_t n = ++calls_;
  char seq[16];
  std::snprintf(seq, sizeof seq, "%06lld", static_cast<long long>(n));
  const fs::path path = fs::path(options_.log_dir) / ("llm-" + std::string(seq) + "-" + SafeFileName(arm) + ".md");
  std::string text = "# LLM call " + std::string(seq) + " (" + arm + ")\n\n## Outcome\n" + outcome + "\n\n## Usage\n" +
                     usage + "\n\n## System\n" + prompt.system + "\n## User\n" + prompt.user + "\n## Answer\n" + answer +
                     "\n";
  if (MakeDirs(options_.log_dir).ok()) (void)WriteFileAtomic(path, text);  // a log is best effort
}

Result<Proposal> LlmProposer::Propose(const ProposalContext& ctx) {
  if (arms_.empty()) return Status::Internal("the LLM proposer has no endpoint");
  if (ctx.parent.code.empty()) return Status::Internal("the LLM proposer got a context without the parent's code");
  const Prompt prompt = PromptFor(ctx);
  const std::string kind = NormalizedMutationKind(ctx.mutation_kind);

  ChatRequest req;
  req.messages = {{"system", prompt.system}, {"user", prompt.user}};
  req.temperature = ctx.temperature;
  req.max_tokens = options_.max_tokens;

  // The arm to ask first; on a failed call, the others (in the bandit's order of preference).
  std::vector<size_t> order;
  if (bandit_) order.push_back(bandit_->Choose());
  else order.push_back(0);
  for (size_t i = 0; i < arms_.size(); ++i)
    if (i != order[0]) order.push_back(i);

  std::string errors;
  for (size_t k = 0; k < order.size(); ++k) {
    const size_t a = order[k];
    const LlmArm& arm = arms_[a];
    req.model = arm.model;
    Result<ChatResponse> resp = arm.client->Complete(req);
    if (!resp.ok()) {
      errors += (errors.empty() ? "" : "; ") + arm.name + ": " + resp.status().message();
      if (bandit_) (void)bandit_->Report(a, 0.0, 0.0);
      Log(arm.name, prompt, "", "", "call failed: " + resp.status().message());
      continue;
    }
    Proposal p;
    p.model = arm.name;
    p.dollars = resp->usage.dollars;
    p.input_tokens = resp->usage.input_tokens;
    p.output_tokens = resp->usage.output_tokens;
    p.mutation_kind = kind;
    const std::string seed_path = ctx.workload && !ctx.workload->seed_file.empty() ? ctx.workload->seed_file : "seed";
    const std::string& seed = ctx.seed_code.empty() ? ctx.parent.code : ctx.seed_code;
    auto applied = ApplyLlmAnswer(seed, ctx.parent.code, resp->text, seed_path);
    if (!applied.ok()) {
      p.failure = applied.status().message();
      if (resp->CutOff())
        p.failure += " (the answer was cut off at the " + std::to_string(options_.max_tokens) + "-token limit)";
      p.description = AnswerSummary(resp->text);
      if (bandit_) (void)bandit_->Report(a, 0.0, p.dollars);
    } else {
      p.code = std::move(applied->code);
      p.description = applied->description;
      if (kind != "crossover") p.mutation_kind = applied->format;
      else p.extra_parent_ids = prompt.partner_ids;
    }
    if (p.description.empty()) p.description = p.mutation_kind + " by " + arm.name;
    Log(arm.name, prompt, resp->text, UsageText(*resp), p.failure.empty() ? "ok: " + p.description : "failure: " + p.failure);
    return p;
  }
  return Status::Unavailable("every LLM endpoint failed: " + errors);
}

void LlmProposer::Feedback(const Proposal& p, bool improved_parent, bool valid) {
  if (!bandit_ || !p.failure.empty()) return;
  auto idx = bandit_->Index(p.model);
  if (!idx) return;
  const double reward = improved_parent ? options_.reward_improved : valid ? options_.reward_valid : 0.0;
  (void)bandit_->Report(*idx, std::clamp(reward, 0.0, 1.0), p.dollars);
}

Result<std::string> SummarizeRun(LlmClient& client, const std::string& stats_text) {
  const Prompt prompt = BuildSummaryPrompt(stats_text);
  ChatRequest req;
  req.messages = {{"system", prompt.system}, {"user", prompt.user}};
  req.temperature = 0.3;
  req.max_tokens = 2048;
  auto resp = client.Complete(req);
  if (!resp.ok()) return Status(resp.status());
  std::string text = Trim(resp->text);
  if (text.empty()) return Status::Unavailable("the model returned an empty meta-summary");
  return text;
}

Result<std::unique_ptr<Proposer>> MakeLlmProposer(const std::vector<LlmEndpoint>& endpoints, uint64_t seed) {
  return MakeLlmProposer(endpoints, seed, LlmProposerOptions{});
}

Result<std::unique_ptr<Proposer>> MakeLlmProposer(const std::vector<LlmEndpoint>& endpoints, uint64_t seed,
                                                  LlmProposerOptions options) {
  if (endpoints.empty()) return Status::InvalidArgument("the LLM proposer needs at least one endpoint");
  std::vector<LlmArm> arms;
  std::set<std::string> names;
  for (const auto& ep : endpoints) {
    auto norm = NormalizeLlmEndpoint(ep);
    if (!norm.ok()) return norm.status();
    if (!names.insert(norm->name).second)
      return Status::InvalidArgument("llm endpoint '" + norm->name + "': the name is used twice");
    auto client = MakeLlmClient(*norm);
    if (!client.ok()) return client.status();
    arms.push_back({norm->name, norm->model, std::shared_ptr<LlmClient>(std::move(*client))});
  }
  return std::unique_ptr<Proposer>(std::make_unique<LlmProposer>(std::move(arms), seed, std::move(options)));
}

Result<std::unique_ptr<Proposer>> MakeLlmProposerFromJson(const nlohmann::json& options, uint64_t seed,
                                                          const std::string& where) {
  const std::string at = where.empty() ? std::string("[proposer.llm]") : where;
  if (!options.is_object()) return Status::InvalidArgument(at + ": the llm proposer's options must be a table");
  static const std::set<std::string> kEndpointKeys = {"name", "provider", "base_url", "model", "api_key_env",
                                                      "command", "timeout_s", "max_retries", "backoff_initial_s",
                                                      "backoff_max_s", "price_in_per_mtok", "price_out_per_mtok"};
  static const std::set<std::string> kOwnKeys = {"endpoints", "bandit", "max_tokens", "max_prompt_chars", "log_dir"};

  auto endpoint_from = [&](const nlohmann::json& t, const std::string& label) -> Result<LlmEndpoint> {
    LlmEndpoint e;
    for (const auto& [key, v] : t.items()) {
      if (kOwnKeys.count(key) && label == "proposer.llm") continue;
      if (!kEndpointKeys.count(key))
        return Status::InvalidArgument(at + ": unknown key '" + label + "." + key + "'");
      auto str = [&](std::string* out) -> Status {
        if (!v.is_string()) return Status::InvalidArgument(at + ": '" + label + "." + key + "' must be a string");
        *out = v.get<std::string>();
        return Status::Ok();
      };
      auto num = [&](double* out) -> Status {
        if (!v.is_number()) return Status::InvalidArgument(at + ": '" + label + "." + key + "' must be a number");
        *out = v.get<double>();
        return Status::Ok();
      };
      Status st;
      if (key == "name") st = str(&e.name);
      else if (key == "provider") st = str(&e.provider);
      else if (key == "base_url") st = str(&e.base_url);
      else if (key == "model") st = str(&e.model);
      else if (key == "api_key_env") st = str(&e.api_key_env);
      else if (key == "command") st = str(&e.command);
      else if (key == "timeout_s") st = num(&e.timeout_s);
      else if (key == "backoff_initial_s") st = num(&e.backoff_initial_s);
      else if (key == "backoff_max_s") st = num(&e.backoff_max_s);
      else if (key == "max_retries") {
        if (!v.is_number_integer()) st = Status::InvalidArgument(at + ": '" + label + ".max_retries' must be an integer");
        else e.max_retries = v.get<int>();
      } else {
        double d = 0;
        st = num(&d);
        if (key == "price_in_per_mtok") e.price_in_per_mtok = d;
        else e.price_out_per_mtok = d;
      }
      if (!st.ok()) return st;
    }
    auto norm = NormalizeLlmEndpoint(e);
    if (!norm.ok()) return Status::InvalidArgument(at + ": " + norm.status().message());
    return *norm;
  };

  std::vector<LlmEndpoint> endpoints;
  if (options.contains("endpoints")) {
    const auto& list = options["endpoints"];
    if (!list.is_array() || list.empty())
      return Status::InvalidArgument(at + ": 'proposer.llm.endpoints' must be a non-empty array of tables");
    for (size_t i = 0; i < list.size(); ++i) {
      if (!list[i].is_object())
        return Status::InvalidArgument(at + ": 'proposer.llm.endpoints' must be a non-empty array of tables");
      auto e = endpoint_from(list[i], "endpoints[" + std::to_string(i) + "]");
      if (!e.ok()) return e.status();
      endpoints.push_back(*e);
    }
    for (const auto& [key, v] : options.items())
      if (!kOwnKeys.count(key))
        return Status::InvalidArgument(at + ": unknown key 'proposer.llm." + key +
                                       "' (endpoint keys go inside proposer.llm.endpoints)");
  } else {
    auto e = endpoint_from(options, "proposer.llm");
    if (!e.ok()) return e.status();
    endpoints.push_back(*e);
  }

  LlmProposerOptions o;
  if (options.contains("bandit")) {
    if (!options["bandit"].is_string()) return Status::InvalidArgument(at + ": 'proposer.llm.bandit' must be a string");
    auto policy = ParseBanditPolicy(options["bandit"].get<std::string>());
    if (!policy.ok()) return Status::InvalidArgument(at + ": " + policy.status().message());
    o.bandit.policy = *policy;
  }
  if (options.contains("max_tokens")) {
    if (!options["max_tokens"].is_number_integer() || options["max_tokens"].get<int64_t>() < 256)
      return Status::InvalidArgument(at + ": 'proposer.llm.max_tokens' must be an integer >= 256");
    o.max_tokens = static_cast<int>(std::min<int64_t>(options["max_tokens"].get<int64_t>(), 1 << 20));
  }
  if (options.contains("max_prompt_chars")) {
    if (!options["max_prompt_chars"].is_number_integer() || options["max_prompt_chars"].get<int64_t>() < 10000)
      return Status::InvalidArgument(at + ": 'proposer.llm.max_prompt_chars' must be an integer >= 10000");
    o.prompt.limits.max_total_chars = options["max_prompt_chars"].get<size_t>();
  }
  if (options.contains("log_dir")) {
    if (!options["log_dir"].is_string()) return Status::InvalidArgument(at + ": 'proposer.llm.log_dir' must be a string");
    o.log_dir = options["log_dir"].get<std::string>();
  }
  auto made = MakeLlmProposer(endpoints, seed, std::move(o));
  if (!made.ok()) return Status(made.status().code() == Status::Code::kInvalidArgument
                                    ? Status::InvalidArgument(at + ": " + made.status().message())
                                    : made.status());
  return made;
}

}  // namespace cuco
