#include "store/sqlite_db.h"

#include <sqlite3.h>

#include <cmath>
#include <limits>
#include <utility>

namespace cuco {

namespace {

// The first line of a statement, shortened, to say which one failed.
std::string Abbrev(const char* sql) {
  std::string s = sql ? sql : "";
  size_t nl = s.find('\n');
  if (nl != std::string::npos) s.resize(nl);
  if (s.size() > 80) s = s.substr(0, 77) + "...";
  return s;
}

}  // namespace

// ---- SqliteStmt ----

SqliteStmt::SqliteStmt(SqliteStmt&& other) noexcept
    : db_(other.db_), stmt_(std::exchange(other.stmt_, nullptr)),
      bind_error_(other.bind_error_), bind_index_(other.bind_index_) {}

SqliteStmt& SqliteStmt::operator=(SqliteStmt&& other) noexcept {
  if (this != &other) {
    if (stmt_) sqlite3_finalize(stmt_);
    db_ = other.db_;
    stmt_ = std::exchange(other.stmt_, nullptr);
    bind_error_ = other.bind_error_;
    bind_index_ = other.bind_index_;
  }
  return *this;
}

SqliteStmt::~SqliteStmt() {
  if (stmt_) sqlite3_finalize(stmt_);
}

void SqliteStmt::NoteBind(int rc, int index) {
  if (rc != SQLITE_OK && bind_error_ == 0) {
    bind_error_ = rc;
    bind_index_ = index;
  }
}

SqliteStmt& SqliteStmt::Bind(int index, int64_t value) {
  NoteBind(sqlite3_bind_int64(stmt_, index, value), index);
  return *this;
}

SqliteStmt& SqliteStmt::Bind(int index, double value) {
  // SQLite turns NaN into NULL anyway; say so explicitly.
  if (std::isnan(value)) return BindNull(index);
  NoteBind(sqlite3_bind_double(stmt_, index, value), index);
  return *this;
}

SqliteStmt& SqliteStmt::Bind(int index, std::string_view value) {
  // A non-null pointer even for "", so the value is '' and not NULL.
  NoteBind(sqlite3_bind_text64(stmt_, index, value.empty() ? "" : value.data(), value.size(),
                               SQLITE_TRANSIENT, SQLITE_UTF8),
           index);
  return *this;
}

SqliteStmt& SqliteStmt::BindNull(int index) {
  NoteBind(sqlite3_bind_null(stmt_, index), index);
  return *this;
}

Result<bool> SqliteStmt::Step() {
  if (bind_error_ != 0) {
    return db_->Error(bind_error_, "binding parameter " + std::to_string(bind_index_) + " of \"" +
                                       Abbrev(sqlite3_sql(stmt_)) + "\"");
  }
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  return db_->Error(rc, "\"" + Abbrev(sqlite3_sql(stmt_)) + "\"");
}

Status SqliteStmt::Run() {
  while (true) {
    Result<bool> r = Step();
    if (!r.ok()) return r.status();
    if (!*r) return Status::Ok();
  }
}

bool SqliteStmt::IsNull(int col) const { return sqlite3_column_type(stmt_, col) == SQLITE_NULL; }

int64_t SqliteStmt::Int64(int col) const { return sqlite3_column_int64(stmt_, col); }

double SqliteStmt::Double(int col) const {
  if (IsNull(col)) return std::numeric_limits<double>::quiet_NaN();
  return sqlite3_column_double(stmt_, col);
}

std::string SqliteStmt::Text(int col) const {
  const unsigned char* p = sqlite3_column_text(stmt_, col);
  int n = sqlite3_column_bytes(stmt_, col);  // after column_text, per the SQLite docs
  if (p == nullptr || n <= 0) return std::string();
  return std::string(reinterpret_cast<const char*>(p), static_cast<size_t>(n));
}

// ---- SqliteDb ----

Result<std::unique_ptr<SqliteDb>> SqliteDb::Open(const std::string& path, int busy_timeout_ms, bool read_only) {
  sqlite3* raw = nullptr;
  const int mode = read_only ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
  int rc = sqlite3_open_v2(path.c_str(), &raw, mode | SQLITE_OPEN_NOMUTEX, nullptr);
  std::unique_ptr<SqliteDb> db(new SqliteDb(path, raw));  // closes raw even on failure
  if (rc != SQLITE_OK) {
    if (raw == nullptr) return Status::IOError(path + ": cannot open database: out of memory");
    return db->Error(rc, "cannot open database");
  }
  sqlite3_extended_result_codes(raw, 1);
  rc = sqlite3_busy_timeout(raw, busy_timeout_ms);
  if (rc != SQLITE_OK) return db->Error(rc, "setting the busy timeout");
  return db;
}

SqliteDb::~SqliteDb() {
  // Statements are finalized by their owners first; close_v2 defers if any are left.
  if (db_) sqlite3_close_v2(db_);
}

Status SqliteDb::Exec(const std::string& sql) {
  char* err = nullptr;
  int rc = sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err);
  if (rc == SQLITE_OK) return Status::Ok();
  sqlite3_free(err);  // the same text stays available from sqlite3_errmsg()
  return Error(rc, "\"" + Abbrev(sql.c_str()) + "\"");
}

