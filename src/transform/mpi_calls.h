// The MPI collectives `cuco transform` routes through the backend knob in a program that
// communicates through CUDA-aware MPI alone (no NCCL call): cuco/program/codesign.h's mpi_comm,
// runtime/src/program/mpi_collectives.cu. Point-to-point MPI is not routed: the candidate's MPI
// already moves it by NCCL (cuco/program/impl/mpi_p2p.h).
#pragma once

#include <string>
#include <vector>

#include "transform/seed_source.h"

namespace cuco::transform_internal {

// "MPI_Allreduce" -> "cuco_program::mpi_comm::Allreduce"; "" for a call that is not routed.
std::string MpiDispatchName(const std::string& name);

// Whether backend "ce" moves the call by copy engines (it reduces or all-gathers).
bool MpiCeCall(const std::string& name);

// The buffer argument of `call` (a routed MPI collective of `src`) that is host memory as written,
// "" when none: the address of a variable (`&local`) or a container's host data (`v.data()`). Such a
// call stays the program's own at every backend, so it is not routed.
std::string MpiHostBuffer(const SeedSource& src, const SeedCall& call);

// The MPI collectives of the EVOLVE blocks the backend knob can move: routed calls with no host
// buffer as written. `host` gets each routed call left out, "MPI_Allreduce at line 63 (`&local`)".
std::vector<SeedCall> MpiRoutedCalls(const SeedSource& src, std::vector<std::string>* host);

// The knob lines (at the top of the first block) and workload.toml's [[knobs]] entry of the backend
// knob for such a program: default "mpi" (its own calls, by NCCL in cuco's MPI), then "lsa" and, with
// `ce_calls`, "ce".
std::string MpiKnobLines();
std::string MpiBackendToml(bool ce_calls);

}  // namespace cuco::transform_internal
