#include "store/candidate_store.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <limits>
#include <random>
#include <stdexcept>

#include "util/files.h"
#include "util/sha256.h"

namespace cuco {
namespace {

namespace fs = std::filesystem;

const char* const kStatuses[] = {"ok",         "compile_error", "runtime_error", "timeout",
                                 "wrong_result", "crashed",     "rejected",      "pending"};
const char* const kKinds[] = {"seed", "diff", "rewrite", "crossover", "knobs"};

// A candidate whose every field is a function of i, big enough (tens of KB of
// logs) that one insert spans many pages.
CandidateRecord MakeRecord(int64_t i) {
  CandidateRecord r;
  r.run_id = "run-" + std::to_string(i % 3);
  r.code = "// candidate " + std::to_string(i) + "\n__global__ void k" + std::to_string(i) +
           "(float* x) { x[threadIdx.x] *= " + std::to_string(i) + "; }\n";
  for (int64_t j = 0; j < (i % 7) * 200; ++j) r.code += "// pad " + std::to_string(i * j) + "\n";
  r.code_hash = Sha256Hex(r.code);
  r.parent_id = i > 1 ? i - 1 : 0;
  if (i % 4 == 0) r.extra_parent_ids = {i / 2, i / 3 + 1, 1LL << 40};
  r.diff_from_parent = "--- a\n+++ b\n@@ -1 +1 @@\n-x\n+y" + std::to_string(i) + "\n";
  r.mutation_kind = kKinds[i % 5];
  r.proposer = i % 2 ? "builtin" : "llm:model-" + std::to_string(i % 5);
  r.island = static_cast<int>(i % 4);
  r.generation = static_cast<int>(i / 10);
  r.status = kStatuses[i % 8];
  r.time_ms = r.status == "ok" ? 10.0 + static_cast<double>((i * 37) % 101) / 7.0 : -1;
  r.speedup = static_cast<double>(i) * 0.25;
  r.metrics_json = "{\"index\":" + std::to_string(i) + ",\"ranks\":[1,2,3,4]}";
  r.logs.reserve(static_cast<size_t>((i % 5 + 1) * 20000));
  for (int64_t j = 0; r.logs.size() < static_cast<size_t>((i % 5 + 1) * 20000); ++j) {
    r.logs += "line " + std::to_string(j) + " of candidate " + std::to_string(i) + "\n";
  }
  r.logs += std::string("nul:\0:bin:\xff\xfe:end", 16);
  r.feedback = "feedback for " + std::to_string(i);
  r.features_json = "{\"backend\":\"nccl\",\"placement\":" + std::to_string(i % 3) + "}";
  r.created_ms = 1700000000000 + i;
  r.finished_ms = 1700000000000 + i + 5;
  return r;
}

// What the store should hold for MakeRecord(i) inserted as id i.
CandidateRecord Expected(int64_t i) {
  CandidateRecord r = MakeRecord(i);
  r.id = i;
  return r;
}

std::string RawQuery(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr), SQLITE_OK);
  std::string out;
  sqlite3_stmt* st = nullptr;
  int rc = sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr);
  EXPECT_EQ(rc, SQLITE_OK) << sqlite3_errmsg(db);
  while (rc == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW) {
    if (!out.empty()) out += "\n";
    const unsigned char* t = sqlite3_column_text(st, 0);
    out += t ? reinterpret_cast<const char*>(t) : "";
  }
  sqlite3_finalize(st);
  sqlite3_close(db);
  return out;
}

class StoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() /
           ("cuco_store_test_" + std::to_string(::getpid()) + "_" + info->name());
    fs::remove_all(dir_);
    ASSERT_TRUE(MakeDirs(dir_).ok());
    path_ = (dir_ / "candidates.db").string();
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::unique_ptr<CandidateStore> OpenOrDie() {
    auto s = CandidateStore::Open(path_);
    EXPECT_TRUE(s.ok()) << s.status().ToString();
    return s.ok() ? std::move(*s) : nullptr;
  }

  fs::path dir_;
  std::string path_;
};

