// The CPU harness's main(): frozen code that owns the truth for CPU workloads.
// Build: g++ -std=c++20 -O2 -I runtime/include -I <workload> runtime/src/cpu_harness_main.cc reference.cc candidate.cc
// Contract (same as the GPU harness, see runtime/METRICS.md): per-rank metrics
// file <metrics-dir>/rank<R>.json; fresh random inputs every iteration; outputs
// poisoned with random bits before every run; the reference is computed from
// regenerated inputs only after the candidate's run returned; timing by the
// harness's own clock around each run. --timing-only (bench stage; cuco passes it for
// a workload's own bound parts only): no reference checks, and "checked": false.
// --iteration-limit S: a candidate run that takes longer is a hang: exit 5 naming the run.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

#include "cuco/cpu_harness.h"

namespace cuco::cpu {

int64_t Sizes::get(const char* name) const {
  auto it = values_.find(name);
  if (it == values_.end()) {
    std::fprintf(stderr, "cuco harness: size '%s' was not given (--size %s=...)\n", name, name);
    std::exit(2);
  }
  return it->second;
}

const Buffer& IO::in(const char* name) const {
  auto it = inputs.find(name);
  if (it == inputs.end()) {
    std::fprintf(stderr, "cuco harness: no input buffer '%s'\n", name);
    std::exit(2);
  }
  return it->second;
}

const Buffer& IO::out(const char* name) const {
  auto it = outputs.find(name);
  if (it == outputs.end()) {
    std::fprintf(stderr, "cuco harness: no output buffer '%s'\n", name);
    std::exit(2);
  }
  return it->second;
}

}  // namespace cuco::cpu

namespace {

using cuco::cpu::Buffer;
using cuco::cpu::IO;
using cuco::cpu::Role;
using cuco::cpu::Sizes;

[[noreturn]] void Die(int code, const std::string& msg) {
  std::fprintf(stderr, "cuco harness: %s\n", msg.c_str());
  std::exit(code);
}

struct Args {
  std::string stage, metrics_dir;
  std::map<std::string, int64_t> sizes;
  int warmup = 5, iters = 20, verify_runs = 2;
  double verify_fraction = 0.25;
  bool have_input_seed = false;
  uint64_t input_seed = 0;
  bool timing_only = false;
  double iteration_limit_s = 0;
};

Args ParseArgs(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    std::string f = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) Die(2, "flag " + f + " needs a value");
      return argv[++i];
    };
    if (f == "--stage") a.stage = value();
    else if (f == "--metrics-dir") a.metrics_dir = value();
    else if (f == "--size") {
      std::string kv = value();
      size_t eq = kv.find('=');
      if (eq == std::string::npos) Die(2, "--size wants NAME=VALUE, got " + kv);
      a.sizes[kv.substr(0, eq)] = std::stoll(kv.substr(eq + 1));
    } else if (f == "--warmup") a.warmup = std::stoi(value());
    else if (f == "--iters") a.iters = std::stoi(value());
    else if (f == "--verify-runs") a.verify_runs = std::stoi(value());
    else if (f == "--verify-fraction") a.verify_fraction = std::stod(value());
    else if (f == "--input-seed") { a.have_input_seed = true; a.input_seed = std::stoull(value(), nullptr, 0); }
    else if (f == "--timing-only") a.timing_only = true;
    else if (f == "--iteration-limit") {
      a.iteration_limit_s = std::stod(value());
      if (!(a.iteration_limit_s > 0)) Die(2, "--iteration-limit takes seconds > 0");
    }
    else Die(2, "unknown flag " + f);
  }
  if (a.stage != "verify" && a.stage != "bench") Die(2, "--stage must be verify or bench");
  if (a.metrics_dir.empty()) Die(2, "--metrics-dir is required");
  if (a.timing_only && a.stage != "bench") Die(2, "--timing-only applies to the bench stage only");
  return a;
}

int EnvInt(std::initializer_list<const char*> names, int fallback) {
  for (const char* n : names)
    if (const char* v = std::getenv(n)) return std::atoi(v);
  return fallback;
}

