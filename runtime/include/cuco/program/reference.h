// cuco/program/reference.h: the reference side of cuco/program/program.h (reference.cu includes it
// first, after defining CUCO_PROGRAM_WORKLOAD to the workload's name). It defines the workload
// contract of cuco/workload_spec.h from the program itself (impl/reference_engine.h):
//   buffers      the bound buffers of each rank, sized by the cudaMalloc that made them; an inout
//                buffer is the input `name` and the output `name_out`;
//   fill_inputs  floats: uniform in [-s, s) from (seed, buffer, rank, index), s giving the program's
//                own RMS for that buffer; integers and other types: the program's own values; where
//                the program's own check ends its first pass on fresh floats, its own state at the
//                loop scaled per seed instead (reference_check.cu, DecideInputs);
//   check        runs the program's iteration on every rank (the reference ranks), then compares
//                the rank's outputs in fp64. Rows are runs of kRowElements elements through the
//                rank's outputs, one after the other. rel_l2 is ||out - ref|| / ||ref||; max_abs is
//                max |out - ref| over the RMS of ref (relative, since the program's scale is its own).
// Defines cuco_frozen's functions: include it once, from reference.cu only. They start the engine
// here (it runs the program's own main) and call impl/reference_check.h, which, with the NCCL
// emulation's work (impl/nccl_emulation.h), is compiled once for every program (runtime/src/program/).
#pragma once

#ifndef CUCO_PROGRAM_WORKLOAD
#error "define CUCO_PROGRAM_WORKLOAD (the workload's name) before including cuco/program/reference.h"
#endif

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include <cuco/workload_spec.h>
#include <cuco/program/program.h>
#include <cuco/program/impl/reference_check.h>
#include <cuco/program/impl/reference_engine.h>
#include <cuco/program/impl/reference_shims.h>
#include <cuco/program/mpi.h>
#include <cuco/program/impl/program_exit.h>

#ifdef CUCO_PROGRAM_CAPTURES_GRAPHS
#include <cstdlib>
// A program that captures CUDA graphs (cuco init defines the flag): its reference runs every rank's
// streams in the supervisor, and its NCCL calls captured in graphs wait for each other in kernels
// (impl/nccl_emulation_captured.h). With CUDA's default 8 hardware queues two ranks' streams can
// share one, and a waiting kernel then holds up the kernel it waits for: 32, CUDA's most, set during
// static initialization, before the supervisor's first CUDA call. Only here: more queues make every
// CUDA context slower to create (about 1.2 s more per evaluation stage at W=2 under MPS).
[[maybe_unused]] static const bool kCucoWideHardwareQueues = ::setenv("CUDA_DEVICE_MAX_CONNECTIONS", "32", 1) == 0;
#endif

namespace cuco_frozen {

const char* workload_name() { return CUCO_PROGRAM_WORKLOAD; }

cuco::Status validate_sizes(const cuco::Sizes& sizes, int world) {
  if (world < 1 || world > cuco_program::emu::kMaxRanks) return cuco::Status::Error("world size must be in [1, 64]");
  return cuco_program::ref::EnsureStarted(world, sizes);
}

std::vector<BufferSpec> buffers(const cuco::Sizes& sizes, int rank, int world) {
  if (cuco::Status st = cuco_program::ref::EnsureStarted(world, sizes); !st.ok()) {
    std::fprintf(stderr, "cuco reference: %s\n", st.message().c_str());
    return {};
  }
  return cuco_program::ref::BufferSpecs(rank);
}

int64_t output_rows(const cuco::Sizes& sizes, int rank, int world) {
  if (!cuco_program::ref::EnsureStarted(world, sizes).ok()) return 0;
  return cuco_program::ref::OutputRows(rank);
}

cuco::Status fill_inputs(const cuco::Sizes& sizes, int rank, int world, uint64_t seed, const cuco::IO& io, cudaStream_t stream) {
  if (cuco::Status st = cuco_program::ref::EnsureStarted(world, sizes); !st.ok()) return st;
  return cuco_program::ref::FillInputs(rank, seed, io, stream);
}

cuco::Status check(const cuco::Sizes& sizes, int rank, int world, uint64_t seed, const cuco::IO& io, const CheckPlan& plan,
                   cudaStream_t stream, CheckResult* result) {
  if (cuco::Status st = cuco_program::ref::EnsureStarted(world, sizes); !st.ok()) return st;
  return cuco_program::ref::Check(rank, seed, io, plan, stream, result);
}

}  // namespace cuco_frozen
