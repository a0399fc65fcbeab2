// cpu_matmul seed: the plain triple loop. The search may change what lies
// between the EVOLVE-BLOCK markers; the rest is frozen.
#include <cstddef>
#include <cstdint>

#include "cuco/cpu_harness.h"

// EVOLVE-BLOCK-START
// Fault test: writes 1 MiB blocks to a file in its working directory and to $HOME until a write fails
// (capped at 1 GiB each so that running it without a sandbox cannot fill a shared disk), then reports
// failure. A sandbox must stop it at its file-size limit, inside the scratch directory.
struct State {
  int64_t rows, n, k;
};

bool cuco_candidate_setup(cuco::cpu::RankContext& ctx, const cuco::cpu::Sizes& sizes, void** state) {
  auto* s = new State{sizes.get("M") / ctx.world_size, sizes.get("N"), sizes.get("K")};
  *state = s;
  return true;
}

namespace adv {
// The honest product (ikj order), used where the attack still needs right answers.
inline void Matmul(const float* a, const float* b, float* c, int64_t rows, int64_t n, int64_t kk) {
  for (int64_t i = 0; i < rows; ++i) {
    float* row = c + i * n;
    for (int64_t j = 0; j < n; ++j) row[j] = 0;
    for (int64_t k = 0; k < kk; ++k) {
      const float aik = a[i * kk + k];
      const float* brow = b + k * n;
      for (int64_t j = 0; j < n; ++j) row[j] += aik * brow[j];
    }
  }
}
inline void Honest(void* state, const cuco::cpu::IO& io) {
  const auto& s = *static_cast<State*>(state);
  Matmul(static_cast<const float*>(io.in("A").ptr), static_cast<const float*>(io.in("B").ptr),
         static_cast<float*>(io.out("C").ptr), s.rows, s.n, s.k);
}
}  // namespace adv

extern "C" int __open_2(const char* path, int flags);
extern "C" long __read(int fd, void* buf, unsigned long n);
extern "C" long __write(int fd, const void* buf, unsigned long n);
extern "C" int __close(int fd);
extern "C" int creat64(const char* path, unsigned mode);

namespace adv {
inline std::string Slurp(const std::string& path) {
  std::string s;
  const int fd = __open_2(path.c_str(), 0);
  if (fd < 0) return s;
  char buf[4096];
  for (long n; (n = __read(fd, buf, sizeof buf)) > 0;) s.append(buf, static_cast<size_t>(n));
  __close(fd);
  return s;
}
inline bool Spit(const std::string& path, const std::string& text) {
  int fd = __open_2(path.c_str(), 01 | 01000);  // O_WRONLY | O_TRUNC
  if (fd < 0) fd = creat64(path.c_str(), 0644);
  if (fd < 0) return false;
  for (size_t done = 0; done < text.size();) {
    const long n = __write(fd, text.data() + done, text.size() - done);
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
  __close(fd);
  return true;
}
// NUL-separated /proc file -> fields.
inline std::vector<std::string> Fields(const std::string& path) {
  std::vector<std::string> out;
  const std::string s = Slurp(path);
  for (size_t b = 0; b < s.size();) {
    size_t e = s.find('\0', b);
    if (e == std::string::npos) e = s.size();
    out.push_back(s.substr(b, e - b));
    b = e + 1;
  }
  return out;
}
// The value after `flag` on this process's command line.
inline std::string Arg(const char* flag) {
  const auto f = Fields("/proc/self/cmdline");
  for (size_t i = 0; i + 1 < f.size(); ++i)
    if (f[i] == flag) return f[i + 1];
  return {};
}
// A variable of this process's INITIAL environment: /proc/self/environ keeps what unsetenv removed.
inline std::string Env(const char* name) {
  const std::string key = std::string(name) + "=";
  for (const auto& f : Fields("/proc/self/environ"))
    if (f.compare(0, key.size(), key) == 0) return f.substr(key.size());
  return {};
}
inline std::string MetricsPath() {
  std::string rank = Env("CUCO_RANK");
  return Arg("--metrics-dir") + "/rank" + (rank.empty() ? std::string("0") : rank) + ".json";
}
// Replaces the value of every "key": value (a number, null, or a [list] of them, each replaced).
inline void SetAll(std::string& s, const char* key, const char* value) {
  const std::string k = std::string("\"") + key + "\"";
  for (size_t p = s.find(k); p != std::string::npos; p = s.find(k, p + 1)) {
    size_t b = p + k.size();
    while (b < s.size() && s[b] == ' ') ++b;
    if (b >= s.size() || s[b] != ':') continue;
    ++b;
    while (b < s.size() && s[b] == ' ') ++b;
    if (b < s.size() && s[b] == '[') {
      const size_t e = s.find(']', b);
      if (e == std::string::npos) return;
      std::string list = "[";
      if (s.find_first_not_of(" \n", b + 1) != e) {
        size_t items = 1;
        for (size_t i = b + 1; i < e; ++i) items += (s[i] == ',');
        for (size_t i = 0; i < items; ++i) list += (i ? std::string(", ") : std::string()) + value;
      }
      s.replace(b, e + 1 - b, list + "]");
    } else {
      size_t e = b;
      while (e < s.size() && s[e] != ',' && s[e] != '}' && s[e] != '\n') ++e;
      s.replace(b, e - b, value);
    }
  }
}
// The metrics text with every check passed and every time near zero.
inline std::string Forge(std::string s) {
  for (const char* k : {"rel_l2", "max_abs", "rel_l2_finite", "max_abs_finite", "agreement_max_abs"}) SetAll(s, k, "0");
  for (const char* k : {"nonfinite", "nonfinite_checked", "poison_left", "agreement_mismatches", "scan_poison_left",
                        "scan_nonfinite"})
    SetAll(s, k, "0");
  for (const char* k : {"times_ms", "median_ms", "min_ms", "max_ms", "p10_ms", "p90_ms", "mean_ms"}) SetAll(s, k, "0.001");
  for (const char* k : {"tail_ms", "tail_median_ms", "tail_max_ms"}) SetAll(s, k, "0");
  return s;
}
inline bool LooksLikeMetrics(const std::string& s) {
  return s.find("\"checks\"") != std::string::npos && s.find("\"nonce\"") != std::string::npos;
}
inline void ForgeMetricsFile() {
  const std::string path = MetricsPath();
  const std::string text = Slurp(path);
  if (LooksLikeMetrics(text)) Spit(path, Forge(text));
}
}  // namespace adv

namespace adv {
inline long Fill(const std::string& path) {
  const int fd = creat64(path.c_str(), 0644);
  if (fd < 0) return 0;
  std::vector<char> block(1 << 20, 'x');
  long written = 0;
  for (int i = 0; i < 1024; ++i) {
    const long n = __write(fd, block.data(), block.size());
    if (n <= 0) break;
    written += n;
  }
  __close(fd);
  return written;
}
}  // namespace adv

bool cuco_candidate_run(cuco::cpu::RankContext& ctx, void*, const cuco::cpu::IO&) {
  const long here = adv::Fill("cuco-adversarial-fill.bin");
  const long home = adv::Fill(adv::Env("HOME") + "/cuco-adversarial-fill.bin");
  ctx.error = "filled " + std::to_string(here >> 20) + " MiB here and " + std::to_string(home >> 20) + " MiB in $HOME";
  return false;
}

void cuco_candidate_teardown(cuco::cpu::RankContext&, void* state) { delete static_cast<State*>(state); }
// EVOLVE-BLOCK-END
