// cpu_exchange seed: each rank computes its rows of C = A*B as two partial sums (its own half of
// K and a simulated peer's), then the peer's partial crosses a staging buffer in chunks and is
// added in. The search may change what lies between the EVOLVE-BLOCK markers.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "cuco/cpu_harness.h"

// EVOLVE-BLOCK-START
// Bound part "comm": the seed with the compute left out (timed, never verified).
constexpr int kTile = 16;                     // cuco:knob tile
constexpr const char* kLoopOrder = "ijk";     // cuco:knob loop_order
constexpr int kUnroll = 1;                    // cuco:knob unroll
constexpr int kThreads = 1;                   // cuco:knob threads
constexpr int kChunks = 1;                    // cuco:knob chunks
constexpr const char* kPlacement = "after";  // cuco:knob placement

static_assert(!(kPlacement[0] == 'i' && kChunks > 8), "interleaved placement keeps at most 8 chunks in flight");

struct State {
  int64_t rows, n, k;
  std::vector<float> peer, wire;  // the peer's partial, the staging buffer
};

bool cuco_candidate_setup(cuco::cpu::RankContext& ctx, const cuco::cpu::Sizes& sizes, void** state) {
  auto* s = new State{sizes.get("M") / ctx.world_size, sizes.get("N"), sizes.get("K"), {}, {}};
  s->peer.resize(static_cast<size_t>(s->rows * s->n));
  s->wire.resize(s->peer.size());
  *state = s;
  return true;
}

// c[i0..i1) = a[i0..i1, k0..k1) * b[k0..k1, :], blocked over k by kTile.
static void Partial(const float* a, const float* b, float* c, const State& s, int64_t i0, int64_t i1, int64_t k0,
                    int64_t k1) {
  for (int64_t i = i0; i < i1; ++i)
    for (int64_t j = 0; j < s.n; ++j) c[i * s.n + j] = 0;
  for (int64_t kb = k0; kb < k1; kb += kTile) {
    const int64_t ke = kb + kTile < k1 ? kb + kTile : k1;
    for (int64_t i = i0; i < i1; ++i) {
      float* row = c + i * s.n;
      if (kLoopOrder[1] == 'k') {
        for (int64_t k = kb; k < ke; ++k) {
          const float aik = a[i * s.k + k];
          const float* brow = b + k * s.n;
          int64_t j = 0;
          if (kUnroll == 4)
            for (; j + 4 <= s.n; j += 4) {
              row[j] += aik * brow[j];
              row[j + 1] += aik * brow[j + 1];
              row[j + 2] += aik * brow[j + 2];
              row[j + 3] += aik * brow[j + 3];
            }
          for (; j < s.n; ++j) row[j] += aik * brow[j];
        }
      } else {
        for (int64_t j = 0; j < s.n; ++j) {
          float acc = 0;
          int64_t k = kb;
          if (kUnroll == 4)
            for (; k + 4 <= ke; k += 4)
              acc += a[i * s.k + k] * b[k * s.n + j] + a[i * s.k + k + 1] * b[(k + 1) * s.n + j] +
                     a[i * s.k + k + 2] * b[(k + 2) * s.n + j] + a[i * s.k + k + 3] * b[(k + 3) * s.n + j];
          for (; k < ke; ++k) acc += a[i * s.k + k] * b[k * s.n + j];
          row[j] += acc;
        }
      }
    }
  }
}

// Both ranks' partials of rows [i0, i1), split over kThreads simulated workers: worker w takes
// rows i0 + w, i0 + w + kThreads, ... (candidates may not start threads: the deny-list).
static void Compute(const float* a, const float* b, float* c, State& s, int64_t i0, int64_t i1) {
  const int64_t half = s.k / 2;
  if (kThreads == 1) {
    Partial(a, b, c, s, i0, i1, 0, half);
    Partial(a, b, s.peer.data(), s, i0, i1, half, s.k);
    return;
  }
  for (int64_t w = 0; w < kThreads; ++w)
    for (int64_t i = i0 + w; i < i1; i += kThreads) {
      Partial(a, b, c, s, i, i + 1, 0, half);
      Partial(a, b, s.peer.data(), s, i, i + 1, half, s.k);
    }
}

// The peer's partial of rows [i0, i1) over the wire, summed into c.
static void Exchange(float* c, State& s, int64_t i0, int64_t i1) {
  const size_t off = static_cast<size_t>(i0 * s.n), len = static_cast<size_t>((i1 - i0) * s.n);
  std::memcpy(s.wire.data() + off, s.peer.data() + off, len * sizeof(float));
  for (size_t e = off; e < off + len; ++e) c[e] += s.wire[e];
}

bool cuco_candidate_run(cuco::cpu::RankContext&, void* state, const cuco::cpu::IO& io) {
  auto& s = *static_cast<State*>(state);
  const float* a = static_cast<const float*>(io.in("A").ptr);
  const float* b = static_cast<const float*>(io.in("B").ptr);
  float* c = static_cast<float*>(io.out("C").ptr);
  const int64_t per = s.rows / kChunks;  // kChunks = 3 leaves rows % 3 unsent: the planted bug
  (void)a;
  (void)b;
  for (int64_t q = 0; q < kChunks; ++q) {  // the exchange alone: no compute (timed only)
    const int64_t i0 = q * per, i1 = q + 1 < kChunks ? i0 + per : s.rows;
    Exchange(c, s, i0, i1);
  }
  return true;
}

void cuco_candidate_teardown(cuco::cpu::RankContext&, void* state) { delete static_cast<State*>(state); }
// EVOLVE-BLOCK-END