TEST_F(StoreTest, InsertGetRoundTripsEveryField) {
  auto store = OpenOrDie();
  ASSERT_TRUE(store);
  EXPECT_EQ(store->SchemaVersion(), CandidateStore::kSchemaVersion);
  for (int64_t i = 1; i <= 8; ++i) {
    CandidateRecord r = MakeRecord(i);
    r.id = 999;  // ignored
    auto id = store->Insert(r);
    ASSERT_TRUE(id.ok()) << id.status().ToString();
    EXPECT_EQ(*id, i);
  }
  for (int64_t i = 1; i <= 8; ++i) {
    auto got = store->Get(i);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    EXPECT_EQ(*got, Expected(i)) << "id " << i;
  }
  // Spot checks of the awkward values.
  auto got = store->Get(4);
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->extra_parent_ids, (std::vector<int64_t>{2, 2, 1LL << 40}));
  EXPECT_NE(got->logs.find(std::string("nul:\0:bin:\xff\xfe", 12)), std::string::npos);

  auto missing = store->Get(12345);
  EXPECT_EQ(missing.status().code(), Status::Code::kNotFound);
  EXPECT_NE(missing.status().message().find(path_), std::string::npos);
}

TEST_F(StoreTest, InsertFillsHashAndCreationTimeAndKeepsSpecialDoubles) {
  auto store = OpenOrDie();
  ASSERT_TRUE(store);
  CandidateRecord r;
  r.code = "int main() {}";
  r.status = "pending";
  r.time_ms = std::numeric_limits<double>::quiet_NaN();
  r.speedup = std::numeric_limits<double>::infinity();
  int64_t before = std::chrono::duration_cast<std::chrono::milliseconds>(
                       std::chrono::system_clock::now().time_since_epoch())
                       .count();
  auto id = store->Insert(r);
  ASSERT_TRUE(id.ok()) << id.status().ToString();
  auto got = store->Get(*id);
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->code_hash, Sha256Hex("int main() {}"));
  EXPECT_GE(got->created_ms, before);
  EXPECT_LE(got->created_ms, before + 60000);
  EXPECT_TRUE(std::isnan(got->time_ms));
  EXPECT_TRUE(std::isinf(got->speedup));
  EXPECT_TRUE(got->extra_parent_ids.empty());
  EXPECT_EQ(got->logs, "");
}

TEST_F(StoreTest, UpdatePendingToFinal) {
  auto store = OpenOrDie();
  ASSERT_TRUE(store);
  CandidateRecord r = MakeRecord(7);
  r.status = "pending";
  r.time_ms = -1;
  auto id = store->Insert(r);
  ASSERT_TRUE(id.ok());

  CandidateRecord done = MakeRecord(8);  // every field different
  done.id = *id;
  done.status = "ok";
  done.time_ms = 3.5;
  done.created_ms = 0;  // keeps the stored one
  ASSERT_TRUE(store->Update(done).ok());
  auto got = store->Get(*id);
  ASSERT_TRUE(got.ok());
  CandidateRecord want = done;
  want.created_ms = r.created_ms;
  EXPECT_EQ(*got, want);

  done.id = 4242;
  Status s = store->Update(done);
  EXPECT_EQ(s.code(), Status::Code::kNotFound);
  EXPECT_NE(s.message().find(path_), std::string::npos);
  EXPECT_EQ(*store->Count(), 1);
}

TEST_F(StoreTest, FindByCodeHashReturnsMostRecent) {
  auto store = OpenOrDie();
  ASSERT_TRUE(store);
  CandidateRecord a = MakeRecord(1), b = MakeRecord(2), c = MakeRecord(1);
  c.status = "timeout";
  ASSERT_TRUE(store->Insert(a).ok());
  ASSERT_TRUE(store->Insert(b).ok());
  ASSERT_TRUE(store->Insert(c).ok());
  auto found = store->FindByCodeHash(a.code_hash);
  ASSERT_TRUE(found.ok());
  ASSERT_TRUE(found->has_value());
  EXPECT_EQ((*found)->id, 3);
  EXPECT_EQ((*found)->status, "timeout");
  auto other = store->FindByCodeHash(b.code_hash);
  ASSERT_TRUE(other.ok() && other->has_value());
  EXPECT_EQ((*other)->id, 2);
  auto none = store->FindByCodeHash(Sha256Hex("nope"));
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value());
}