uint64_t FreshSeed() {
  std::random_device rd;
  return (static_cast<uint64_t>(rd()) << 32) ^ rd();
}

std::string Hex(uint64_t v) {
  char b[32];
  std::snprintf(b, sizeof b, "0x%016llx", static_cast<unsigned long long>(v));
  return b;
}

// JSON number or null for non-finite values.
std::string Num(double v) {
  if (!std::isfinite(v)) return "null";
  std::ostringstream os;
  os.precision(9);
  os << v;
  return os.str();
}

uint32_t PoisonWord(uint64_t seed, uint64_t i) {
  return static_cast<uint32_t>(cuco_frozen::cpu::uniform(seed, 0xB0150Full, 0, i) * 2147483647.0) ^ 0x5A5A5A5Au;
}

void Poison(const IO& io, uint64_t seed) {
  for (const auto& [name, b] : io.outputs) {
    auto* w = static_cast<uint32_t*>(b.ptr);
    for (size_t i = 0; i < b.bytes / 4; ++i) w[i] = PoisonWord(seed, i);
  }
}

int64_t PoisonLeft(const IO& io, uint64_t seed) {
  int64_t left = 0;
  for (const auto& [name, b] : io.outputs) {
    const auto* w = static_cast<const uint32_t*>(b.ptr);
    for (size_t i = 0; i < b.bytes / 4; ++i) left += (w[i] == PoisonWord(seed, i));
  }
  return left;
}

// The iteration watchdog: a thread that ends the process (exit 5) when one candidate run outlives
// --iteration-limit. Armed around each run; the label says which run it was.
struct Watchdog {
  std::atomic<int64_t> deadline_ns{0};  // 0: disarmed
  char label[96] = {};

  void Start(double limit_s) {
    if (limit_s <= 0) return;
    limit_ns_ = static_cast<int64_t>(limit_s * 1e9);
    std::thread([this] {
      for (;;) {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        const int64_t d = deadline_ns.load();
        if (d != 0 && Now() > d) {
          std::fprintf(stderr, "cuco harness: %s did not finish within %.0f s (--iteration-limit): a hang\n", label,
                       limit_ns_ / 1e9);
          std::fflush(stderr);
          std::_Exit(5);
        }
      }
    }).detach();
  }
  void Arm(const char* what, int i) {
    if (limit_ns_ == 0) return;
    std::snprintf(label, sizeof label, "%s iteration %d", what, i);
    deadline_ns.store(Now() + limit_ns_);
  }
  void Disarm() { deadline_ns.store(0); }
  static int64_t Now() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
  }

 private:
  int64_t limit_ns_ = 0;
};

struct CheckRecord {
  int iteration;
  std::string kind;
  uint64_t input_seed;
  cuco_frozen::cpu::CheckResult r;
  int64_t poison_left;
};

struct Harness {
  Args args;
  int rank = 0, world = 1;
  std::string nonce;
  Sizes sizes{{}};
  std::vector<cuco::cpu::BufferSpec> specs;
  cuco::cpu::RankContext ctx;
  void* state = nullptr;
  std::vector<CheckRecord> checks;
  std::vector<double> times_ms;
  double agreement_max_abs = 0;
  std::vector<std::vector<char>> storage;
  std::string error;
  Watchdog watchdog;

  IO Allocate() {
    IO io;
    for (const auto& s : specs) {
      storage.emplace_back(s.bytes + 64);
      Buffer b{storage.back().data(), s.bytes};
      (s.role == Role::kInput ? io.inputs : io.outputs)[s.name] = b;
    }
    return io;
  }

  bool Run(const IO& io, const char* phase, int iteration) {
    watchdog.Arm(phase, iteration);
    const bool ok = cuco_candidate_run(ctx, state, io);
    watchdog.Disarm();
    if (!ok) {
      error = "candidate run failed: " + ctx.error;
      return false;
    }
    return true;
  }

