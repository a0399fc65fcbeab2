// A small RAII wrapper over the SQLite C API, private to src/store/.
// Errors are Status values whose messages name the database path.
// Not thread-safe: one SqliteDb (connection) per thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "util/status.h"

struct sqlite3;
struct sqlite3_stmt;

namespace cuco {

class SqliteDb;

// One prepared statement; finalized on destruction. Values are only ever bound,
// never spliced into SQL text.
class SqliteStmt {
 public:
  SqliteStmt(SqliteStmt&& other) noexcept;
  SqliteStmt& operator=(SqliteStmt&& other) noexcept;
  SqliteStmt(const SqliteStmt&) = delete;
  SqliteStmt& operator=(const SqliteStmt&) = delete;
  ~SqliteStmt();

  // Parameters are 1-based. A failed bind (a bug) is reported by the next Step().
  SqliteStmt& Bind(int index, int64_t value);
  SqliteStmt& Bind(int index, double value);  // NaN is stored as NULL
  SqliteStmt& Bind(int index, std::string_view value);
  SqliteStmt& BindNull(int index);

  // Advances: true when a row is ready to read, false when the statement is done.
  Result<bool> Step();
  // Runs a statement that returns no rows to completion.
  Status Run();

  // Columns are 0-based, valid after Step() returned true.
  bool IsNull(int col) const;
  int64_t Int64(int col) const;
  double Double(int col) const;     // NULL reads as NaN
  std::string Text(int col) const;  // byte-exact, embedded NULs kept

 private:
  friend class SqliteDb;
  SqliteStmt(const SqliteDb* db, sqlite3_stmt* stmt) : db_(db), stmt_(stmt) {}
  void NoteBind(int rc, int index);

  const SqliteDb* db_ = nullptr;
  sqlite3_stmt* stmt_ = nullptr;
  int bind_error_ = 0;  // first failing sqlite3_bind_* code
  int bind_index_ = 0;
};

class SqliteDb {
 public:
  // Opens (creating if missing) a database file read-write, with a busy timeout.
  // read_only: never writes the file (SQLITE_OPEN_READONLY; a WAL file is still read alongside its
  // writer) and never creates it.
  static Result<std::unique_ptr<SqliteDb>> Open(const std::string& path, int busy_timeout_ms, bool read_only = false);
  ~SqliteDb();
  SqliteDb(const SqliteDb&) = delete;
  SqliteDb& operator=(const SqliteDb&) = delete;

  const std::string& path() const { return path_; }

  // Runs fixed SQL text with no parameters (schema scripts, BEGIN/COMMIT).
  Status Exec(const std::string& sql);
  Result<SqliteStmt> Prepare(std::string_view sql) const;
  // Runs a single-row, single-column query such as "PRAGMA user_version".
  Result<int64_t> QueryInt(std::string_view sql) const;
  Result<std::string> QueryText(std::string_view sql) const;

  bool InTransaction() const;  // inside BEGIN ... COMMIT
  int64_t LastInsertRowid() const;
  int64_t Changes() const;  // rows changed by the last statement

  // "<path>: <what>: <sqlite message>", with a Status code matching the SQLite result code: a file
  // that is no database, or a damaged one (SQLITE_NOTADB, SQLITE_CORRUPT), is kInvalidArgument.
  Status Error(int rc, const std::string& what) const;

 private:
  SqliteDb(std::string path, sqlite3* db) : path_(std::move(path)), db_(db) {}
  std::string path_;
  sqlite3* db_ = nullptr;
};

}  // namespace cuco
