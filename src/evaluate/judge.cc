#include "evaluate/judge.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>

#include <fmt/format.h>

#include "evaluate/timing_precision.h"
#include "launch/interrupts.h"
#include "util/files.h"
#include "util/source_text.h"
#include "util/text.h"

#include <cuco/protocol.h>

namespace cuco {

long long PoisonAllowance(double expected) {
  if (!(expected > 0)) return 0;  // floating outputs: a NaN poison is never an honest value
  if (expected > 1e15) return std::numeric_limits<long long>::max();
  return static_cast<long long>(std::ceil(expected + 8 * std::sqrt(expected) + 16));
}

double TailLimitMs(double median_ms) { return std::max(0.05, 0.1 * median_ms); }

StageVerdict JudgeJob(const JobOutcome& job) {
  StageVerdict v;
  if (job.timed_out) {
    v.status = EvalStatus::kTimeout;
    v.reason = fmt::format("time limit passed after {:.1f} s; every rank was killed", job.wall_s);
    return v;
  }
  if (job.first_failed_rank >= 0) {
    const RankOutcome* first = nullptr;
    for (const auto& r : job.ranks)
      if (r.rank == job.first_failed_rank) first = &r;
    if (!first) first = &job.ranks.front();
    const ProcessOutcome& o = first->outcome;
    if (!o.started) {
      v.status = EvalStatus::kRuntimeError;
      v.reason = fmt::format("rank {} did not start: {}", first->rank, o.start_error);
    } else if (o.signal != 0) {
      v.status = EvalStatus::kCrashed;
      v.reason = fmt::format("rank {} died by signal {} ({})", first->rank, o.signal, strsignal(o.signal));
    } else if (o.exit_code == protocol::kExitHang) {  // the supervisor's iteration watchdog
      v.status = EvalStatus::kTimeout;
      v.reason = fmt::format("rank {} hung: one iteration's GPU work outlived the iteration limit ([limits] "
                             "iteration_s; the rank's log names the iteration)", first->rank);
    } else {
      v.status = EvalStatus::kRuntimeError;
      const char* meaning = o.exit_code == protocol::kExitCandidate ? " (candidate reported an error)"
                            : o.exit_code == protocol::kExitSupervisor ? " (CUDA/NCCL error in the harness)"
                            : o.exit_code == protocol::kExitUsage ? " (bad harness arguments or sizes)"
                            : "";
      v.reason = fmt::format("rank {} exited with code {}{}", first->rank, o.exit_code, meaning);
    }
    return v;
  }
  if (job.unkillable) {
    v.status = EvalStatus::kRuntimeError;
    v.reason = "a process survived SIGKILL";
  }
  return v;
}

namespace {

// Where the program's own code, run as the reference, ended the supervisor's run (exit() in its error
// macro after a perror, a return from main, an exit in its pass: `message` says "the program called",
// "the program's main returned" or "the iteration called"), the last line of the supervisor's log that is not cuco's own ("[cuco-supervisor] ...",
// "cuco reference: ..."): what the program said last, often the reason (a missing input file); ""
// otherwise.
std::string ProgramsLastWords(const std::string& message, const std::string& log_path) {
  if (message.find("run as the reference") == std::string::npos ||  // the candidate's output is in its own log
      (message.find("the program called") == std::string::npos &&
       message.find("the program's main returned") == std::string::npos &&
       message.find("the iteration called") == std::string::npos))
    return "";
  auto log = ReadFile(log_path);
  if (!log.ok()) return "";
  std::string last;
  for (const std::string& line : SplitLines(*log)) {
    const bool cucos = line.rfind("[cuco-supervisor]", 0) == 0 || line.rfind("cuco reference:", 0) == 0;
    if (line.find_first_not_of(" \t\r") != std::string::npos && !cucos) last = line;
  }
  return last.empty() ? "" : "; the program's last line of output: \"" + TailChars(last, 200) + "\"";
}

}  // namespace

StageVerdict JudgeSupervisor(const JobOutcome& job, const std::string& metrics_dir) {
  StageVerdict v;
  if (job.timed_out) {
    v.status = EvalStatus::kTimeout;
    v.reason = fmt::format("time limit passed after {:.1f} s; the supervisor and the candidate were killed", job.wall_s);
    return v;
  }
  if (job.ranks.empty()) return v;
  const ProcessOutcome& o = job.ranks.front().outcome;
  if (!o.started) {
    v.status = EvalStatus::kRuntimeError;
    v.reason = "the supervisor did not start: " + o.start_error;
    return v;
  }
  if (o.signal != 0 && InterruptSignal(o.signal)) {
    v.status = EvalStatus::kPending;
    v.interrupted = true;
    v.reason = fmt::format("the supervisor was stopped by signal {} ({})", o.signal, strsignal(o.signal));
    return v;
  }
  if (o.signal != 0) {
    // Its log's last line says what ended it (glibc's "*** buffer overflow detected ***", an assert).
    std::string said;
    if (auto log = ReadFile(job.ranks.front().log_path); log.ok()) said = LastLine(*log);
    v.status = EvalStatus::kRuntimeError;
    v.reason = fmt::format(
        "the supervisor died by signal {} ({}){}: not the candidate's. The supervisor runs cuco's code and, in a "
        "program's harness, the program's own code as the reference (each rank a thread of it): an abort there (an "
        "assert, a buffer check of glibc's) is the program's or cuco's stand-in's; otherwise a cuco bug",
        o.signal, strsignal(o.signal), said.empty() ? "" : "; its log ends \"" + TailChars(said, 200) + "\"");
    return v;
  }
  if (o.exit_code == protocol::kExitOk) return v;
  std::string message;
  auto text = ReadFile(std::filesystem::path(metrics_dir) / "rank0.json");
  if (text.ok()) {
    nlohmann::json m = nlohmann::json::parse(*text, nullptr, false);
    if (m.is_object() && m.contains("error") && m["error"].is_string()) message = m["error"].get<std::string>();
  }
  if (message.empty()) message = "no message (see the supervisor's log)";
  message += ProgramsLastWords(message, job.ranks.front().log_path);
  switch (o.exit_code) {
    case protocol::kExitHang:
      v.status = EvalStatus::kTimeout;
      v.reason = "hung: " + message;
      break;
    case protocol::kExitCandidateCrashed:
      v.status = EvalStatus::kCrashed;
      v.reason = message;
      break;
    case protocol::kExitProtocol:
      v.status = EvalStatus::kRejected;
      v.reason = "the candidate broke the supervisor's protocol: " + message;
      break;
    case protocol::kExitCandidate:
      v.status = EvalStatus::kRuntimeError;
      v.reason = "the candidate reported an error: " + message;
      break;
    case protocol::kExitCandidateExited:
      v.status = EvalStatus::kRuntimeError;
      v.reason = message;
      break;
    case protocol::kExitUsage:
      v.status = EvalStatus::kRuntimeError;
      v.reason = "bad supervisor arguments or sizes: " + message;
      break;
    default:
      v.status = EvalStatus::kRuntimeError;
      v.reason = fmt::format("the supervisor failed (exit {}): {}", o.exit_code, message);
  }
  return v;
}

namespace {

double Num(const nlohmann::json& j, const char* key, double fallback) {
  auto it = j.find(key);
  if (it == j.end()) return fallback;
  if (it->is_null()) return NAN;  // the harness writes non-finite figures as null
  return it->is_number() ? it->get<double>() : fallback;
}

long long Int(const nlohmann::json& j, const char* key, long long fallback = 0) {
  auto it = j.find(key);
  return it != j.end() && it->is_number_integer() ? it->get<long long>() : fallback;
}

// j[key] when it is a string, else `fallback` (json::value would throw on another type).
std::string Str(const nlohmann::json& j, const char* key, const std::string& fallback = "") {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : fallback;
}

// a + b without overflow: the counts come from files, and may be anything.
long long SatAdd(long long a, long long b) {
  long long sum;
  if (!__builtin_add_overflow(a, b, &sum)) return sum;
  return b > 0 ? std::numeric_limits<long long>::max() : std::numeric_limits<long long>::min();
}

// Folds one check into the worst-case figures. NaN is sticky: it never compares as small.
void Fold(ErrorFigures* e, const nlohmann::json& c) {
  double rel = Num(c, "rel_l2", 0), mx = Num(c, "max_abs", 0);
  if (std::isnan(rel) || !(rel <= e->rel_l2)) e->rel_l2 = std::isnan(e->rel_l2) ? e->rel_l2 : rel;
  if (std::isnan(mx) || !(mx <= e->max_abs)) e->max_abs = std::isnan(e->max_abs) ? e->max_abs : mx;
  e->nonfinite = SatAdd(e->nonfinite, Int(c, "nonfinite"));
  e->poison_left = std::max(e->poison_left, Int(c, "poison_left"));
  e->left_alone = std::max(e->left_alone, Int(c, "left_alone"));
  e->elements = SatAdd(e->elements, Int(c, "elements"));
  e->checks += 1;
}

// The supervisor scans every timed iteration's whole output (verified or not) for poison left and
// NaN/Inf: the first iteration that shows either, as a reason; "" when all are clean. Poison is
// allowed in `left_alone` elements. A rank whose scans do not cover every timed iteration is the
// harness's failure (a cuco bug), said in *broken.
std::string TimedScanFailure(const nlohmann::json& t, int rank, long long left_alone, std::string* broken) {
  const auto list = [&](const char* key) {
    std::vector<long long> v;
    auto it = t.find(key);
    if (it != t.end() && it->is_array())
      for (const auto& x : *it) v.push_back(x.is_number_integer() ? x.get<long long>() : -1);
    return v;
  };
  const std::vector<long long> poison = list("scan_poison_left"), nonfinite = list("scan_nonfinite");
  const long long iters = Int(t, "iters", -1);
  if (iters < 0 || static_cast<long long>(poison.size()) != iters || static_cast<long long>(nonfinite.size()) != iters) {
    *broken = fmt::format("rank {}'s metrics do not scan every timed iteration ({} iterations, {} poison and {} NaN "
                          "scans)", rank, iters, poison.size(), nonfinite.size());
    return "";
  }
  std::set<long long> verified;
  for (const auto& x : t.value("verified_iterations", nlohmann::json::array()))
    if (x.is_number_integer()) verified.insert(x.get<long long>());
  const long long allowance = SatAdd(PoisonAllowance(Num(t, "scan_poison_expected", 0)), left_alone);
  for (long long i = 0; i < iters; ++i) {
    const std::string which = fmt::format("rank {} timed iteration {}{}", rank, i,
                                          verified.count(i) ? "" : " (not one of the sampled checks)");
    if (poison[i] < 0 || nonfinite[i] < 0) {
      *broken = fmt::format("{}: its scan figures are not counts", which);
      return "";
    }
    if (poison[i] > allowance)
      return fmt::format("{}: {} output elements still hold the poison written before it ran (outputs not written)",
                         which, poison[i]);
    if (nonfinite[i] > 0) return fmt::format("{}: {} NaN/Inf output elements", which, nonfinite[i]);
  }
  return "";
}

// The first failure is the verdict's: later ones are not recorded over it.
void NoteFirstFailure(StageVerdict* v, EvalStatus s, std::string why) {
  if (v->status == EvalStatus::kOk) {
    v->status = s;
    v->reason = std::move(why);
  }
}

// Rank r's checks (metrics `m`): its error figures, every check present, no poison left, no NaN/Inf,
// within `tol`, and two runs on the same inputs agreeing; failures go to *v.
ErrorFigures JudgeRankChecks(const nlohmann::json& m, int r, const StageExpectations& expect, const Tolerance& tol,
                             StageVerdict* v) {
  auto fail = [&](EvalStatus s, std::string why) { NoteFirstFailure(v, s, std::move(why)); };
  ErrorFigures rank_errors;
  if (!expect.timing_only) {  // a bound part's outputs are incomplete by design: not judged
    // Only objects are checks (a number or a list of numbers is no check at all).
    nlohmann::json checks = nlohmann::json::array();
    if (m.contains("checks") && m["checks"].is_array())
      for (const auto& c : m["checks"])
        if (c.is_object()) checks.push_back(c);
    for (const auto& c : checks) Fold(&rank_errors, c);
    if (static_cast<int>(rank_errors.checks) < expect.min_checks)
      fail(EvalStatus::kRuntimeError,
           fmt::format("rank {} reported {} checks, expected at least {}", r, rank_errors.checks, expect.min_checks));
    for (const auto& c : checks) {
      const long long left = Int(c, "poison_left");
      if (left > SatAdd(PoisonAllowance(Num(c, "poison_expected", 0)), std::max(0LL, Int(c, "left_alone"))))
        fail(EvalStatus::kWrongResult,
             fmt::format("rank {} {} check {}: {} output elements still hold the poison written before the run "
                         "(outputs not fully written)",
                         r, Str(c, "kind", "?"), Int(c, "iteration"), left));
    }
    if (rank_errors.nonfinite > 0)
      fail(EvalStatus::kWrongResult, fmt::format("rank {}: {} NaN/Inf output elements", r, rank_errors.nonfinite));
    if (!(rank_errors.rel_l2 <= tol.rel_l2) || !(rank_errors.max_abs <= tol.max_abs))
      fail(EvalStatus::kWrongResult,
           fmt::format("rank {}: relative L2 error {:.3g} (tolerance {:.3g}), max abs error {:.3g} (tolerance {:.3g})", r,
                       rank_errors.rel_l2, tol.rel_l2, rank_errors.max_abs, tol.max_abs));
    if (m.contains("agreement_max_abs")) {
      double agree = Num(m, "agreement_max_abs", 0);
      rank_errors.has_agreement = true;
      rank_errors.agreement_max_abs = agree;
      if (!(agree <= tol.max_abs))
        fail(EvalStatus::kWrongResult,
             fmt::format("rank {}: two runs on the same inputs into fresh buffers disagree by {:.3g}", r, agree));
    }
  }
  return rank_errors;
}

// The worst case over ranks: *e folds in one rank's figures.
void FoldWorstRank(const ErrorFigures& rank_errors, ErrorFigures* e_out) {
  ErrorFigures& e = *e_out;
  if (std::isnan(rank_errors.rel_l2) || !(rank_errors.rel_l2 <= e.rel_l2)) e.rel_l2 = std::isnan(e.rel_l2) ? e.rel_l2 : rank_errors.rel_l2;
  if (std::isnan(rank_errors.max_abs) || !(rank_errors.max_abs <= e.max_abs)) e.max_abs = std::isnan(e.max_abs) ? e.max_abs : rank_errors.max_abs;
  e.nonfinite = SatAdd(e.nonfinite, rank_errors.nonfinite);
  e.poison_left = std::max(e.poison_left, rank_errors.poison_left);
  e.left_alone = std::max(e.left_alone, rank_errors.left_alone);
  e.elements = SatAdd(e.elements, rank_errors.elements);
  e.checks = SatAdd(e.checks, rank_errors.checks);
  if (rank_errors.has_agreement) {
    e.has_agreement = true;
    if (!(rank_errors.agreement_max_abs <= e.agreement_max_abs)) e.agreement_max_abs = rank_errors.agreement_max_abs;
  }
}

// Rank r's timing block (metrics `m`): present and valid, the timed scan clean (poison allowed in
// the `left_alone` elements its checks found the program itself leaves alone), nothing left running
// after the timed region; the verdict's timing is the slowest rank's. Failures go to *v.
void JudgeRankTiming(const nlohmann::json& m, int r, const StageExpectations& expect, long long left_alone,
                     StageVerdict* v, std::vector<double>* medians) {
  auto fail = [&](EvalStatus s, std::string why) { NoteFirstFailure(v, s, std::move(why)); };
  if (!m.contains("timing") || !m["timing"].is_object()) {
    fail(EvalStatus::kRuntimeError, fmt::format("rank {} reported no timing", r));
    return;
  }
  const auto& t = m["timing"];
  double med = Num(t, "median_ms", -1);
  double tail = Num(t, "tail_median_ms", 0);
  int iters = static_cast<int>(std::clamp(Int(t, "iters"), 0LL, static_cast<long long>(std::numeric_limits<int>::max())));
  if (!(med > 0) || iters < 1) {
    fail(EvalStatus::kRuntimeError, fmt::format("rank {} reported an invalid timing block", r));
    return;
  }
  if (!expect.timing_only) {  // a bound part's outputs are incomplete by design: figures only
    std::string broken;
    const std::string scan = TimedScanFailure(t, r, left_alone, &broken);
    if (!broken.empty()) fail(EvalStatus::kRuntimeError, broken);
    if (!scan.empty()) fail(EvalStatus::kWrongResult, scan);
  }
  medians->push_back(med);
  // The interval of this rank's median, from the times it reported; the record's is the largest
  // bounds over ranks (the verdict's median is the largest median).
  std::vector<double> times;
  if (t.contains("times_ms") && t["times_ms"].is_array())
    for (const auto& x : t["times_ms"])
      if (x.is_number()) times.push_back(x.get<double>());
  if (!times.empty()) {
    const auto at_floor = std::count_if(times.begin(), times.end(), AtTimerFloor);
    v->timing.floor_share = std::max(v->timing.floor_share, static_cast<double>(at_floor) / static_cast<double>(times.size()));
  }
  if (auto interval = MedianConfidenceInterval(times); interval && static_cast<int>(times.size()) == iters) {
    v->timing.median_lo_ms = std::max(v->timing.median_lo_ms, interval->lo);
    v->timing.median_hi_ms = std::max(v->timing.median_hi_ms, interval->hi);
  }
  v->timing.iters = std::max(v->timing.iters, iters);
  v->timing.tail_median_ms = std::max(v->timing.tail_median_ms, tail);
  if (med >= v->timing.median_ms) {
    v->timing.median_ms = med;
    v->timing.p10_ms = Num(t, "p10_ms", med);
    v->timing.p90_ms = Num(t, "p90_ms", med);
  }
  if (tail > TailLimitMs(med))
    fail(EvalStatus::kRejected,
         fmt::format("rank {}: the device stayed busy {:.3f} ms after the timed region ended (median time {:.3f} ms): "
                     "work escaped the timer",
                     r, tail, med));
}

}  // namespace

StageVerdict JudgeMetrics(const std::string& metrics_dir, const StageExpectations& expect, const Tolerance& tol) {
  std::vector<RankMetricsText> ranks;
  for (int r = 0; r < expect.world_size; ++r) {
    std::filesystem::path p = std::filesystem::path(metrics_dir) / fmt::format("rank{}.json", r);
    auto text = ReadFile(p);
    ranks.push_back({text.ok() ? std::optional<std::string>(*text) : std::nullopt, p.string()});
  }
  return JudgeMetricsTexts(ranks, expect, tol);
}

StageVerdict JudgeMetricsTexts(const std::vector<RankMetricsText>& ranks, const StageExpectations& expect,
                               const Tolerance& tol) {
  StageVerdict v;
  auto fail = [&](EvalStatus s, std::string why) { NoteFirstFailure(&v, s, std::move(why)); };
  std::vector<double> medians;
  for (int r = 0; r < expect.world_size; ++r) {
    const std::optional<std::string>& text = r < static_cast<int>(ranks.size()) ? ranks[r].text : std::nullopt;
    if (!text) {
      fail(EvalStatus::kRuntimeError,
           fmt::format("rank {} wrote no metrics file ({})", r, r < static_cast<int>(ranks.size()) ? ranks[r].where : "?"));
      continue;
    }
    nlohmann::json m = nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false);
    if (m.is_discarded() || !m.is_object()) {
      fail(EvalStatus::kRejected, fmt::format("rank {}'s metrics file is not valid JSON: not written by the harness", r));
      continue;
    }
    v.ranks.push_back(m);
    if (Str(m, "nonce") != expect.nonce || Int(m, "rank", -1) != r || Str(m, "stage") != expect.stage) {
      fail(EvalStatus::kRejected,
           fmt::format("rank {}'s metrics file does not carry this run's nonce, rank and stage: forged or stale", r));
      continue;
    }
    if (v.device.empty()) v.device = Str(m, "device");
    if (m.contains("error") && m["error"].is_string()) {
      fail(EvalStatus::kRuntimeError, fmt::format("rank {}: {}", r, m["error"].get<std::string>()));
      continue;
    }
    if (long long late = Int(m, "late_writes_total"); late > 0) {
      std::string where;
      for (const auto& l : m.value("late_writes", nlohmann::json::array()))
        if (where.empty() && l.is_object())
          where = fmt::format(" (first after {} iteration {})", Str(l, "after", "?"), Int(l, "iteration"));
      fail(EvalStatus::kRejected,
           fmt::format("rank {}: {} output elements were written after the timed window had closed{}: work escaped the "
                       "timer",
                       r, late, where));
      continue;
    }
    if (expect.seen_seeds != nullptr && r == 0) {
      for (const auto& s : m.value("input_seeds", nlohmann::json::array())) {
        if (!s.is_object() || Str(s, "phase") == "fresh_buffers") continue;
        if (!expect.seen_seeds->insert(Str(s, "seed")).second)
          fail(EvalStatus::kRejected,
               fmt::format("rank {}: input seed {} was used twice ({} iteration {}): inputs must be fresh every "
                           "iteration", r, Str(s, "seed"), Str(s, "phase"), Int(s, "iteration")));
      }
    }
    const auto checked = m.find("checked");
    const bool says_unchecked = checked != m.end() && checked->is_boolean() && !checked->get<bool>();
    if (expect.timing_only) {
      // A bound part: its outputs are incomplete by design, so checks are neither expected nor
      // judged; the harness must confirm that it ran without them.
      if (!says_unchecked)
        fail(EvalStatus::kRuntimeError,
             fmt::format("rank {}: a timing-only run, but the metrics file does not say \"checked\": false", r));
    } else if (says_unchecked) {
      fail(EvalStatus::kRejected,
           fmt::format("rank {}'s metrics file says \"checked\": false (timing only), but this run required checks", r));
      continue;
    }
    const ErrorFigures rank_errors = JudgeRankChecks(m, r, expect, tol, &v);
    FoldWorstRank(rank_errors, &v.errors);
    if (expect.expect_timing) JudgeRankTiming(m, r, expect, rank_errors.left_alone, &v, &medians);
  }
  v.timing.rank_median_ms = medians;
  if (expect.timing_only && v.status == EvalStatus::kOk) {
    if (!expect.expect_timing) {
      v.status = EvalStatus::kRuntimeError;
      v.reason = "a timing-only stage must be timed (cuco bug)";
    } else {
      v.status = EvalStatus::kTimed;
    }
  }
  return v;
}

}  // namespace cuco
