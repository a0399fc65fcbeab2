#include "store/candidate_store.h"

#include <chrono>
#include <exception>
#include <iterator>
#include <nlohmann/json.hpp>
#include <utility>

#include "store/sqlite_db.h"
#include "util/clock.h"
#include "util/sha256.h"

namespace cuco {

namespace {

// PRAGMA application_id marking a cuco candidate store: "cuco" in ASCII.
constexpr int64_t kApplicationId = 0x6375636F;
// Writers wait this long for each other before failing with Unavailable.
constexpr int kBusyTimeoutMs = 30000;

// kMigrations[v] takes the schema from version v to v + 1. Append only; never edit
// a migration that has shipped. The runner sets user_version and application_id.
const char* const kMigrations[] = {
    // 0 -> 1: the initial schema.
    R"sql(
CREATE TABLE meta (
  key   TEXT PRIMARY KEY NOT NULL,
  value TEXT NOT NULL
);
CREATE TABLE candidates (
  id               INTEGER PRIMARY KEY,
  run_id           TEXT NOT NULL DEFAULT '',
  code_hash        TEXT NOT NULL,
  code             TEXT NOT NULL,
  parent_id        INTEGER NOT NULL DEFAULT 0,
  extra_parent_ids TEXT NOT NULL DEFAULT '[]',  -- JSON array of ids
  diff_from_parent TEXT NOT NULL DEFAULT '',
  mutation_kind    TEXT NOT NULL DEFAULT '',
  proposer         TEXT NOT NULL DEFAULT '',
  island           INTEGER NOT NULL DEFAULT 0,
  generation       INTEGER NOT NULL DEFAULT 0,
  status           TEXT NOT NULL,
  time_ms          REAL,                          -- NULL only for NaN
  speedup          REAL,                          -- NULL only for NaN
  metrics_json     TEXT NOT NULL DEFAULT '',
  logs             TEXT NOT NULL DEFAULT '',
  feedback         TEXT NOT NULL DEFAULT '',
  features_json    TEXT NOT NULL DEFAULT '',
  created_ms       INTEGER NOT NULL,
  finished_ms      INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX candidates_code_hash ON candidates(code_hash);
CREATE INDEX candidates_status_time ON candidates(status, time_ms);
CREATE INDEX candidates_island_status_time ON candidates(island, status, time_ms);
CREATE INDEX candidates_time ON candidates(time_ms);
)sql",
};
static_assert(std::size(kMigrations) == CandidateStore::kSchemaVersion,
              "one migration per schema version");

// Column order read by ReadRecord().
constexpr const char* kColumns =
    "id, run_id, code_hash, code, parent_id, extra_parent_ids, diff_from_parent, mutation_kind, "
    "proposer, island, generation, status, time_ms, speedup, metrics_json, logs, feedback, "
    "features_json, created_ms, finished_ms";
// The same, with the bulky text columns left empty.
constexpr const char* kSummaryColumns =
    "id, run_id, code_hash, '', parent_id, extra_parent_ids, '', mutation_kind, "
    "proposer, island, generation, status, time_ms, speedup, metrics_json, '', feedback, "
    "features_json, created_ms, finished_ms";

std::string ParentIdsJson(const std::vector<int64_t>& ids) {
  nlohmann::json j = nlohmann::json::array();
  for (int64_t id : ids) j.push_back(id);
  return j.dump();
}

// Binds parameters ?1..?19 in the order of kColumns without id.
void BindRecord(SqliteStmt& st, const CandidateRecord& r) {
  st.Bind(1, r.run_id)
      .Bind(2, r.code_hash.empty() ? Sha256Hex(r.code) : r.code_hash)
      .Bind(3, r.code)
      .Bind(4, r.parent_id)
      .Bind(5, ParentIdsJson(r.extra_parent_ids))
      .Bind(6, r.diff_from_parent)
      .Bind(7, r.mutation_kind)
      .Bind(8, r.proposer)
      .Bind(9, static_cast<int64_t>(r.island))
      .Bind(10, static_cast<int64_t>(r.generation))
      .Bind(11, r.status)
      .Bind(12, r.time_ms)
      .Bind(13, r.speedup)
      .Bind(14, r.metrics_json)
      .Bind(15, r.logs)
      .Bind(16, r.feedback)
      .Bind(17, r.features_json)
      .Bind(18, r.created_ms)
      .Bind(19, r.finished_ms);
}

}  // namespace

struct CandidateStore::Rep {
  std::unique_ptr<SqliteDb> db;
  int schema_version = 0;
  int txn_depth = 0;  // nesting of Transaction() calls

