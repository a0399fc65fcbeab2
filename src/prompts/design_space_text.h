// Design-space text: what a language model is told about the space it searches.
//
//  - DesignSpaceText(): the five dimensions of the CUCo paper (communication backend, placement,
//    synchronisation scope, issuer granularity, chunk size), marked with what this machine can run
//    when a Toolchain is given;
//  - HarnessRulesText(): the rules cuco's harness enforces on every candidate;
//  - InstalledCommApiText(): the communication API actually installed, as compact declarations
//    extracted (header_declarations.h) from the NCCL (nccl.h, nccl_device/*.h) and NVSHMEM headers
//    `cuco doctor` found;
//  - HardwareFactsText(): GPUs, SM counts, NVLink topology, NICs.
// Everything here is plain text for prompts; nothing touches the network.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "toolchain/toolchain.h"

namespace cuco {

// The five design-space dimensions with their options. With a toolchain, each backend says
// whether this machine has what it needs (device API, LSA, GIN + RDMA NICs, NVSHMEM).
std::string DesignSpaceText(const Toolchain* tc = nullptr);

// The harness rules (streams, events, poisoned outputs, random verification, deny-list).
std::string HarnessRulesText();

// The installed communication API: nccl_device/*.h (core, ptr, lsa_barrier, coop, barrier, ll_a2a,
// the rest, then gin and gin_barrier), nccl.h (without the communicator management the harness
// owns), then NVSHMEM's nvshmem.h/nvshmemx.h (and their host/device API headers) when found; at
// most `max_chars`, cut at a line boundary with a note (lower-priority headers are cut first;
// without RDMA NICs the GIN headers come last). Says so when NCCL has no device API or nothing
// is installed.
std::string InstalledCommApiText(const NcclInstall& nccl, const LibraryInstall& nvshmem, size_t max_chars = 16000,
                                 bool rdma_nics = true);
std::string InstalledCommApiText(const Toolchain& tc, size_t max_chars = 16000);

// Hardware facts for the prompt: each GPU (name, SMs, memory, compute capability), the link
// matrix (NVLink / PCIe), RDMA NICs, CUDA/NCCL/NVSHMEM versions.
std::string HardwareFactsText(const Toolchain& tc);

}  // namespace cuco
