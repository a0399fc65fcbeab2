// The candidate store: one SQLite database per run holding every candidate
// evaluated (failures included), with what is needed to resume a killed search
// and to report on it.
//
// Durability: the file is in WAL mode with synchronous=FULL. Every write is one
// SQLite transaction, so a process killed at any moment leaves each candidate
// either wholly present or absent. Any number of processes may open the same
// file; readers never block the writer or each other, and writers wait (busy
// timeout) for one another.
//
// A CandidateStore object is one connection and is not thread-safe: open one
// per thread. Do not carry an open store across fork().
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "util/status.h"

namespace cuco {

// One evaluated (or rejected) candidate. Times in unix milliseconds.
struct CandidateRecord {
  int64_t id = 0;                 // assigned by the store on insert
  std::string run_id;             // optional label
  std::string code_hash;          // sha256 of code; Insert/Update fill it in when empty
  std::string code;               // the whole candidate source
  int64_t parent_id = 0;          // 0 = none; parents for crossover go in extra_parent_ids
  std::vector<int64_t> extra_parent_ids;
  std::string diff_from_parent;   // unified diff text, may be empty
  std::string mutation_kind;      // "seed", "diff", "rewrite", "crossover", "knobs", "manual"...
  std::string proposer;           // "builtin", "llm:<model>", "manual"
  int island = 0;
  int generation = 0;
  std::string status;             // "ok","compile_error","runtime_error","timeout","wrong_result","crashed","rejected","skipped","pending"
  double time_ms = -1;            // benchmark median (max over ranks) if any; < 0 = none
  double speedup = 0;             // over the seed, if known
  std::string metrics_json;       // the full evaluation record as JSON text
  std::string logs;               // compiler + run logs (may be long; stored whole)
  std::string feedback;           // text for later mutations
  std::string features_json;      // design-space features (backend, placement, ...) as JSON object text
  int64_t created_ms = 0, finished_ms = 0;

  bool operator==(const CandidateRecord&) const = default;  // NaN times compare unequal
};

// Filters for CandidateStore::List. Unset fields do not filter.
struct ListQuery {
  enum class Order {
    kIdAsc,    // oldest first
    kIdDesc,   // newest first
    kFastest,  // status "ok" with a time only, by time_ms ascending (ties by id)
  };
  std::optional<std::string> status;
  std::optional<int> island;
  std::optional<int> min_generation;  // inclusive
  std::optional<int> max_generation;  // inclusive
  std::optional<std::string> run_id;
  int64_t after_id = 0;  // only ids > after_id (tail a live store)
  int64_t limit = 0;     // 0 = no limit
  Order order = Order::kIdAsc;
  // Leave code, diff_from_parent and logs empty, for cheap listings.
  bool summary_only = false;
};

class CandidateStore {
 public:
  // Creates the file (and schema) or opens an existing store, applying pending
  // migrations in order. Fails, naming the path, if the file is not a SQLite
  // database, is a SQLite database of something else, or has a schema version
  // newer than this build knows.
  static Result<std::unique_ptr<CandidateStore>> Open(const std::string& path);
  // For viewers (report, serve, show, ...): opens an existing store without ever writing it, beside
  // a writer that may be adding candidates (WAL). Fails, naming the path, for a missing, foreign,
  // empty or not yet migrated file; every write through it fails.
  static Result<std::unique_ptr<CandidateStore>> OpenReadOnly(const std::string& path);
  ~CandidateStore();
  CandidateStore(const CandidateStore&) = delete;
  CandidateStore& operator=(const CandidateStore&) = delete;

  // The schema version this build writes (and the file has, once open).
  static constexpr int kSchemaVersion = 1;
  int SchemaVersion() const;
  const std::string& path() const;

  // Adds a candidate (its id field is ignored) and returns the new id.
  // created_ms == 0 is replaced by the current time.
  Result<int64_t> Insert(const CandidateRecord& record);
  // Replaces every field of the candidate with record.id (NotFound if absent),
  // except that created_ms == 0 keeps the stored creation time.
  Status Update(const CandidateRecord& record);
  Result<CandidateRecord> Get(int64_t id) const;  // NotFound if absent
  // The most recent candidate (highest id) with this code hash, if any.
  Result<std::optional<CandidateRecord>> FindByCodeHash(const std::string& hash) const;
  Result<std::vector<CandidateRecord>> List(const ListQuery& query) const;
  // The fastest candidate with status "ok" and a time (time_ms >= 0), on one
  // island or overall; ties go to the older one.
  Result<std::optional<CandidateRecord>> Best(std::optional<int> island = {}) const;
  // Candidates with this status, or all when status is empty.
  Result<int64_t> Count(const std::string& status = "") const;
  Result<std::map<std::string, int64_t>> CountByStatus() const;
  Result<int64_t> MaxId() const;  // the highest id so far, 0 when empty

  // Run-level key/value metadata (config, seed time, resume cursor...).
  Status PutMeta(const std::string& key, const std::string& value);
  Result<std::optional<std::string>> GetMeta(const std::string& key) const;

  // Applies several writes atomically: fn runs inside BEGIN IMMEDIATE ... COMMIT
  // and everything it wrote is rolled back if it returns an error (which is then
  // returned) or throws. Calls may nest (a savepoint each).
  Status Transaction(const std::function<Status(CandidateStore&)>& fn);

  // PRAGMA integrity_check: Ok, or IOError listing the problems.
  Status CheckIntegrity() const;

 private:
  struct Rep;
  explicit CandidateStore(std::unique_ptr<Rep> rep);
  std::unique_ptr<Rep> rep_;
};

}  // namespace cuco