  // A candidate from the current row of a statement selecting kColumns.
  Result<CandidateRecord> ReadRecord(const SqliteStmt& st) const {
    CandidateRecord r;
    r.id = st.Int64(0);
    r.run_id = st.Text(1);
    r.code_hash = st.Text(2);
    r.code = st.Text(3);
    r.parent_id = st.Int64(4);
    nlohmann::json parents = nlohmann::json::parse(st.Text(5), nullptr, /*allow_exceptions=*/false);
    if (!parents.is_array()) {
      return Status::IOError(db->path() + ": candidate " + std::to_string(r.id) +
                             ": extra_parent_ids is not a JSON array");
    }
    for (const auto& p : parents) {
      if (!p.is_number_integer()) {
        return Status::IOError(db->path() + ": candidate " + std::to_string(r.id) +
                               ": extra_parent_ids holds a non-integer");
      }
      r.extra_parent_ids.push_back(p.get<int64_t>());
    }
    r.diff_from_parent = st.Text(6);
    r.mutation_kind = st.Text(7);
    r.proposer = st.Text(8);
    r.island = static_cast<int>(st.Int64(9));
    r.generation = static_cast<int>(st.Int64(10));
    r.status = st.Text(11);
    r.time_ms = st.Double(12);
    r.speedup = st.Double(13);
    r.metrics_json = st.Text(14);
    r.logs = st.Text(15);
    r.feedback = st.Text(16);
    r.features_json = st.Text(17);
    r.created_ms = st.Int64(18);
    r.finished_ms = st.Int64(19);
    return r;
  }

  // Runs a prepared query and collects every row as a candidate.
  Result<std::vector<CandidateRecord>> ReadAll(SqliteStmt& st) const {
    std::vector<CandidateRecord> out;
    while (true) {
      Result<bool> row = st.Step();
      if (!row.ok()) return row.status();
      if (!*row) return out;
      Result<CandidateRecord> r = ReadRecord(st);
      if (!r.ok()) return r.status();
      out.push_back(std::move(*r));
    }
  }

