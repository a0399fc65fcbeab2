// cuco/program/impl/output_digest.h: whether a rank's outputs answer its inputs at all. The
// reference keeps a digest of each rank's outputs for the first seed it runs; a rank whose outputs
// are byte for byte the same for a second seed's fresh random inputs is a check that a candidate
// passes by computing them once and copying them every iteration (reference_check.cu refuses it).
// Plain C++: tested on the host (output_digest_test.cc).
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

namespace cuco_program::ref {

// A 64-bit digest of a rank's outputs ([output][bytes]), their lengths included: FNV-1a over 8-byte
// words (a check's outputs run to hundreds of MB).
inline uint64_t OutputsDigest(const std::vector<std::vector<unsigned char>>& outputs) {
  uint64_t h = 0xcbf29ce484222325ull;
  auto mix = [&h](uint64_t w) { h = (h ^ w) * 0x100000001b3ull; };
  for (const auto& o : outputs) {
    mix(o.size());
    size_t i = 0;
    for (; i + 8 <= o.size(); i += 8) {
      uint64_t w;
      std::memcpy(&w, o.data() + i, 8);
      mix(w);
    }
    for (; i < o.size(); ++i) mix(o[i]);
  }
  return h;
}

// One rank's outputs as first seen: the seed and its digest.
struct FirstOutputs {
  bool seen = false;
  uint64_t seed = 0, digest = 0;
};

// Notes `outputs` for `seed` in *first (the first seed only) and says whether they are the same as
// those of an earlier, different seed: outputs that do not depend on the inputs.
inline bool SameForAnotherSeed(FirstOutputs* first, uint64_t seed, const std::vector<std::vector<unsigned char>>& outputs) {
  if (first->seen && first->seed == seed) return false;
  const uint64_t d = OutputsDigest(outputs);
  if (!first->seen) {
    *first = FirstOutputs{true, seed, d};
    return false;
  }
  return d == first->digest;
}

}  // namespace cuco_program::ref
