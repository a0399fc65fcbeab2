// cuco/workload_spec.h: the interface between the harness and a workload's frozen side.
//
// Each harness-mode workload has a reference.cu that defines the functions below (in namespace
// cuco_frozen, a name candidates may not use). The harness calls them; candidates never see them.
//
// Rules a reference.cu follows, because the harness's verdicts rest on them:
//   - fill_inputs writes every input element as a pure function of (seed, tensor, rank, index), on
//     the device, with the counter-based generator in cuco/impl/random.h;
//   - check REGENERATES the inputs of every rank from the seed (it never reads the input buffers,
//     which the candidate may have changed), computes the reference only then (the harness calls it
//     after the candidate's iteration has finished), compares in fp64, and scrubs whatever scratch
//     memory it used before returning: no reference answer exists in device memory while candidate
//     code runs;
//   - everything is deterministic: the same seed gives the same figures.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#include <cuco/harness.h>

namespace cuco_frozen {

// Element type of a buffer: the harness needs it to poison and scan outputs.
enum class DType : int { kBF16 = 0, kF16, kF32, kF64, kI32, kI64, kU8 };

inline size_t dtype_bytes(DType t) {
  switch (t) {
    case DType::kBF16:
    case DType::kF16: return 2;
    case DType::kF32:
    case DType::kI32: return 4;
    case DType::kF64:
    case DType::kI64: return 8;
    case DType::kU8: return 1;
  }
  return 1;
}
inline const char* dtype_name(DType t) {
  switch (t) {
    case DType::kBF16: return "bf16";
    case DType::kF16: return "f16";
    case DType::kF32: return "f32";
    case DType::kF64: return "f64";
    case DType::kI32: return "i32";
    case DType::kI64: return "i64";
    case DType::kU8: return "u8";
  }
  return "?";
}
inline bool dtype_is_float(DType t) {
  return t == DType::kBF16 || t == DType::kF16 || t == DType::kF32 || t == DType::kF64;
}

enum class Role : int { kInput = 0, kOutput = 1 };

struct BufferSpec {
  std::string name;   // what IO::in / IO::out call it
  Role role;
  DType dtype;
  int64_t elements;   // on this rank
};

// Which rows of this rank's output check() compares. Rows are the workload's unit of checking
// (output_rows() of them on this rank), indexed from 0 on every rank.
struct CheckPlan {
  bool all_rows = true;
  std::vector<int64_t> rows;  // when !all_rows: distinct, each in [0, output_rows)
};

// check()'s figures. rel_l2 = ||out - ref|| / ||ref|| and max_abs = max |out - ref| over the finite
// compared elements, accumulated in fp64; nonfinite counts NaN/Inf among the compared outputs.
// The harness, not check(), fills poison_left / poison_elements (from its scan of whole buffers).
struct CheckResult {
  double rel_l2 = 0;
  double max_abs = 0;
  int64_t nonfinite = 0;
  int64_t elements_checked = 0;
  int64_t rows_checked = 0;
  int64_t poison_left = 0;
  int64_t poison_elements = 0;
  // Bit k: output k (in buffers()' order of outputs) holds the same values in another order on each
  // run of the reference, so it is checked without its order; the fresh-buffers agreement of two
  // candidate runs then compares it without its order too (a program's own reference only:
  // cuco/program/impl/output_order.h).
  uint64_t unordered_outputs = 0;
  // A program's own reference only: its float inputs are its own state at the timed loop, scaled
  // per seed, because its own check ended a run on fresh random ones (an iterative solver that does
  // not converge from noise; docs/workload-contract.md).
  bool own_state_inputs = false;
  // What max_abs was divided by: 1 where it is absolute; a program's own reference divides by the
  // RMS of its outputs (the program's scale is its own). The supervisor judges the fresh-buffers
  // agreement of two candidate runs on the same scale.
  double max_abs_scale = 1;
  // Elements of this rank's outputs that the program's own iteration leaves alone on this seed, as
  // runs [begin, end) of output `output` (in buffers()' order of outputs; a program's own reference
  // only: cuco/program/impl/left_alone.h). They are not compared; the harness allows the poison
  // they hold and leaves them out of the fresh-buffers agreement.
  struct Run {
    int output = 0;
    int64_t begin = 0, end = 0;
  };
  std::vector<Run> left_alone;
  int64_t left_alone_elements = 0;
};

// ---- Implemented by each workload's reference.cu ----

// The workload's name (as in workload.toml), for the metrics.
const char* workload_name();

// Ok, or a clear message when the sizes cannot be run with `world` ranks (missing or bad sizes).
cuco::Status validate_sizes(const cuco::Sizes& sizes, int world);

// The buffers of one rank, inputs and outputs, in a fixed order (the harness allocates and
// registers them in this order on every rank; windows are registered with the largest size any
// rank needs, so the order and count must not depend on the rank).
std::vector<BufferSpec> buffers(const cuco::Sizes& sizes, int rank, int world);

// How many rows this rank's output has, for CheckPlan.
int64_t output_rows(const cuco::Sizes& sizes, int rank, int world);

// Writes this rank's inputs for `seed` into io's input buffers, enqueued on `stream`.
cuco::Status fill_inputs(const cuco::Sizes& sizes, int rank, int world, uint64_t seed, const cuco::IO& io,
                         cudaStream_t stream);

// Compares io's outputs with the reference for `seed` on the planned rows. Synchronous: returns
// after the figures are on the host and its scratch memory is scrubbed.
cuco::Status check(const cuco::Sizes& sizes, int rank, int world, uint64_t seed, const cuco::IO& io,
                   const CheckPlan& plan, cudaStream_t stream, CheckResult* result);

}  // namespace cuco_frozen
