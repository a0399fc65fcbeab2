// The rule-based transform of a seed made of the user's program (`cuco init`; cuco/program/): its
// NCCL calls are the program's own code, so the rewrite gives them the design space of
// cuco/program/codesign.h instead of fixing one backend:
//   - at the top of the first EVOLVE block at file scope: the knobs `backend` ("nccl" | "lsa") and
//     `graph` ("off" | "on"), marked `// cuco:knob`, and the static initialiser that hands the graph
//     knob to the runtime;
//   - every NCCL call inside the blocks: ncclAllReduce(args) -> cuco_program::comm::AllReduce(kCucoBackend, args),
//     likewise every call NcclMap knows (collectives, send/recv, group start/end).
//   - the chunks knob ("1" | "2" | "4" | "8") where an all-reduce or reduce-scatter reads what the
//     call statement before it writes (producer_sites.h) and the blocks call a GEMM the runtime can
//     split: a cuco_program::overlap::Producer declared before that statement, and every GEMM call
//     of the blocks (cublasSgemm, cublasHgemm, cublasGemmEx, cublasLtMatmul) replaced by its
//     stand-in; a collective that cannot have it is named in a warning, with why.
//   - a program with no NCCL call that communicates through CUDA-aware MPI: its MPI collectives in the
//     blocks whose buffers are not host memory as written take the backend knob instead
//     (mpi_calls.h: MPI_Allreduce(args) -> cuco_program::mpi_comm::Allreduce(kCucoBackend, args)), whose
//     values are then "mpi" (its own call, the default, by NCCL in cuco's MPI), "lsa" and, where it
//     reduces or all-gathers, "ce".
// At the knobs' defaults generation 0 does exactly what the program does: correctness first; the
// search then tries the device-initiated backend and the captured iteration. NCCL calls in frozen
// code (the program's set-up) stay as they are. The result's knobs_toml declares the knobs.
#pragma once

#include <string>
#include <vector>

#include "transform/rule_transform.h"
#include "transform/seed_source.h"
#include "util/status.h"

namespace cuco {

// `src` reads `seed` (the text of `seed_path`, a program seed: IsProgramSeed). `build_flags`: its
// build's (relative to the seed's folder), whose include folders inside that folder the files it
// includes resolve in. Errors name seed_path and a line: no NCCL call in the blocks nor in the files it
// includes, or no block for the knobs.
Result<RuleTransformResult> ProgramTransform(const std::string& seed, const std::string& seed_path,
                                             const transform_internal::SeedSource& src,
                                             const std::vector<std::string>& build_flags = {});

}  // namespace cuco
