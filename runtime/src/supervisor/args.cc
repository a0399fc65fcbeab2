#include "supervisor/args.h"

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace cuco::supervisor {
namespace {

bool ParseI64(const std::string& s, int64_t* out) {
  if (s.empty()) return false;
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(s.c_str(), &end, 0);
  if (errno != 0 || *end != '\0') return false;
  *out = v;
  return true;
}

bool ParseF64(const std::string& s, double* out) {
  if (s.empty()) return false;
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(s.c_str(), &end);
  if (errno != 0 || *end != '\0') return false;
  *out = v;
  return true;
}

bool IsIdentifier(const std::string& s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  return true;
}

}  // namespace

bool ParseArgs(int argc, char** argv, Args* a, std::string* error) {
  auto bad = [&](const std::string& why) {
    *error = why;
    return false;
  };
  for (int i = 1; i < argc; ++i) {
    const std::string f = argv[i];
    const bool has_value = i + 1 < argc;
    auto value = [&]() { return std::string(argv[++i]); };
    int64_t n = 0;
    double d = 0;
    if (f == "--timing-only") { a->timing_only = true; continue; }
    if (!has_value) return bad("flag " + f + " needs a value (or is unknown)");
    if (f == "--stage") a->stage = value();
    else if (f == "--metrics-dir") a->metrics_dir = value();
    else if (f == "--candidate") a->candidate = value();
    else if (f == "--log-dir") a->log_dir = value();
    else if (f == "--workload") a->workload = value();
    else if (f == "--sandbox-argv") a->sandbox_argv_file = value();
    else if (f == "--candidate-env") {
      const std::string kv = value();
      if (kv.find('=') == std::string::npos || kv.front() == '=') return bad("--candidate-env wants NAME=VALUE, got " + kv);
      a->candidate_env.push_back(kv);
    } else if (f == "--size") {
      const std::string kv = value();
      const size_t eq = kv.find('=');
      if (eq == std::string::npos || !IsIdentifier(kv.substr(0, eq)) || !ParseI64(kv.substr(eq + 1), &n))
        return bad("--size wants NAME=INTEGER, got " + kv);
      a->sizes[kv.substr(0, eq)] = n;
    } else if (f == "--world" || f == "--warmup" || f == "--iters" || f == "--verify-runs" || f == "--max-iters") {
      if (!ParseI64(value(), &n) || n < 0 || n > 1000000) return bad(f + " wants a non-negative integer");
      (f == "--world"    ? a->world
       : f == "--warmup" ? a->warmup
       : f == "--iters"  ? a->iters
       : f == "--max-iters" ? a->max_iters
                            : a->verify_runs) = static_cast<int>(n);
    } else if (f == "--timed-seconds") {
      if (!ParseF64(value(), &a->timed_seconds) || !(a->timed_seconds >= 0 && a->timed_seconds <= 600))
        return bad("--timed-seconds wants seconds in [0, 600]");
    } else if (f == "--verify-fraction") {
      if (!ParseF64(value(), &a->verify_fraction) || !(a->verify_fraction >= 0 && a->verify_fraction <= 1))
        return bad("--verify-fraction wants a number in [0, 1]");
    } else if (f == "--iteration-limit" || f == "--setup-limit") {
      if (!ParseF64(value(), &d) || !(d > 0)) return bad(f + " takes seconds > 0");
      (f == "--iteration-limit" ? a->iteration_limit_s : a->setup_limit_s) = d;
    } else if (f == "--input-seed") {
      if (!ParseI64(value(), &n)) return bad("--input-seed wants an integer");
      a->has_input_seed = true;
      a->input_seed = static_cast<uint64_t>(n);
    } else {
      return bad("unknown flag " + f);
    }
  }
  if (a->stage != "verify" && a->stage != "bench") return bad("--stage must be verify or bench");
  if (a->metrics_dir.empty() || a->candidate.empty() || a->log_dir.empty())
    return bad("--metrics-dir, --candidate and --log-dir are required");
  if (a->world < 1 || a->world > 64) return bad("--world must be in [1, 64]");
  if (a->timing_only && a->stage != "bench") return bad("--timing-only applies to the bench stage only");
  if (a->stage == "bench" && a->iters < 1) return bad("--iters must be >= 1");
  if (a->stage == "verify" && a->verify_runs < 1) return bad("--verify-runs must be >= 1");
  if (!a->sandbox_argv_file.empty()) {
    std::ifstream in(a->sandbox_argv_file, std::ios::binary);
    if (!in) return bad("cannot read --sandbox-argv " + a->sandbox_argv_file);
    std::stringstream ss;
    ss << in.rdbuf();
    const std::string all = ss.str();
    size_t start = 0;
    for (size_t i = 0; i < all.size(); ++i)
      if (all[i] == '\0') {
        a->sandbox_argv.push_back(all.substr(start, i - start));
        start = i + 1;
      }
    if (start < all.size()) a->sandbox_argv.push_back(all.substr(start));
    if (a->sandbox_argv.empty()) return bad("--sandbox-argv " + a->sandbox_argv_file + " is empty");
  }
  return true;
}

}  // namespace cuco::supervisor