TEST_F(StoreTest, BestPicksFastestOkAndIgnoresFailures) {
  auto store = OpenOrDie();
  ASSERT_TRUE(store);
  EXPECT_FALSE(store->Best()->has_value());
  auto add = [&](const char* status, double t, int island) {
    CandidateRecord r = MakeRecord(1);
    r.status = status;
    r.time_ms = t;
    r.island = island;
    auto id = store->Insert(r);
    EXPECT_TRUE(id.ok());
    return *id;
  };
  add("wrong_result", 0.1, 0);    // faster but wrong
  add("crashed", 0.2, 1);
  add("ok", -1, 0);                // ok but never timed
  int64_t slow = add("ok", 9.0, 0);
  int64_t fast = add("ok", 2.0, 1);
  add("ok", 2.0, 1);               // tie: the older one wins
  int64_t mid = add("ok", 4.0, 0);
  add("timeout", 0.0, 2);
  add("pending", 1.0, 2);

  auto best = store->Best();
  ASSERT_TRUE(best.ok() && best->has_value());
  EXPECT_EQ((*best)->id, fast);
  auto best0 = store->Best(0);
  ASSERT_TRUE(best0.ok() && best0->has_value());
  EXPECT_EQ((*best0)->id, mid);
  EXPECT_NE((*best0)->id, slow);
  auto best2 = store->Best(2);
  ASSERT_TRUE(best2.ok());
  EXPECT_FALSE(best2->has_value());
}

TEST_F(StoreTest, CountAndCountByStatus) {
  auto store = OpenOrDie();
  ASSERT_TRUE(store);
  EXPECT_EQ(*store->Count(), 0);
  EXPECT_TRUE(store->CountByStatus()->empty());
  for (int64_t i = 1; i <= 20; ++i) ASSERT_TRUE(store->Insert(MakeRecord(i)).ok());
  // i % 8: 0 ok (8,16), 1 compile_error (1,9,17), 2 runtime_error (2,10,18), 3 timeout (3,11,19),
  // 4 wrong_result (4,12,20), 5 crashed (5,13), 6 rejected (6,14), 7 pending (7,15).
  std::map<std::string, int64_t> want = {{"ok", 2},      {"compile_error", 3}, {"runtime_error", 3},
                                         {"timeout", 3}, {"wrong_result", 3},  {"crashed", 2},
                                         {"rejected", 2}, {"pending", 2}};
  auto by = store->CountByStatus();
  ASSERT_TRUE(by.ok());
  EXPECT_EQ(*by, want);
  EXPECT_EQ(*store->Count(), 20);
  EXPECT_EQ(*store->Count("timeout"), 3);
  EXPECT_EQ(*store->Count("no_such_status"), 0);
  EXPECT_EQ(*store->MaxId(), 20);
}

std::vector<int64_t> Ids(const Result<std::vector<CandidateRecord>>& rows) {
  EXPECT_TRUE(rows.ok()) << rows.status().ToString();
  std::vector<int64_t> ids;
  if (rows.ok()) {
    for (const auto& r : *rows) ids.push_back(r.id);
  }
  return ids;
}