  void Check(int iteration, const std::string& kind, uint64_t input_seed, uint64_t poison_seed, const IO& io,
             const std::vector<int64_t>& rows) {
    CheckRecord c{iteration, kind, input_seed, {}, 0};
    c.poison_left = PoisonLeft(io, poison_seed);
    c.r = cuco_frozen::cpu::workload_check(sizes, rank, world, input_seed, io, rows);
    checks.push_back(c);
  }

  std::vector<int64_t> SampleRows(std::mt19937_64& rng) {
    int64_t rows = cuco_frozen::cpu::workload_rows(sizes, rank, world);
    int64_t want = sizes.has("sample_rows") ? sizes.get("sample_rows") : rows;
    if (want >= rows) return {};
    std::vector<int64_t> out;
    std::uniform_int_distribution<int64_t> d(0, rows - 1);
    for (int64_t i = 0; i < want; ++i) out.push_back(d(rng));
    return out;
  }

  void Verify() {
    IO io = Allocate();
    uint64_t seed = 0, poison = 0;
    for (int v = 0; v < args.verify_runs; ++v) {
      seed = args.have_input_seed && v == 0 ? args.input_seed : FreshSeed();
      poison = FreshSeed();
      cuco_frozen::cpu::workload_fill_inputs(sizes, rank, world, seed, io);
      Poison(io, poison);
      if (!Run(io, "verify", v)) return;
      Check(v, "verify", seed, poison, io, {});
    }
    // A second run on the same inputs into fresh output buffers must also be right and agree.
    IO fresh = Allocate();
    fresh.inputs = io.inputs;
    uint64_t poison2 = FreshSeed();
    Poison(fresh, poison2);
    if (!Run(fresh, "fresh_buffers", args.verify_runs)) return;
    Check(args.verify_runs, "fresh_buffers", seed, poison2, fresh, {});
    for (const auto& [name, b] : io.outputs) {
      const float* x = static_cast<const float*>(b.ptr);
      const float* y = static_cast<const float*>(fresh.outputs.at(name).ptr);
      for (size_t i = 0; i < b.bytes / 4; ++i) {
        double d = std::fabs(static_cast<double>(x[i]) - y[i]);
        if (!(d <= agreement_max_abs)) agreement_max_abs = std::isnan(d) ? NAN : d;
      }
    }
  }

  void Bench() {
    IO io = Allocate();
    std::mt19937_64 rng(FreshSeed());
    for (int w = 0; w < args.warmup; ++w) {
      cuco_frozen::cpu::workload_fill_inputs(sizes, rank, world, FreshSeed(), io);
      Poison(io, FreshSeed());
      if (!Run(io, "warmup", w)) return;
    }
    // The iterations to verify are drawn now and kept here: the candidate cannot tell them apart.
    int want = args.timing_only ? 0 : std::max(2, static_cast<int>(std::ceil(args.verify_fraction * args.iters)));
    std::vector<int> order(args.iters);
    for (int i = 0; i < args.iters; ++i) order[i] = i;
    std::shuffle(order.begin(), order.end(), rng);
    std::vector<bool> verify(args.iters, false);
    for (int i = 0; i < std::min(want, args.iters); ++i) verify[order[i]] = true;
    for (int it = 0; it < args.iters; ++it) {
      uint64_t seed = FreshSeed(), poison = FreshSeed();
      cuco_frozen::cpu::workload_fill_inputs(sizes, rank, world, seed, io);
      Poison(io, poison);
      auto t0 = std::chrono::steady_clock::now();
      if (!Run(io, "timed", it)) return;
      auto t1 = std::chrono::steady_clock::now();
      times_ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
      if (verify[it]) Check(it, "timed_sample", seed, poison, io, SampleRows(rng));
    }
  }