  Result<std::optional<CandidateRecord>> ReadFirst(SqliteStmt& st) const {
    Result<bool> row = st.Step();
    if (!row.ok()) return row.status();
    if (!*row) return std::optional<CandidateRecord>();
    Result<CandidateRecord> r = ReadRecord(st);
    if (!r.ok()) return r.status();
    return std::optional<CandidateRecord>(std::move(*r));
  }
};

namespace {

// Says whether the open database is a fresh file, a cuco store of a version this
// build can open, or something to refuse. Sets *version for a cuco store.
Status CheckIdentity(const SqliteDb& db, bool* fresh, int64_t* version) {
  // The first read of the file: a non-SQLite file fails here with SQLITE_NOTADB.
  Result<int64_t> app_id = db.QueryInt("PRAGMA application_id");
  if (!app_id.ok()) return app_id.status();
  Result<int64_t> user_version = db.QueryInt("PRAGMA user_version");
  if (!user_version.ok()) return user_version.status();
  Result<int64_t> objects = db.QueryInt("SELECT count(*) FROM sqlite_master");
  if (!objects.ok()) return objects.status();

  *fresh = *app_id == 0 && *user_version == 0 && *objects == 0;
  *version = *user_version;
  if (*fresh) return Status::Ok();
  if (*app_id != kApplicationId) {
    return Status::InvalidArgument(db.path() +
                                   ": a SQLite database but not a cuco candidate store "
                                   "(application_id " + std::to_string(*app_id) + ")");
  }
  if (*user_version > CandidateStore::kSchemaVersion) {
    return Status::InvalidArgument(
        db.path() + ": candidate store schema version " + std::to_string(*user_version) +
        " is newer than this cuco supports (" + std::to_string(CandidateStore::kSchemaVersion) +
        "); use a newer cuco");
  }
  if (*user_version < 1) {
    return Status::InvalidArgument(db.path() + ": cuco candidate store with invalid schema version " +
                                   std::to_string(*user_version));
  }
  return Status::Ok();
}

// Brings the schema up to kSchemaVersion in one transaction. Re-checks under the
// write lock, since another process may have migrated meanwhile.
Status Migrate(SqliteDb& db) {
  CUCO_RETURN_IF_ERROR(db.Exec("BEGIN IMMEDIATE"));
  auto fail = [&db](Status s) {
    if (db.InTransaction()) (void)db.Exec("ROLLBACK");
    return s;
  };
  bool fresh = false;
  int64_t version = 0;
  Status s = CheckIdentity(db, &fresh, &version);
  if (!s.ok()) return fail(s);
  for (int64_t v = version; v < CandidateStore::kSchemaVersion; ++v) {
    s = db.Exec(kMigrations[v]);
    if (!s.ok()) {
      return fail(Status::IOError(db.path() + ": migrating the candidate store from schema version " +
                                  std::to_string(v) + ": " + s.message()));
    }
    // PRAGMAs take no parameters; these are constants of this program.
    s = db.Exec("PRAGMA user_version = " + std::to_string(v + 1));
    if (!s.ok()) return fail(s);
  }
  if (fresh) {
    s = db.Exec("PRAGMA application_id = " + std::to_string(kApplicationId));
    if (!s.ok()) return fail(s);
  }
  s = db.Exec("COMMIT");
  if (!s.ok()) return fail(s);
  return Status::Ok();
}

}  // namespace

CandidateStore::CandidateStore(std::unique_ptr<Rep> rep) : rep_(std::move(rep)) {}
CandidateStore::~CandidateStore() = default;

Result<std::unique_ptr<CandidateStore>> CandidateStore::Open(const std::string& path) {
  Result<std::unique_ptr<SqliteDb>> opened = SqliteDb::Open(path, kBusyTimeoutMs);
  if (!opened.ok()) return opened.status();
  std::unique_ptr<SqliteDb> db = std::move(*opened);

  // Refuse foreign files before changing anything in them.
  bool fresh = false;
  int64_t version = 0;
  CUCO_RETURN_IF_ERROR(CheckIdentity(*db, &fresh, &version));

  // WAL lets readers run beside the writer; it is a property of the file.
  Result<std::string> mode = db->QueryText("PRAGMA journal_mode = WAL");
  if (!mode.ok()) return mode.status();
  if (*mode != "wal") {
    return Status::IOError(path + ": cannot use WAL journal mode (got \"" + *mode +
                           "\"); is the file on a local file system?");
  }
  // FULL: a commit survives power loss too; commits are rare next to evaluations.
  CUCO_RETURN_IF_ERROR(db->Exec("PRAGMA synchronous = FULL"));

  if (fresh || version < kSchemaVersion) CUCO_RETURN_IF_ERROR(Migrate(*db));
  Result<int64_t> final_version = db->QueryInt("PRAGMA user_version");
  if (!final_version.ok()) return final_version.status();

  auto rep = std::make_unique<Rep>();
  rep->db = std::move(db);
  rep->schema_version = static_cast<int>(*final_version);
  return std::unique_ptr<CandidateStore>(new CandidateStore(std::move(rep)));
}

Result<std::unique_ptr<CandidateStore>> CandidateStore::OpenReadOnly(const std::string& path) {
  Result<std::unique_ptr<SqliteDb>> opened = SqliteDb::Open(path, kBusyTimeoutMs, /*read_only=*/true);
  if (!opened.ok()) return opened.status();
  bool fresh = false;
  int64_t version = 0;
  CUCO_RETURN_IF_ERROR(CheckIdentity(**opened, &fresh, &version));
  if (fresh) return Status::InvalidArgument(path + ": an empty SQLite file, not a cuco candidate store");
  if (version < kSchemaVersion)
    return Status::InvalidArgument(path + ": candidate store schema version " + std::to_string(version) +
                                   " predates this cuco's (" + std::to_string(kSchemaVersion) +
                                   "); `cuco evolve --resume` on it migrates it");
  auto rep = std::make_unique<Rep>();
  rep->db = std::move(*opened);
  rep->schema_version = static_cast<int>(version);
  return std::unique_ptr<CandidateStore>(new CandidateStore(std::move(rep)));
}

int CandidateStore::SchemaVersion() const { return rep_->schema_version; }

const std::string& CandidateStore::path() const { return rep_->db->path(); }

Result<int64_t> CandidateStore::Insert(const CandidateRecord& record) {
  Result<SqliteStmt> st = rep_->db->Prepare(
      "INSERT INTO candidates (run_id, code_hash, code, parent_id, extra_parent_ids, "
      "diff_from_parent, mutation_kind, proposer, island, generation, status, time_ms, speedup, "
      "metrics_json, logs, feedback, features_json, created_ms, finished_ms) "
      "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19)");
  if (!st.ok()) return st.status();
  BindRecord(*st, record);
  if (record.created_ms == 0) st->Bind(18, NowMs());
  // A single statement is its own transaction (or part of the caller's).
  CUCO_RETURN_IF_ERROR(st->Run());
  return rep_->db->LastInsertRowid();
}

Status CandidateStore::Update(const CandidateRecord& record) {
  Result<SqliteStmt> st = rep_->db->Prepare(
      "UPDATE candidates SET run_id = ?1, code_hash = ?2, code = ?3, parent_id = ?4, "
      "extra_parent_ids = ?5, diff_from_parent = ?6, mutation_kind = ?7, proposer = ?8, "
      "island = ?9, generation = ?10, status = ?11, time_ms = ?12, speedup = ?13, "
      "metrics_json = ?14, logs = ?15, feedback = ?16, features_json = ?17, "
      "created_ms = CASE WHEN ?18 = 0 THEN created_ms ELSE ?18 END, finished_ms = ?19 "
      "WHERE id = ?20");
  if (!st.ok()) return st.status();
  BindRecord(*st, record);
  st->Bind(20, record.id);
  CUCO_RETURN_IF_ERROR(st->Run());
  if (rep_->db->Changes() == 0) {
    return Status::NotFound(path() + ": no candidate with id " + std::to_string(record.id));
  }
  return Status::Ok();
}

Result<CandidateRecord> CandidateStore::Get(int64_t id) const {
  Result<SqliteStmt> st =
      rep_->db->Prepare(std::string("SELECT ") + kColumns + " FROM candidates WHERE id = ?1");
  if (!st.ok()) return st.status();
  st->Bind(1, id);
  Result<std::optional<CandidateRecord>> r = rep_->ReadFirst(*st);
  if (!r.ok()) return r.status();
  if (!r->has_value()) return Status::NotFound(path() + ": no candidate with id " + std::to_string(id));
  return std::move(**r);
}

Result<std::optional<CandidateRecord>> CandidateStore::FindByCodeHash(const std::string& hash) const {
  Result<SqliteStmt> st = rep_->db->Prepare(std::string("SELECT ") + kColumns +
                                            " FROM candidates WHERE code_hash = ?1 "
                                            "ORDER BY id DESC LIMIT 1");
  if (!st.ok()) return st.status();
  st->Bind(1, hash);
  return rep_->ReadFirst(*st);
}

Result<std::vector<CandidateRecord>> CandidateStore::List(const ListQuery& q) const {
  // The SQL is assembled from fixed fragments; every value is a bound parameter.
  std::string sql = std::string("SELECT ") + (q.summary_only ? kSummaryColumns : kColumns) +
                    " FROM candidates WHERE id > ?1";
  if (q.status) sql += " AND status = ?2";
  if (q.island) sql += " AND island = ?3";
  if (q.min_generation) sql += " AND generation >= ?4";
  if (q.max_generation) sql += " AND generation <= ?5";
  if (q.run_id) sql += " AND run_id = ?6";
  switch (q.order) {
    case ListQuery::Order::kIdAsc: sql += " ORDER BY id ASC"; break;
    case ListQuery::Order::kIdDesc: sql += " ORDER BY id DESC"; break;
    case ListQuery::Order::kFastest:
      sql += " AND status = ?7 AND time_ms >= 0 ORDER BY time_ms ASC, id ASC";
      break;
  }
  sql += " LIMIT ?8";

  Result<SqliteStmt> st = rep_->db->Prepare(sql);
  if (!st.ok()) return st.status();
  st->Bind(1, q.after_id);
  if (q.status) st->Bind(2, *q.status);
  if (q.island) st->Bind(3, static_cast<int64_t>(*q.island));
  if (q.min_generation) st->Bind(4, static_cast<int64_t>(*q.min_generation));
  if (q.max_generation) st->Bind(5, static_cast<int64_t>(*q.max_generation));
  if (q.run_id) st->Bind(6, *q.run_id);
  if (q.order == ListQuery::Order::kFastest) st->Bind(7, std::string_view("ok"));
  st->Bind(8, q.limit > 0 ? q.limit : int64_t{-1});  // a negative LIMIT means none
  return rep_->ReadAll(*st);
}

Result<std::optional<CandidateRecord>> CandidateStore::Best(std::optional<int> island) const {
  ListQuery q;
  q.island = island;
  q.order = ListQuery::Order::kFastest;
  q.limit = 1;
  Result<std::vector<CandidateRecord>> rows = List(q);
  if (!rows.ok()) return rows.status();
  if (rows->empty()) return std::optional<CandidateRecord>();
  return std::optional<CandidateRecord>(std::move(rows->front()));
}

Result<int64_t> CandidateStore::Count(const std::string& status) const {
  Result<SqliteStmt> st = rep_->db->Prepare(
      status.empty() ? "SELECT count(*) FROM candidates"
                     : "SELECT count(*) FROM candidates WHERE status = ?1");
  if (!st.ok()) return st.status();
  if (!status.empty()) st->Bind(1, status);
  Result<bool> row = st->Step();
  if (!row.ok()) return row.status();
  return st->Int64(0);
}

Result<std::map<std::string, int64_t>> CandidateStore::CountByStatus() const {
  Result<SqliteStmt> st =
      rep_->db->Prepare("SELECT status, count(*) FROM candidates GROUP BY status");
  if (!st.ok()) return st.status();
  std::map<std::string, int64_t> out;
  while (true) {
    Result<bool> row = st->Step();
    if (!row.ok()) return row.status();
    if (!*row) return out;
    out[st->Text(0)] = st->Int64(1);
  }
}

Result<int64_t> CandidateStore::MaxId() const {
  return rep_->db->QueryInt("SELECT coalesce(max(id), 0) FROM candidates");
}

Status CandidateStore::PutMeta(const std::string& key, const std::string& value) {
  Result<SqliteStmt> st = rep_->db->Prepare(
      "INSERT INTO meta (key, value) VALUES (?1, ?2) "
      "ON CONFLICT(key) DO UPDATE SET value = excluded.value");
  if (!st.ok()) return st.status();
  st->Bind(1, key).Bind(2, value);
  return st->Run();
}

Result<std::optional<std::string>> CandidateStore::GetMeta(const std::string& key) const {
  Result<SqliteStmt> st = rep_->db->Prepare("SELECT value FROM meta WHERE key = ?1");
  if (!st.ok()) return st.status();
  st->Bind(1, key);
  Result<bool> row = st->Step();
  if (!row.ok()) return row.status();
  if (!*row) return std::optional<std::string>();
  return std::optional<std::string>(st->Text(0));
}

Status CandidateStore::Transaction(const std::function<Status(CandidateStore&)>& fn) {
  SqliteDb& db = *rep_->db;
  const int depth = rep_->txn_depth;
  const std::string savepoint = "cuco_sp" + std::to_string(depth);  // a constant name, not a value
  CUCO_RETURN_IF_ERROR(db.Exec(depth == 0 ? "BEGIN IMMEDIATE" : "SAVEPOINT " + savepoint));
  ++rep_->txn_depth;

  // Undoes this level; SQLite may already have rolled back everything after an I/O error.
  auto rollback = [&]() {
    --rep_->txn_depth;
    if (!db.InTransaction()) return;
    if (depth == 0) {
      (void)db.Exec("ROLLBACK");
    } else {
      (void)db.Exec("ROLLBACK TO " + savepoint + "; RELEASE " + savepoint);
    }
  };

  Status s;
  try {
    s = fn(*this);
  } catch (...) {
    rollback();
    throw;
  }
  if (!s.ok()) {
    rollback();
    return s;
  }
  if (!db.InTransaction()) {
    --rep_->txn_depth;
    return Status::IOError(path() + ": the transaction was rolled back by SQLite");
  }
  s = db.Exec(depth == 0 ? "COMMIT" : "RELEASE " + savepoint);
  if (!s.ok()) {
    rollback();
    return s;
  }
  --rep_->txn_depth;
  return Status::Ok();
}

Status CandidateStore::CheckIntegrity() const {
  Result<SqliteStmt> st = rep_->db->Prepare("PRAGMA integrity_check");
  if (!st.ok()) return st.status();
  std::string problems;
  while (true) {
    Result<bool> row = st->Step();
    if (!row.ok()) return row.status();
    if (!*row) break;
    std::string line = st->Text(0);
    if (line == "ok") continue;
    if (!problems.empty()) problems += "; ";
    problems += line;
  }
  if (problems.empty()) return Status::Ok();
  return Status::IOError(path() + ": integrity check failed: " + problems);
}

}  // namespace cuco
