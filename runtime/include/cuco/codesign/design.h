// cuco/codesign/design.h: the five dimensions of the co-design space, as types.
//
// A generation-0 candidate states its choices as knobs (`constexpr ... // cuco:knob name`) and
// maps them onto these enums at compile time with the *_from() helpers; a search changes the
// knob text, never the code. Names match the values workload.toml declares.
#pragma once

namespace cuco {
namespace codesign {

// Who moves the bytes.
enum class Backend {
  kHostNccl,    // NCCL collectives enqueued by the host (ncclAllGather, ncclReduceScatter, ...)
  kCopyEngine,  // cudaMemcpyAsync between peer buffers (DMA engines; no SMs)
  kLsa,         // NCCL device API: loads/stores over NVLink through symmetric windows (SMs)
  kNvshmem,     // NVSHMEM puts/gets (built with CUCO_WITH_NVSHMEM)
  kGin,         // NCCL device API GPU-initiated networking (needs RDMA NICs)
};

// Where the communication is issued.
enum class Placement {
  kInKernel,    // by the compute kernel itself (e.g. a GEMM whose epilogue stores to a peer)
  kCommKernel,  // a separate communication kernel on its own stream
  kHostStream,  // host-issued operations (collectives, copies) on a separate stream
};

// At what scope readiness is signalled (the unit whose completion a flag announces).
enum class SyncScope { kThread, kWarp, kCta, kGrid };

// Who issues one transfer inside a communication kernel.
enum class Issuer { kThread, kWarp, kCta };

// How a stream waits for a flag and releases one (flags.h).
enum class WaitMode {
  kSpinKernel,       // one-thread kernels poll and write the flag (each needs an SM slot)
  kStreamWaitValue,  // stream memory operations through ctx (the front end; no SM)
};

namespace detail {
constexpr bool same(const char* a, const char* b) {
  while (*a != '\0' && *a == *b) {
    ++a;
    ++b;
  }
  return *a == *b;
}
}  // namespace detail

// Text (as in workload.toml) to enum; unknown text is a compile error when used in a constant
// expression (the throw is not a constant expression).
constexpr Backend backend_from(const char* s) {
  return detail::same(s, "nccl")      ? Backend::kHostNccl
         : detail::same(s, "ce")      ? Backend::kCopyEngine
         : detail::same(s, "lsa")     ? Backend::kLsa
         : detail::same(s, "nvshmem") ? Backend::kNvshmem
         : detail::same(s, "gin")     ? Backend::kGin
                                      : throw "unknown backend";
}
constexpr Placement placement_from(const char* s) {
  return detail::same(s, "in_kernel")     ? Placement::kInKernel
         : detail::same(s, "comm_kernel") ? Placement::kCommKernel
         : detail::same(s, "host_stream") ? Placement::kHostStream
                                          : throw "unknown placement";
}
constexpr SyncScope sync_scope_from(const char* s) {
  return detail::same(s, "thread") ? SyncScope::kThread
         : detail::same(s, "warp") ? SyncScope::kWarp
         : detail::same(s, "cta")  ? SyncScope::kCta
         : detail::same(s, "grid") ? SyncScope::kGrid
                                   : throw "unknown sync scope";
}
constexpr Issuer issuer_from(const char* s) {
  return detail::same(s, "thread") ? Issuer::kThread
         : detail::same(s, "warp") ? Issuer::kWarp
         : detail::same(s, "cta")  ? Issuer::kCta
                                   : throw "unknown issuer";
}
constexpr WaitMode wait_mode_from(const char* s) {
  return detail::same(s, "spin")         ? WaitMode::kSpinKernel
         : detail::same(s, "wait_value") ? WaitMode::kStreamWaitValue
                                         : throw "unknown wait mode";
}
constexpr bool text_is(const char* a, const char* b) { return detail::same(a, b); }

}  // namespace codesign
}  // namespace cuco
