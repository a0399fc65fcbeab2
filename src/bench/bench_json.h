// The JSON of `cuco bench`, in one place: what bench_run.h writes and what report/ reads
// (`cuco report --bench`).
//
// The JSON ("schema": "cuco-bench/2"; <run-dir>/bench.json, and --json FILE):
//   workload, workload_dir, label, date_utc, finished_utc, hostname, command_line (argv joined),
//   cuco_version, cuco_commit (null when unknown), cuco_tree_dirty, cuco_commit_source,
//   language, world_size, gpu_count, gpus_used, devices [{index, name, memory_bytes, sm_count,
//   compute_capability, pci_bus_id}], no_gpu,
//   versions {nccl, nccl_code, cuda, driver, driver_cuda, torch}, runtime_versions (as the harness
//   saw them: {nccl, cuda_runtime, cuda_driver}), sizes {bench, verify}, timing {warmup, iters,
//   verify_runs, verify_fraction}, work {compute_flops, comm_bytes} (workload.toml [work]), run_dir, store,
//   timing_plan {method, mps, control, why, comparable_with_peers}: decided up front
//   (evaluate/gpu_session.h; each record says how it was timed itself),
//   entries [{name, kind: seed|variant|part|candidate, file, variant, part, knobs, description,
//             store_id, record: the EvalRecord's ToJson (stages, errors, timing, rank metrics,
//             timing_method, gpu_session)}],
//   peers {script, status: ok|failed|skipped, reason, torch, python, argv, log_dir, gpus, seconds,
//          timing_method, gpu_session, output: the peer's own result file},
//   table {rows [{name, kind, status, status_text, verified, part, median_ms, p10_ms, p90_ms,
//                 speedup_vs_seed, speedup_vs_best_peer, to_bound, bound_over_t, reason, detail,
//                 method, comparable_with_peers, peer_checked, work, rate, rate_unit, of_peak}],
//          seed {entry, ms}, best_peer {entry, ms},
//          bound {known, ms, compute_ms, compute_entry, compute_kind, comm_ms, comm_entry,
//                 comm_kind, why_unknown}: the honest bound, over every part timed (cuco's and
//                 the peers'); own_bound {...}: cuco's parts only; peer_bound {...},
//          rates {device, peak {model, bf16_dense_tflops, nvlink_gbps_per_dir, source} | null,
//                 compute_flops, comm_bytes}, timing_note},
//   table_text (what was printed), exit_code.
// cuco-bench/1 (before the honest bound) had no own_bound, rates or timing_note, and its `bound`
// was cuco's own parts.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "util/status.h"

namespace cuco {

inline constexpr const char* kBenchSchema = "cuco-bench/2";  // what is written now
inline constexpr const char* kBenchSchemaV1 = "cuco-bench/1";  // still read
// The JSON's exit_code: cuco bench's (cli/exit_code.h, whose kExitOk and kExitCandidateFailed
// cmd_bench.cc checks these against): 1 when an entry was evaluated and failed, else 0.
inline constexpr int kBenchExitOk = 0;
inline constexpr int kBenchExitEntryFailed = 1;

// The schema of a bench JSON that cuco reads (kBenchSchema or kBenchSchemaV1, with a table);
// kInvalidArgument naming `path` otherwise.
Result<std::string> BenchSchemaOf(const nlohmann::json& doc, const std::string& path);

}  // namespace cuco