TEST_F(StoreTest, ListFilters) {
  auto store = OpenOrDie();
  ASSERT_TRUE(store);
  for (int64_t i = 1; i <= 40; ++i) ASSERT_TRUE(store->Insert(MakeRecord(i)).ok());

  ListQuery all;
  auto rows = store->List(all);
  ASSERT_TRUE(rows.ok());
  ASSERT_EQ(rows->size(), 40u);
  for (int64_t i = 1; i <= 40; ++i) EXPECT_EQ((*rows)[i - 1], Expected(i));

  ListQuery q;
  q.status = "ok";  // i % 8 == 0
  EXPECT_EQ(Ids(store->List(q)), (std::vector<int64_t>{8, 16, 24, 32, 40}));

  q = {};
  q.island = 1;
  q.min_generation = 1;  // i >= 10
  q.max_generation = 2;  // i <= 29
  EXPECT_EQ(Ids(store->List(q)), (std::vector<int64_t>{13, 17, 21, 25, 29}));

  q.order = ListQuery::Order::kIdDesc;
  q.limit = 2;
  EXPECT_EQ(Ids(store->List(q)), (std::vector<int64_t>{29, 25}));

  q = {};
  q.after_id = 37;
  EXPECT_EQ(Ids(store->List(q)), (std::vector<int64_t>{38, 39, 40}));

  q = {};
  q.run_id = "run-0";
  q.limit = 3;
  EXPECT_EQ(Ids(store->List(q)), (std::vector<int64_t>{3, 6, 9}));

  // Fastest first, ok only: times 10 + (37 i % 101) / 7 for i = 8, 16, 24, 32, 40.
  q = {};
  q.order = ListQuery::Order::kFastest;
  std::vector<int64_t> fastest = Ids(store->List(q));
  std::vector<int64_t> want = {8, 16, 24, 32, 40};
  std::sort(want.begin(), want.end(), [](int64_t a, int64_t b) {
    return MakeRecord(a).time_ms < MakeRecord(b).time_ms;
  });
  EXPECT_EQ(fastest, want);
  q.limit = 1;
  q.island = 0;
  EXPECT_EQ(Ids(store->List(q)), (std::vector<int64_t>{(*store->Best(0))->id}));

  q = {};
  q.summary_only = true;
  q.status = "crashed";
  auto summary = store->List(q);
  ASSERT_TRUE(summary.ok());
  ASSERT_EQ(summary->size(), 5u);
  for (const auto& r : *summary) {
    CandidateRecord want_summary = Expected(r.id);
    want_summary.code.clear();
    want_summary.diff_from_parent.clear();
    want_summary.logs.clear();
    EXPECT_EQ(r, want_summary);
  }

  q = {};
  q.status = "ok";
  q.island = 3;
  EXPECT_TRUE(Ids(store->List(q)).empty());
}

TEST_F(StoreTest, ReopenPersists) {
  {
    auto store = OpenOrDie();
    ASSERT_TRUE(store);
    for (int64_t i = 1; i <= 5; ++i) ASSERT_TRUE(store->Insert(MakeRecord(i)).ok());
    ASSERT_TRUE(store->PutMeta("config", "{\"islands\":4}").ok());
    ASSERT_TRUE(store->PutMeta("cursor", "3").ok());
    ASSERT_TRUE(store->PutMeta("cursor", "5").ok());  // replaces
  }
  auto store = OpenOrDie();
  ASSERT_TRUE(store);
  EXPECT_EQ(store->SchemaVersion(), CandidateStore::kSchemaVersion);
  EXPECT_EQ(*store->Count(), 5);
  for (int64_t i = 1; i <= 5; ++i) EXPECT_EQ(*store->Get(i), Expected(i));
  EXPECT_EQ(store->GetMeta("config")->value_or("?"), "{\"islands\":4}");
  EXPECT_EQ(store->GetMeta("cursor")->value_or("?"), "5");
  EXPECT_FALSE(store->GetMeta("absent")->has_value());
  // New ids continue after the old ones.
  EXPECT_EQ(*store->Insert(MakeRecord(6)), 6);
  EXPECT_TRUE(store->CheckIntegrity().ok());
  EXPECT_EQ(RawQuery(path_, "PRAGMA journal_mode"), "wal");
  EXPECT_EQ(RawQuery(path_, "PRAGMA user_version"), std::to_string(CandidateStore::kSchemaVersion));
}

