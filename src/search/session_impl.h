// What a Session holds (session.h), shared by session.cc (Open) and session_run.cc (Run and its
// summary); not for use elsewhere.
#pragma once

#include <atomic>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <string>

#include "evaluate/cascade.h"
#include "propose/proposer.h"
#include "search/gain_check.h"
#include "search/session.h"
#include "store/candidate_store.h"
#include "toolchain/toolchain.h"

namespace cuco {

// "20261128-104113", local time: a new run folder's default name, the log's session lines.
std::string SessionTimestamp();

// Plain progress lines appended to logs/evolve.log.
class SessionLog {
 public:
  explicit SessionLog(const std::filesystem::path& path) : out_(path, std::ios::app) {}
  void Line(const std::string& s) {
    if (!out_) return;
    out_ << s << "\n";
    out_.flush();
  }

 private:
  std::ofstream out_;
};

struct Session::Impl {
  explicit Impl(const SessionOptions& o);
  // Open's steps, in order (session.cc).
  Status ReadConfig();
  Status OpenResumedStore();
  Status SettleWorkload();
  Status CreateRun();
  Status MakeEvaluator();
  void SettleConcurrency();
  // After the search (session_run.cc): the best evaluated again against the reference before a gain
  // is claimed (gain_check.h), recorded in the store and the log; nullopt when there is nothing to
  // check or [budget] gain_check_rounds is 0.
  std::optional<GainCheck> RetimeBestAgainstReference(const SearchResult& result, const std::string& code_extension,
                                                      const std::atomic<bool>* stop);

  SessionOptions options;
  std::string me;  // "cuco <command>: "
  bool resuming = false;
  std::string workload_path;
  std::filesystem::path run_dir;
  std::string config_path;
  std::string config_as_read;  // the run's config.toml as read (the run binding compares it)
  std::string config_text;     // as the run records it
  RunConfig cfg;
  BudgetChange budget;
  std::unique_ptr<CandidateStore> store;
  WorkloadConfig wl;
  Toolchain tc;
  bool slurm = false;
  std::unique_ptr<Cascade> cascade;
  std::unique_ptr<SessionLog> log;
  SearchOptions so;
  std::unique_ptr<Proposer> proposer;
  bool ran = false;
};

}  // namespace cuco
