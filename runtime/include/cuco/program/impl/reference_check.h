// cuco/program/impl/reference_check.h: the reference's side of the workload contract
// (cuco/workload_spec.h) over the engine's ranks (reference_engine.h), for a rank of a started
// engine (EnsureStarted ok): reference.h's cuco_frozen functions start it and call these.
// Defined in runtime/src/program/reference_check.cu, compiled once for every program.
#pragma once

#include <cstdint>
#include <vector>

#include <cuda_runtime.h>

#include <cuco/harness.h>
#include <cuco/workload_spec.h>

namespace cuco_program::ref {

// The rank's bound buffers: its inputs, then its outputs (an inout buffer `name` is the input
// `name` and the output `name_out`), sized by the cudaMalloc that made them.
std::vector<cuco_frozen::BufferSpec> BufferSpecs(int rank);

// The rows (runs of 1024 elements through the rank's outputs, one after the other) a check compares.
int64_t OutputRows(int rank);

// The rank's inputs for `seed` into io's buffers, on `stream`: floats uniform in [-s, s) from
// (seed, buffer, rank, index), s giving the program's own RMS for that buffer; other types the
// program's own values.
cuco::Status FillInputs(int rank, uint64_t seed, const cuco::IO& io, cudaStream_t stream);

// Runs the program's iteration on every rank for `seed` (once per seed; the first seed twice, to
// judge determinism), then compares the rank's outputs in io with the program's, at plan's rows.
cuco::Status Check(int rank, uint64_t seed, const cuco::IO& io, const cuco_frozen::CheckPlan& plan, cudaStream_t stream,
                   cuco_frozen::CheckResult* result);

}  // namespace cuco_program::ref