TEST_F(StoreTest, ReadOnlyViewerSeesTheWritersCandidatesAndNeverWrites) {
  auto writer = OpenOrDie();
  ASSERT_TRUE(writer);
  ASSERT_TRUE(writer->Insert(MakeRecord(1)).ok());
  auto viewer = CandidateStore::OpenReadOnly(path_);
  ASSERT_TRUE(viewer.ok()) << viewer.status().ToString();
  EXPECT_EQ(*(*viewer)->Count(), 1);
  ASSERT_TRUE(writer->Insert(MakeRecord(2)).ok());  // the writer goes on while the viewer is open
  EXPECT_EQ(*(*viewer)->Count(), 2);
  EXPECT_EQ(*(*viewer)->Get(2), Expected(2));
  EXPECT_FALSE((*viewer)->Insert(MakeRecord(3)).ok());
  EXPECT_FALSE((*viewer)->PutMeta("k", "v").ok());
  EXPECT_EQ(*writer->Count(), 2);
  // It never creates a store, nor takes a file that is not one.
  const std::string absent = (dir_ / "absent.db").string();
  auto missing = CandidateStore::OpenReadOnly(absent);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find(absent), std::string::npos) << missing.status().ToString();
  EXPECT_FALSE(fs::exists(absent));
  const std::string empty = (dir_ / "empty.db").string();
  ASSERT_TRUE(WriteFileAtomic(empty, "").ok());
  auto not_store = CandidateStore::OpenReadOnly(empty);
  ASSERT_FALSE(not_store.ok());
  EXPECT_NE(not_store.status().message().find("not a cuco candidate store"), std::string::npos);
}

TEST_F(StoreTest, NewerSchemaVersionIsRefused) {
  { ASSERT_TRUE(OpenOrDie()); }
  RawQuery(path_, "PRAGMA user_version = 99");
  auto store = CandidateStore::Open(path_);
  ASSERT_FALSE(store.ok());
  const std::string& msg = store.status().message();
  EXPECT_NE(msg.find(path_), std::string::npos) << msg;
  EXPECT_NE(msg.find("99"), std::string::npos) << msg;
  EXPECT_NE(msg.find("newer"), std::string::npos) << msg;
}

TEST_F(StoreTest, NonSqliteFileIsRefusedAndLeftAlone) {
  std::string junk;
  for (int i = 0; i < 300; ++i) junk += "this is a workload.toml, not a database\n";
  ASSERT_TRUE(WriteFileAtomic(path_, junk).ok());
  auto store = CandidateStore::Open(path_);
  ASSERT_FALSE(store.ok());
  EXPECT_NE(store.status().message().find(path_), std::string::npos) << store.status().ToString();
  EXPECT_NE(store.status().message().find("not a SQLite database"), std::string::npos)
      << store.status().ToString();
  EXPECT_EQ(*ReadFile(path_), junk);
}

// A store cut short (a disk filled, a copy interrupted) is bad input naming the file, not an
// internal error: whichever call first meets the damage says so.
TEST_F(StoreTest, TruncatedFileIsBadInputNamingTheFile) {
  {
    auto store = OpenOrDie();
    ASSERT_NE(store, nullptr);
    for (int64_t i = 1; i <= 30; ++i) ASSERT_TRUE(store->Insert(MakeRecord(i)).ok());
  }
  ASSERT_EQ(RawQuery(path_, "PRAGMA journal_mode"), "wal");
  ASSERT_FALSE(fs::exists(path_ + "-wal") && fs::file_size(path_ + "-wal") > 0);  // all in the main file
  fs::resize_file(path_, fs::file_size(path_) / 2);
  for (bool read_only : {true, false}) {
    auto store = read_only ? CandidateStore::OpenReadOnly(path_) : CandidateStore::Open(path_);
    Status s = store.status();
    if (store.ok()) {
      ListQuery q;
      auto rows = (*store)->List(q);
      s = rows.status();
    }
    ASSERT_FALSE(s.ok()) << (read_only ? "read-only" : "read-write");
    EXPECT_EQ(s.code(), Status::Code::kInvalidArgument) << s.ToString();
    EXPECT_EQ(s.message().rfind(path_ + ": ", 0), 0u) << s.ToString();
    EXPECT_NE(s.message().find("damaged"), std::string::npos) << s.ToString();
  }
}