  std::string Json() const {
    std::ostringstream o;
    o << "{\n  \"harness\": \"cuco-cpu/1\",\n  \"nonce\": \"" << nonce << "\",\n  \"rank\": " << rank
      << ",\n  \"world_size\": " << world << ",\n  \"stage\": \"" << args.stage << "\",\n  \"checked\": " << (args.timing_only ? "false" : "true")
      << ",\n  \"device\": \"cpu\",\n";
    o << "  \"sizes\": {";
    bool first = true;
    for (const auto& [k, v] : sizes.all()) { o << (first ? "" : ", ") << "\"" << k << "\": " << v; first = false; }
    o << "},\n  \"checks\": [";
    for (size_t i = 0; i < checks.size(); ++i) {
      const auto& c = checks[i];
      o << (i ? "," : "") << "\n    {\"iteration\": " << c.iteration << ", \"kind\": \"" << c.kind
        << "\", \"input_seed\": \"" << Hex(c.input_seed) << "\", \"rel_l2\": " << Num(c.r.rel_l2)
        << ", \"max_abs\": " << Num(c.r.max_abs) << ", \"nonfinite\": " << c.r.nonfinite
        << ", \"poison_left\": " << c.poison_left << ", \"elements\": " << c.r.elements << "}";
    }
    o << "\n  ],\n";
    if (args.stage == "verify") o << "  \"agreement_max_abs\": " << Num(agreement_max_abs) << ",\n";
    if (!times_ms.empty()) {
      std::vector<double> s = times_ms;
      std::sort(s.begin(), s.end());
      auto pct = [&](double p) { return s[static_cast<size_t>(p * (s.size() - 1) + 0.5)]; };
      o << "  \"timing\": {\"warmup\": " << args.warmup << ", \"iters\": " << s.size() << ", \"median_ms\": "
        << Num(pct(0.5)) << ", \"min_ms\": " << Num(s.front()) << ", \"max_ms\": " << Num(s.back())
        << ", \"p10_ms\": " << Num(pct(0.1)) << ", \"p90_ms\": " << Num(pct(0.9)) << ", \"times_ms\": [";
      for (size_t i = 0; i < times_ms.size(); ++i) o << (i ? ", " : "") << Num(times_ms[i]);
      o << "], \"tail_median_ms\": 0},\n";
    }
    if (!error.empty()) {
      std::string e;
      for (char ch : error) e += (ch == '"' || ch == '\\') ? std::string("\\") + ch : (ch == '\n' ? std::string(" ") : std::string(1, ch));
      o << "  \"error\": \"" << e << "\",\n";
    }
    o << "  \"complete\": true\n}\n";
    return o.str();
  }

  void WriteMetrics() const {
    std::string path = args.metrics_dir + "/rank" + std::to_string(rank) + ".json";
    std::string tmp = path + ".tmp";
    {
      std::ofstream out(tmp, std::ios::trunc);
      out << Json();
      if (!out) Die(4, "cannot write " + tmp);
    }
    if (std::rename(tmp.c_str(), path.c_str()) != 0) Die(4, "cannot rename " + tmp);
  }
};

}  // namespace

int main(int argc, char** argv) {
  Harness h;
  // The nonce proves a metrics file came from this harness run; it leaves the
  // environment before any candidate code can read it.
  if (const char* n = std::getenv("CUCO_RUN_NONCE")) h.nonce = n;
  unsetenv("CUCO_RUN_NONCE");
  h.args = ParseArgs(argc, argv);
  h.watchdog.Start(h.args.iteration_limit_s);
  h.rank = EnvInt({"CUCO_RANK", "OMPI_COMM_WORLD_RANK", "PMI_RANK", "SLURM_PROCID"}, 0);
  h.world = EnvInt({"CUCO_WORLD_SIZE", "OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_NTASKS"}, 1);
  h.sizes = Sizes(h.args.sizes);
  h.ctx.rank = h.rank;
  h.ctx.world_size = h.world;
  h.specs = cuco_frozen::cpu::workload_buffers(h.sizes, h.rank, h.world);
  if (!cuco_candidate_setup(h.ctx, h.sizes, &h.state)) {
    h.error = "candidate setup failed: " + h.ctx.error;
  } else {
    if (h.args.stage == "verify") h.Verify(); else h.Bench();
    cuco_candidate_teardown(h.ctx, h.state);
  }
  h.WriteMetrics();
  return h.error.empty() ? 0 : 3;
}
