// What cuco init says to a program with no communication op: no NCCL call, and none of the MPI calls
// that are a program's communication where it makes no NCCL call (analyze/api_specs.cc: point-to-point
// and the blocking collectives) — its data moved by one-sided MPI or nonblocking collectives, say. It
// names the MPI calls that move data, each with the memory its buffer is in where the analysis knows
// it; device memory handed to MPI (CUDA-aware MPI) is told so, with the NCCL call each becomes.
#pragma once

#include <string>
#include <vector>

#include "analyze/analysis.h"

namespace cuco::scaffold_internal {

struct MpiDataCall {
  std::string api;      // "MPI_Sendrecv"
  std::string file;     // as in Analysis::files
  int line = 0;
  // Its first buffer argument on device memory as written ("d_A"), else its first ("&local",
  // "buffN.device_data()"); MPI_IN_PLACE is none.
  std::string buffer;
  // Where that buffer was allocated on the device, "file:line (cudaMalloc of `d_A`)"; "" when the
  // analysis knows of no device allocation of any of the call's buffers.
  std::string device_alloc;
};

// The MPI calls of the analysed files (their C++ texts, `Analysis::cpp_texts` where a C file needed
// one) that move data, in file and source order.
std::vector<MpiDataCall> FindMpiDataCalls(const Analysis& analysis);

// The refusal of a program without NCCL calls (`program_path` as given): it names the MPI calls that
// move data, the first on device memory first, and the NCCL calls to write instead; without any,
// that cuco init scaffolds programs communicating through NCCL.
std::string NoNcclMessage(const Analysis& analysis, const std::string& program_path);

}  // namespace cuco::scaffold_internal
