#include "report/report_test_run.h"

#include <cstdlib>
#include <stdexcept>

#include "store/candidate_store.h"

namespace cuco::report_test {

namespace {

const char* const kSeedCode =
    "#include <x>\n// EVOLVE-BLOCK-START\nconstexpr int kChunks = 1;  // cuco:knob chunks\n// EVOLVE-BLOCK-END\n";

CandidateRecord Rec(int64_t parent, int island, int gen, const std::string& status, double ms, int chunks,
                    const std::string& placement, const std::string& reason) {
  CandidateRecord r;
  r.parent_id = parent;
  r.island = island;
  r.generation = gen;
  r.status = status;
  r.time_ms = ms;
  r.mutation_kind = parent ? "knobs" : "seed";
  r.proposer = "builtin";
  r.code = std::string(kSeedCode).replace(std::string(kSeedCode).find("= 1;"), 4, "= " + std::to_string(chunks) + ";");
  r.features_json = "{\"chunks\": " + std::to_string(chunks) + ", \"placement\": \"" + placement + "\"}";
  r.metrics_json = "{\"reason\": \"" + reason + "\", \"timing\": {\"median_ms\": " + std::to_string(ms) + "}}";
  r.logs = "build ok";
  r.created_ms = 1000 + 100 * gen;
  r.finished_ms = r.created_ms + 50;
  return r;
}

}  // namespace

TestRun::TestRun() {
  char tmpl[] = "/tmp/cuco-report-test-XXXXXX";
  if (!mkdtemp(tmpl)) throw std::runtime_error("mkdtemp");
  dir_ = tmpl;
  auto store = CandidateStore::Open(dir_ + "/cuco.db");
  if (!store.ok()) throw std::runtime_error(store.status().message());
  auto& s = **store;
  auto add = [&](const CandidateRecord& r) {
    auto id = s.Insert(r);
    if (!id.ok()) throw std::runtime_error(id.status().message());
  };
  add(Rec(0, 0, 0, "ok", 10.0, 1, "after", ""));                                            // 1 seed
  add(Rec(1, 0, 1, "ok", 8.0, 2, "after", ""));                                             // 2
  add(Rec(1, 1, 1, "wrong_result", -1, 3, "after", "verify: rel L2 0.71 > 0.0001 on rank 1"));  // 3
  add(Rec(2, 0, 2, "ok", 6.0, 4, "interleaved", ""));                                       // 4
  add(Rec(2, 1, 2, "wrong_result", -1, 3, "interleaved", "verify: rel L2 0.25 > 0.0001 on rank 0"));  // 5
  CandidateRecord x = Rec(4, 1, 3, "ok", 7.0, 2, "interleaved", "");                        // 6 crossover of 4 and 2
  x.mutation_kind = "crossover";
  x.extra_parent_ids = {2};
  add(x);
  CandidateRecord bad = Rec(4, 0, 3, "compile_error", -1, 16, "interleaved",
                            "compile: </script><script>alert(1)</script> static assertion failed");  // 7
  bad.code += "// </script><img src=x onerror=alert(2)>\n";
  bad.logs = "error: </script><script>window.pwned=1</script> <b>bold</b>";
  add(bad);
  add(Rec(6, 1, 4, "pending", -1, 8, "after", ""));  // 8
  if (Status st = s.PutMeta("search.state", R"({"version":1,"migrations":[[2,0,1,4]],"wall_s":1.5,"dollars":0})");
      !st.ok())
    throw std::runtime_error(st.message());
  (void)s.PutMeta("search.workload", "/w/cpu_exchange");
  (void)s.PutMeta("search.gain_check",
                  R"({"best_id":4,"reference_id":1,"confirmed":false,"line":"re-timed against the seed in 3 alternating round(s): 1.02x (per round 0.97x-1.06x), faster in 2 of 3: NOT a confirmed gain"})");
}

TestRun::~TestRun() { std::filesystem::remove_all(dir_); }

}  // namespace cuco::report_test
