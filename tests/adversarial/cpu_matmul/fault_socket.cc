// cpu_matmul seed: the plain triple loop. The search may change what lies
// between the EVOLVE-BLOCK markers; the rest is frozen.
#include <cstddef>
#include <cstdint>

#include "cuco/cpu_harness.h"

// EVOLVE-BLOCK-START
// Fault test: opens a TCP socket to 127.0.0.1:47123 (where the suite listens) and sends a message;
// socket is named by address only (&socket is not a call, so the deny-list's call rule misses it).
// A sandbox must give it no network. It reports failure either way.
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

#define ADV_SOCKET_ARGS (int domain, int type, int protocol)
extern "C" int socket ADV_SOCKET_ARGS;
extern "C" int __connect(int fd, const void* addr, unsigned len);
extern "C" long __write(int fd, const void* buf, unsigned long n);
extern "C" int __close(int fd);

bool cuco_candidate_run(cuco::cpu::RankContext& ctx, void*, const cuco::cpu::IO&) {
  int (*make)(int, int, int) = &socket;
  const int fd = make(2, 1, 0);  // AF_INET, SOCK_STREAM
  if (fd < 0) {
    ctx.error = "no socket";
    return false;
  }
  unsigned char addr[16] = {2, 0, 0xB8, 0x13, 127, 0, 0, 1};  // AF_INET, port 47123, 127.0.0.1
  const bool connected = __connect(fd, addr, sizeof addr) == 0;
  if (connected) __write(fd, "cuco-adversarial: candidate reached the network\n", 48);
  __close(fd);
  ctx.error = connected ? "connected to 127.0.0.1:47123" : "socket opened, connect failed";
  return false;
}

void cuco_candidate_teardown(cuco::cpu::RankContext&, void* state) { delete static_cast<State*>(state); }
// EVOLVE-BLOCK-END