Result<SqliteStmt> SqliteDb::Prepare(std::string_view sql) const {
  sqlite3_stmt* stmt = nullptr;
  int rc = sqlite3_prepare_v2(db_, sql.data(), static_cast<int>(sql.size()), &stmt, nullptr);
  if (rc != SQLITE_OK) {
    if (stmt) sqlite3_finalize(stmt);
    return Error(rc, "preparing \"" + Abbrev(std::string(sql).c_str()) + "\"");
  }
  return SqliteStmt(this, stmt);
}

Result<int64_t> SqliteDb::QueryInt(std::string_view sql) const {
  Result<SqliteStmt> st = Prepare(sql);
  if (!st.ok()) return st.status();
  Result<bool> row = st->Step();
  if (!row.ok()) return row.status();
  if (!*row) return Status::Internal(path_ + ": \"" + std::string(sql) + "\" returned no row");
  return st->Int64(0);
}

Result<std::string> SqliteDb::QueryText(std::string_view sql) const {
  Result<SqliteStmt> st = Prepare(sql);
  if (!st.ok()) return st.status();
  Result<bool> row = st->Step();
  if (!row.ok()) return row.status();
  if (!*row) return Status::Internal(path_ + ": \"" + std::string(sql) + "\" returned no row");
  return st->Text(0);
}

bool SqliteDb::InTransaction() const { return sqlite3_get_autocommit(db_) == 0; }

int64_t SqliteDb::LastInsertRowid() const { return sqlite3_last_insert_rowid(db_); }

// sqlite3_changes64 needs SQLite 3.37; the GPU machines may have an older library.
int64_t SqliteDb::Changes() const { return sqlite3_changes(db_); }

Status SqliteDb::Error(int rc, const std::string& what) const {
  std::string detail;
  if (db_ != nullptr && sqlite3_errcode(db_) == rc) {
    detail = sqlite3_errmsg(db_);
  } else {
    detail = sqlite3_errstr(rc);
  }
  std::string msg = path_ + ": " + what + ": " + detail;
  switch (rc & 0xff) {
    case SQLITE_NOTADB:
      return Status::InvalidArgument(path_ + ": not a SQLite database (" + detail + ")");
    case SQLITE_CORRUPT:  // bad input, like a file that is no database at all (exit 2, not 4)
      return Status::InvalidArgument(msg + " (the file is damaged: truncated or overwritten)");
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      return Status::Unavailable(msg);
    case SQLITE_CONSTRAINT:
    case SQLITE_TOOBIG:
      return Status::InvalidArgument(msg);
    case SQLITE_MISUSE:
    case SQLITE_RANGE:
      return Status::Internal(msg);
    default:
      return Status::IOError(msg);
  }
}

}  // namespace cuco