TEST_F(StoreTest, OtherSqliteDatabaseIsRefused) {
  RawQuery(path_, "CREATE TABLE other (x)");
  auto store = CandidateStore::Open(path_);
  ASSERT_FALSE(store.ok());
  EXPECT_NE(store.status().message().find(path_), std::string::npos) << store.status().ToString();
  EXPECT_NE(store.status().message().find("not a cuco candidate store"), std::string::npos)
      << store.status().ToString();
}

TEST_F(StoreTest, EmptyFileBecomesAStoreAndMissingDirectoryIsAnError) {
  ASSERT_TRUE(WriteFileAtomic(path_, "").ok());
  auto store = CandidateStore::Open(path_);
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  EXPECT_EQ((*store)->SchemaVersion(), CandidateStore::kSchemaVersion);

  std::string bad = (dir_ / "no" / "such" / "dir" / "c.db").string();
  auto missing = CandidateStore::Open(bad);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find(bad), std::string::npos) << missing.status().ToString();
}

TEST_F(StoreTest, TransactionCommitsOrRollsBackEverything) {
  auto store = OpenOrDie();
  ASSERT_TRUE(store);
  Status s = store->Transaction([](CandidateStore& st) {
    CUCO_RETURN_IF_ERROR(st.Insert(MakeRecord(1)).status());
    CUCO_RETURN_IF_ERROR(st.PutMeta("cursor", "1"));
    return Status::Internal("boom");
  });
  EXPECT_EQ(s.code(), Status::Code::kInternal);
  EXPECT_EQ(s.message(), "boom");
  EXPECT_EQ(*store->Count(), 0);
  EXPECT_FALSE(store->GetMeta("cursor")->has_value());

  EXPECT_THROW(store->Transaction([](CandidateStore& st) -> Status {
    (void)st.Insert(MakeRecord(1));
    throw std::runtime_error("thrown");
  }),
               std::runtime_error);
  EXPECT_EQ(*store->Count(), 0);

  // Nested: the inner failure undoes only the inner writes.
  s = store->Transaction([](CandidateStore& st) {
    CUCO_RETURN_IF_ERROR(st.Insert(MakeRecord(1)).status());
    Status inner = st.Transaction([](CandidateStore& st2) {
      CUCO_RETURN_IF_ERROR(st2.Insert(MakeRecord(2)).status());
      return Status::Internal("inner");
    });
    EXPECT_EQ(inner.message(), "inner");
    return st.PutMeta("cursor", "1");
  });
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(*store->Count(), 1);
  EXPECT_EQ(store->Get(1)->code, MakeRecord(1).code);
  EXPECT_EQ(store->GetMeta("cursor")->value_or(""), "1");

  // Still usable afterwards, and a plain commit works.
  s = store->Transaction([](CandidateStore& st) {
    CUCO_RETURN_IF_ERROR(st.Insert(MakeRecord(2)).status());
    return st.PutMeta("cursor", "2");
  });
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(*store->Count(), 2);
  EXPECT_TRUE(store->CheckIntegrity().ok());
}

TEST_F(StoreTest, ReaderIsNotBlockedByOpenWriteTransaction) {
  auto writer = OpenOrDie();
  ASSERT_TRUE(writer);
  ASSERT_TRUE(writer->Insert(MakeRecord(1)).ok());
  auto started = std::chrono::steady_clock::now();
  Status s = writer->Transaction([&](CandidateStore& st) {
    CUCO_RETURN_IF_ERROR(st.Insert(MakeRecord(2)).status());
    // Another connection, opened and read while this one holds the write lock,
    // sees the last committed state at once.
    auto reader = CandidateStore::Open(path_);
    if (!reader.ok()) return reader.status();
    EXPECT_EQ(*(*reader)->Count(), 1);
    EXPECT_EQ(*(*reader)->Get(1), Expected(1));
    EXPECT_EQ((*reader)->Get(2).status().code(), Status::Code::kNotFound);
    return Status::Ok();
  });
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(5));
  auto reader = OpenOrDie();
  EXPECT_EQ(*reader->Count(), 2);
}

