// Producer sites (transform/ internal): where a program seed's collective reads a buffer that a
// GEMM call just before it writes (and, the consumer form below, where a GEMM reads what an
// all-gather just before it gathered), so the chunks knob (cuco/program/impl/chunk_overlap.h) can split
// that GEMM and run the collective chunk by chunk behind it. Two forms:
//   gemm(blas, m, n, k, h, w2, z);                 <- the producer: a call statement naming `z`
//   NCCLCHECK(ncclAllReduce(z, z, n, ...));        <- the collective: its first argument is `z`
// and, where one thread drives every GPU, a loop of GEMMs, then (after ncclGroupStart, if any) a loop
// of collectives, each the last statement naming the buffer in its loop:
//   for (int r = 0; r < n; ++r) { cudaSetDevice(r); cublasSgemm(..., g[r].y, m); }
//   ncclGroupStart();
//   for (int r = 0; r < n; ++r) { cudaSetDevice(r); ncclAllReduce(g[r].y, g[r].y, ...); }
// A wait for the device or a stream between the GEMM and the collective is stepped over (the GEMM
// then the statement before it; split, the wait is skipped). Both must be plain statements of one EVOLVE block (not the body of an if/for/while without
// braces, no kernel launch as the producer); the buffer a name or member chain, each part possibly
// subscripted by a name or a number (`y`, `w.out`, `g->c`, `g[r].y`), so that naming it once more
// before the producer reads the same pointer.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "transform/seed_source.h"

namespace cuco::transform_internal {

struct ProducerSite {
  size_t insert_at = 0;  // where the Producer's declaration goes: the start of the producer's line
                         // when only spaces come before it there, else right after the statement before
  std::string indent;    // the producer line's leading spaces (empty when not inserted at a line start)
  std::string buffer;    // the collective's first argument, as written
  int producer_line = 0;
  // The waits between the producer and the collective (cudaDeviceSynchronize, cudaStreamSynchronize,
  // or cudaStreamWaitEvent on an event the GEMM's stream recorded there, possibly in a check macro):
  // the first byte of each, guarded to run only while the Producer split nothing (the chunks' events
  // order each collective after its chunk). Event records between them stay as written.
  std::vector<size_t> waits_at;
  // The loop form: the Producer goes before the GEMMs' loop (insert_at, indent: armed with no
  // buffer) and arms each pass's buffer just before its GEMM (arm_at, arm_indent).
  bool loop = false;
  size_t arm_at = 0;
  std::string arm_indent;
};

// The producer site of collective call `c` of `src`, or nullopt with *why saying what is missing.
// `buffer_arg`: the argument naming the buffer the collective reads (a wrapper's call,
// collective_wrappers.h, names it where its parameter is).
std::optional<ProducerSite> FindProducerSite(const SeedSource& src, const SeedCall& c, std::string* why,
                                             size_t buffer_arg = 0);

// The consumer form (cuco/program/impl/gather_overlap.h): an all-gather whose output, its second
// argument, the statement after it names, a call of the same EVOLVE block:
//   NCCLCHECK(ncclAllGather(x_local, x_full, n, ncclBfloat16, comm, s));   <- the collective
//   gemm_bf16(handle, seq, ffn, hidden, x_full, w1, h);                   <- the consumer
// The Consumer's declaration goes before the collective.
struct ConsumerSite {
  size_t insert_at = 0;  // the start of the collective's line when only spaces come before it there,
  std::string indent;    // else right after the statement before (indent then empty)
  std::string buffer;    // the collective's second argument, as written
  int consumer_line = 0;
};

// The consumer site of all-gather call `c` of `src`, or nullopt with *why saying what is missing.
std::optional<ConsumerSite> FindConsumerSite(const SeedSource& src, const SeedCall& c, std::string* why);

}  // namespace cuco::transform_internal
