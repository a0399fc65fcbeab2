// The CPU harness: the same contract as the GPU harness (cuco/harness.h), for
// workloads whose candidates are plain C++ compiled with the host compiler.
// cuco uses it to test its own evaluator without a GPU; a CPU workload is a
// folder with workload.toml (language = "cpu"), a seed and a reference.
//
// A candidate defines, inside its EVOLVE blocks:
//   bool cuco_candidate_setup(cuco::cpu::RankContext&, const cuco::cpu::Sizes&, void** state);
//   bool cuco_candidate_run(cuco::cpu::RankContext&, void* state, const cuco::cpu::IO& io);
//   void cuco_candidate_teardown(cuco::cpu::RankContext&, void* state);
// Returning false is a candidate error (the message goes in ctx.error).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace cuco::cpu {

// Problem sizes by name, from the workload's [sizes.verify] or [sizes.bench].
class Sizes {
 public:
  explicit Sizes(std::map<std::string, int64_t> values) : values_(std::move(values)) {}
  bool has(const char* name) const { return values_.count(name) != 0; }
  int64_t get(const char* name) const;  // exits the harness with a clear message if missing
  const std::map<std::string, int64_t>& all() const { return values_; }

 private:
  std::map<std::string, int64_t> values_;
};

struct Buffer {
  void* ptr = nullptr;
  size_t bytes = 0;
};

enum class Role { kInput, kOutput };

struct BufferSpec {
  std::string name;
  size_t bytes;
  Role role;
};

// The buffers of one iteration, by name. Output buffers may change between calls.
class IO {
 public:
  const Buffer& in(const char* name) const;
  const Buffer& out(const char* name) const;
  std::map<std::string, Buffer> inputs, outputs;
};

struct RankContext {
  int rank = 0;
  int world_size = 1;
  std::string error;  // set by a candidate that returns false
};

}  // namespace cuco::cpu

// --- The workload's frozen side (its reference file), called only by the harness. ---
namespace cuco_frozen::cpu {

struct CheckResult {
  double rel_l2 = 0;        // ||out - ref|| / ||ref|| over checked elements (NaN if any is non-finite)
  double max_abs = 0;       // max |out - ref|
  int64_t nonfinite = 0;    // NaN/Inf outputs among the checked
  int64_t elements = 0;     // elements checked
};

std::vector<cuco::cpu::BufferSpec> workload_buffers(const cuco::cpu::Sizes& sizes, int rank, int world);
void workload_fill_inputs(const cuco::cpu::Sizes& sizes, int rank, int world, uint64_t seed, const cuco::cpu::IO& io);
// Checks `rows` of this rank's output (all rows when empty) against a reference
// computed from regenerated inputs.
CheckResult workload_check(const cuco::cpu::Sizes& sizes, int rank, int world, uint64_t seed,
                           const cuco::cpu::IO& io, const std::vector<int64_t>& rows);
// Number of checkable rows in this rank's output.
int64_t workload_rows(const cuco::cpu::Sizes& sizes, int rank, int world);

// Counter-based uniform value in [-1, 1) for element `index` of tensor `tensor` on `rank`.
inline double uniform(uint64_t seed, uint64_t tensor, uint64_t rank, uint64_t index) {
  uint64_t z = seed ^ (tensor * 0x9E3779B97F4A7C15ull) ^ (rank * 0xD1B54A32D192ED03ull) ^ (index * 0x94D049BB133111EBull);
  z += 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return static_cast<double>(z >> 11) * (2.0 / 9007199254740992.0) - 1.0;
}

}  // namespace cuco_frozen::cpu

bool cuco_candidate_setup(cuco::cpu::RankContext& ctx, const cuco::cpu::Sizes& sizes, void** state);
bool cuco_candidate_run(cuco::cpu::RankContext& ctx, void* state, const cuco::cpu::IO& io);
void cuco_candidate_teardown(cuco::cpu::RankContext& ctx, void* state);