// Reads exactly n bytes unless the pipe closes first.
bool ReadFull(int fd, void* buf, size_t n) {
  auto* p = static_cast<char*>(buf);
  while (n > 0) {
    ssize_t got = ::read(fd, p, n);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return false;
    p += got;
    n -= static_cast<size_t>(got);
  }
  return true;
}

// Checks that every row is exactly what the writer wrote for its id, ids are
// 1..n without gaps, and SQLite finds the file sound. Returns n.
int64_t ExpectCompleteRows(const std::string& path) {
  auto store = CandidateStore::Open(path);
  EXPECT_TRUE(store.ok()) << store.status().ToString();
  if (!store.ok()) return -1;
  EXPECT_TRUE((*store)->CheckIntegrity().ok());
  auto rows = (*store)->List(ListQuery{});
  EXPECT_TRUE(rows.ok()) << rows.status().ToString();
  if (!rows.ok()) return -1;
  for (size_t k = 0; k < rows->size(); ++k) {
    const CandidateRecord& r = (*rows)[k];
    EXPECT_EQ(r.id, static_cast<int64_t>(k + 1));
    EXPECT_EQ(r, Expected(r.id)) << "row " << r.id << " differs from what the writer wrote";
  }
  EXPECT_EQ(RawQuery(path, "PRAGMA integrity_check"), "ok");
  EXPECT_EQ(RawQuery(path, "SELECT count(*) FROM candidates"), std::to_string(rows->size()));
  return static_cast<int64_t>(rows->size());
}

// Forks a writer that appends candidates (in pairs inside Transaction() with a
// cursor in meta when `pairs`) and reports each committed id through a pipe;
// SIGKILLs it after `reports` reports plus `delay_us`, while it is writing the next ones.
void RunAndKillWriter(const std::string& path, bool pairs, int reports, int delay_us) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::close(fds[0]);
    auto store = CandidateStore::Open(path);
    if (!store.ok()) ::_exit(2);
    CandidateStore& st = **store;
    int64_t next = *st.MaxId() + 1;
    while (true) {
      Status s;
      if (pairs) {
        s = st.Transaction([&](CandidateStore& t) {
          for (int64_t i = next; i < next + 2; ++i) {
            Result<int64_t> id = t.Insert(MakeRecord(i));
            if (!id.ok()) return id.status();
            if (*id != i) return Status::Internal("unexpected id");
          }
          return t.PutMeta("cursor", std::to_string(next + 1));
        });
        next += 2;
      } else {
        Result<int64_t> id = st.Insert(MakeRecord(next));
        s = id.ok() && *id != next ? Status::Internal("unexpected id") : id.status();
        next += 1;
      }
      if (!s.ok()) ::_exit(3);
      int64_t done = next - 1;
      if (::write(fds[1], &done, sizeof done) != sizeof done) ::_exit(4);
    }
  }
  ::close(fds[1]);
  int64_t last = 0;
  for (int k = 0; k < reports; ++k) {
    if (!ReadFull(fds[0], &last, sizeof last)) break;
  }
  if (delay_us > 0) ::usleep(static_cast<useconds_t>(delay_us));
  ::kill(pid, SIGKILL);
  int wstatus = 0;
  ASSERT_EQ(::waitpid(pid, &wstatus, 0), pid);
  // The writer may have run ahead of our reading; take its last report.
  for (int64_t more = 0; ReadFull(fds[0], &more, sizeof more);) last = more;
  ::close(fds[0]);
  ASSERT_TRUE(WIFSIGNALED(wstatus) && WTERMSIG(wstatus) == SIGKILL)
      << "writer exited early with status " << (WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : -1);
  ASSERT_GT(last, 0);

  // Everything reported is there, nothing is half there.
  int64_t n = ExpectCompleteRows(path);
  EXPECT_GE(n, last);
  EXPECT_LE(n, last + (pairs ? 2 : 1)) << "only the write in flight may be unreported";
  if (pairs) {
    EXPECT_EQ(n % 2, 0) << "half a transaction survived";
    auto store = CandidateStore::Open(path);
    ASSERT_TRUE(store.ok());
    EXPECT_EQ((*store)->GetMeta("cursor")->value_or("none"), std::to_string(n));
  }
}

