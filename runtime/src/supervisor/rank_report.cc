#include "supervisor/rank_report.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cmath>
#include <cstring>

namespace cuco::supervisor {
namespace {

std::string Hex(uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%016" PRIx64, v);
  return buf;
}

}  // namespace

void WriteRankMetrics(const Args& args, const SupervisorIdentity& id, const RankReport& r, const RankBackend* be,
                      const std::optional<SupervisorError>& error, int error_rank, int64_t sample_rows) {
  Json j;
  j.begin_object();
  j.kv("harness", id.version).kv("nonce", id.nonce).kv("nonce_state", id.nonce.empty() ? "absent" : "present");
  j.kv("status", error ? "error" : "ok");
  if (error) {
    std::string msg = error->message;
    if (error_rank != r.rank) msg = "rank " + std::to_string(error_rank) + ": " + msg;
    j.kv("error", msg).kv("error_kind", error->kind).kv("exit_code", error->exit_code);
  } else {
    j.key("error").null().key("error_kind").null().kv("exit_code", static_cast<int>(protocol::kExitOk));
  }
  j.kv("workload", id.workload).kv("stage", args.stage).kv("checked", !args.timing_only);
  j.kv("rank", r.rank).kv("world_size", args.world).kv("local_rank", r.rank).kv("local_world_size", args.world);
  j.key("launch").begin_object().kv("source", "supervisor").kv("sandbox", (args.sandbox_argv.empty() ? std::string("none (unsandboxed: --unsafe-no-sandbox)") : args.sandbox_argv.front())).end_object();
  j.kv("sandboxed", !args.sandbox_argv.empty());
  if (be != nullptr) {
    j.kv("device", be->DeviceName());
    be->DescribeDevice(j);
  }
  j.key("sizes").begin_object();
  for (const auto& [k, v] : args.sizes) j.kv(k, static_cast<int64_t>(v));
  j.end_object();
  j.key("settings").begin_object();
  j.kv("warmup", args.warmup).kv("iters", args.iters).kv("verify_runs", args.verify_runs);
  j.kv("timed_seconds", args.timed_seconds).kv("max_iters", args.max_iters);
  j.kv("verify_fraction", args.verify_fraction).kv("sample_rows", sample_rows);
  j.kv("input_seed_fixed", args.has_input_seed).kv("timing_only", args.timing_only);
  if (args.has_input_seed) j.kv("input_seed", Hex(args.input_seed));
  else j.key("input_seed").null();
  j.end_object();
  j.key("input_seeds").begin_array();
  for (const auto& s : r.seeds) j.begin_object().kv("iteration", s.iteration).kv("phase", s.phase).kv("seed", Hex(s.seed)).end_object();
  j.end_array();
  j.key("checks").begin_array();
  for (const auto& c : r.checks) {
    const int64_t nonfinite = std::max(c.r.nonfinite, c.scan.nonfinite);
    j.begin_object();
    j.kv("iteration", c.iteration).kv("kind", c.kind).kv("input_seed", Hex(c.seed));
    j.kv("rows_checked", c.r.rows).kv("elements", c.r.elements);
    j.kv("rel_l2", nonfinite > 0 ? NAN : c.r.rel_l2).kv("max_abs", nonfinite > 0 ? NAN : c.r.max_abs);
    j.kv("rel_l2_finite", c.r.rel_l2).kv("max_abs_finite", c.r.max_abs);
    j.kv("nonfinite", nonfinite).kv("nonfinite_checked", c.r.nonfinite);
    j.kv("poison_left", c.scan.poison_left).kv("poison_expected", c.scan.poison_expected);
    j.kv("left_alone", c.r.left_alone);
    if (c.r.own_state_inputs) j.kv("inputs", "own_state");
    j.kv("output_elements", c.scan.elements);
    j.kv("time_ms", c.time_ms).kv("check_s", c.check_s);
    j.end_object();
  }
  j.end_array();
  int64_t late_total = 0;
  j.key("late_writes").begin_array();
  for (const auto& l : r.late) {
    late_total += l.elements;
    j.begin_object().kv("after", l.phase).kv("iteration", l.iteration).kv("elements", l.elements).end_object();
  }
  j.end_array();
  j.kv("late_writes_total", late_total);
  j.key("timeline").begin_array();
  for (const auto& m : r.timeline) j.begin_object().kv("what", m.what).kv("at_s", m.at_s).end_object();
  j.end_array();
  if (r.have_agreement) {
    j.kv("agreement_max_abs", r.agreement.max_abs).kv("agreement_mismatches", r.agreement.mismatches);
    j.kv("agreement_elements", r.agreement.elements);
  }
  if (args.stage == "bench") {
    const double before = Percentile(r.null_before, 0.5), after = Percentile(r.null_after, 0.5);
    double overhead = std::isnan(after) ? before : std::isnan(before) ? after : std::min(before, after);
    if (std::isnan(overhead)) overhead = 0;
    // A window no longer than the supervisor's own cost (noise, on a part far faster than it) reads
    // as the timer's resolution: a time is never zero or negative.
    std::vector<double> times;
    for (double ms : r.raw_ms) times.push_back(std::max(ms - overhead, protocol::kTimerResolutionMs));
    j.key("timing").begin_object();
    j.kv("complete", r.bench_done).kv("iters", static_cast<int64_t>(times.size()));
    j.kv("method", be != nullptr ? be->TimingMethod() : std::string("none"));
    j.array("times_ms", times);
    j.kv("median_ms", Percentile(times, 0.5)).kv("p10_ms", Percentile(times, 0.1)).kv("p90_ms", Percentile(times, 0.9));
    j.kv("min_ms", times.empty() ? NAN : *std::min_element(times.begin(), times.end()));
    j.kv("max_ms", times.empty() ? NAN : *std::max_element(times.begin(), times.end()));
    j.array("raw_times_ms", r.raw_ms);
    j.kv("raw_median_ms", Percentile(r.raw_ms, 0.5));
    // The timed loop's count, sized after the warm-up when the settings' timed_seconds > 0
    // (timed_loop.h): every rank's warm-up windows are here to recompute it.
    j.array("warmup_ms", r.warmup_ms).kv("sized_iters", r.sized_iters);
    j.kv("overhead_ms", overhead);
    j.array("null_before_ms", r.null_before).array("null_after_ms", r.null_after);
    // The device-idle tail of the in-process harness has no meaning here: work after the window
    // cannot change the snapshot, and writes it makes are late writes.
    j.kv("tail_median_ms", 0.0);
    j.array("verified_iterations", r.verified);
    j.array("scan_poison_left", r.scan_poison).array("scan_nonfinite", r.scan_nonfinite);
    j.kv("scan_elements", r.scan_elements).kv("scan_poison_expected", r.scan_poison_expected);
    j.end_object();
  } else {
    j.key("timing").null();
  }
  j.end_object();
  std::string text = j.text() + "\n";
  ::mkdir(args.metrics_dir.c_str(), 0755);
  const std::string final_path = args.metrics_dir + "/rank" + std::to_string(r.rank) + ".json";
  const std::string tmp = args.metrics_dir + "/.rank" + std::to_string(r.rank) + ".json.tmp." + std::to_string(::getpid());
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    Log("cannot write %s: %s", tmp.c_str(), std::strerror(errno));
    return;
  }
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
  ::fsync(fd);
  ::close(fd);
  if (done != text.size() || ::rename(tmp.c_str(), final_path.c_str()) != 0)
    Log("cannot write %s: %s", final_path.c_str(), std::strerror(errno));
}

}  // namespace cuco::supervisor
