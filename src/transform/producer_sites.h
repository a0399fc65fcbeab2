// Producer sites (transform/ internal): where a program seed's collective reads a buffer that the
// statement just before it writes, so the chunks knob (cuco/program/impl/chunk_overlap.h) can split
// that statement's GEMM and run the collective chunk by chunk behind it.
//   gemm(blas, m, n, k, h, w2, z);                 <- the producer: a call statement naming `z`
//   NCCLCHECK(ncclAllReduce(z, z, n, ...));        <- the collective: its first argument is `z`
// Both must be plain statements of one EVOLVE block (not the body of an if/for/while without
// braces, no kernel launch as the producer); the buffer a plain name or member chain (`y`, `w.out`,
// `g->c`), so that naming it once more before the producer reads the same pointer.
#pragma once

#include <optional>
#include <string>

#include "transform/seed_source.h"

namespace cuco::transform_internal {

struct ProducerSite {
  size_t insert_at = 0;  // where the Producer's declaration goes: the start of the producer's line
                         // when only spaces come before it there, else right after the statement before
  std::string indent;    // the producer line's leading spaces (empty when not inserted at a line start)
  std::string buffer;    // the collective's first argument, as written
  int producer_line = 0;
};

// The producer site of collective call `c` of `src`, or nullopt with *why saying what is missing.
std::optional<ProducerSite> FindProducerSite(const SeedSource& src, const SeedCall& c, std::string* why);

}  // namespace cuco::transform_internal