// Many rounds on one file, each killed at a different moment (fixed seed), each
// resuming where the last left off after SQLite recovered the file.
void KillRounds(const std::string& path, bool pairs) {
  std::mt19937 rng(pairs ? 7 : 3);
  for (int round = 0; round < 16; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    int reports = std::uniform_int_distribution<int>(2, 12)(rng);
    int delay_us = std::uniform_int_distribution<int>(0, 3000)(rng);
    RunAndKillWriter(path, pairs, reports, delay_us);
    if (::testing::Test::HasFailure()) return;
  }
}

TEST_F(StoreTest, KillSafetySingleInserts) { KillRounds(path_, /*pairs=*/false); }

TEST_F(StoreTest, KillSafetyTransactions) { KillRounds(path_, /*pairs=*/true); }

TEST_F(StoreTest, ConcurrentReaderWhileWriterWrites) {
  { ASSERT_TRUE(OpenOrDie()); }  // create before the processes race
  constexpr int64_t kTotal = 200;
  pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    auto store = CandidateStore::Open(path_);
    if (!store.ok()) ::_exit(2);
    for (int64_t i = 1; i <= kTotal; ++i) {
      Status s = (*store)->Transaction([&](CandidateStore& t) {
        Result<int64_t> id = t.Insert(MakeRecord(i));
        if (!id.ok()) return id.status();
        return t.PutMeta("cursor", std::to_string(i));
      });
      if (!s.ok()) ::_exit(3);
    }
    ::_exit(0);
  }

  auto reader = OpenOrDie();
  ASSERT_TRUE(reader);
  int64_t seen = 0, polls = 0, distinct_counts = 0;
  int wstatus = 0;
  bool writer_done = false;
  while (!writer_done) {
    writer_done = ::waitpid(pid, &wstatus, WNOHANG) == pid;
    ++polls;
    auto count = reader->Count();
    ASSERT_TRUE(count.ok()) << count.status().ToString();
    ASSERT_GE(*count, seen) << "count went backwards";
    if (*count != seen) ++distinct_counts;
    ListQuery q;
    q.after_id = seen;
    q.summary_only = true;
    auto rows = reader->List(q);
    ASSERT_TRUE(rows.ok()) << rows.status().ToString();
    for (const auto& r : *rows) {
      ASSERT_EQ(r.id, seen + 1);
      EXPECT_EQ(r.code_hash, MakeRecord(r.id).code_hash);
      EXPECT_EQ(r.metrics_json, MakeRecord(r.id).metrics_json);
      seen = r.id;
    }
    if (seen > 0) {
      auto full = reader->Get(seen);
      ASSERT_TRUE(full.ok()) << full.status().ToString();
      EXPECT_EQ(*full, Expected(seen));
      auto best = reader->Best();
      ASSERT_TRUE(best.ok()) << best.status().ToString();
      auto cursor = reader->GetMeta("cursor");
      ASSERT_TRUE(cursor.ok()) << cursor.status().ToString();
      EXPECT_GE(std::stoll(cursor->value_or("0")), seen);
    }
  }
  ASSERT_TRUE(WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0)
      << "writer failed with status " << (WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : -1);
  EXPECT_EQ(*reader->Count(), kTotal);
  EXPECT_EQ(ExpectCompleteRows(path_), kTotal);
  std::cout << "reader polled " << polls << " times and saw " << distinct_counts
            << " distinct counts\n";
}

}  // namespace
}  // namespace cuco
