// WorkloadConfig: a workload folder's workload.toml, parsed and checked.
// The schema is documented in docs/workload-contract.md. Every error names the
// file and line of the offending key.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "util/status.h"

namespace cuco {

// One design-space knob a workload exposes to the search. Values are kept as
// text (the TOML value printed plainly) so knobs of any scalar type compare.
struct Knob {
  std::string name;
  std::vector<std::string> values;
  std::string default_value;
  std::string description;
  bool search = true;  // false: only variants set it (e.g. `part`); searches keep the default
};

// A named point of the design space the workload ships: a file (generation 0 unless given)
// with some knobs set. `cuco bench` runs every variant; `part` marks the compute-alone and
// communication-alone runs that give the overlap bound (timed, not verified).
struct Variant {
  std::string name;
  std::string description;
  std::string file;                           // relative to the workload folder
  std::map<std::string, std::string> knobs;   // knob -> value (as workload.toml writes values)
  std::string part;                           // "" (a full, verified variant) | "compute" | "comm"
  int line = 0;                               // of its [[variants]] table, for messages
};

// Settings of several knobs that cannot run together ([[excluded]]): a candidate with all of them
// is stored not evaluated, with `why` (cuco transform excludes the copy-engine backend with graph
// "on": cuco's copy-engine collectives cannot be captured into a CUDA graph).
struct KnobExclusion {
  std::map<std::string, std::string> knobs;  // knob -> value, two or more
  std::string why;
  int line = 0;  // of its [[excluded]] table, for messages
};

// What one rank's parts of the bound do ([work]), for the achieved rates `cuco bench` prints
// beside the device's peak (docs/performance.md): integer expressions (util/int_expr.h) over the
// sizes and W, the world size. Empty when the workload states none.
struct WorkSpec {
  std::string compute_flops;  // floating-point operations of the compute part, per rank
  std::string comm_bytes;     // bytes the communication part sends over the links, per rank
  int compute_line = 0, comm_line = 0;
};

// Program mode: how to read a program's own output (untrusted).
struct ProgramSpec {
  // "cuco": cuco's launcher starts one process per rank (CUCO_RANK / RANK, ... in each one's
  // environment); "mpirun": mpirun -np W; "single": ONE process that drives all W GPUs itself
  // (ncclCommInitAll, a loop of ncclCommInitRank in a group, or a thread per GPU), started once
  // with W GPUs visible.
  std::string launcher = "cuco";
  std::vector<std::string> args;   // extra arguments to the program
  std::string time_regex;          // first capture group = milliseconds
  std::string pass_regex;
  std::string fail_regex;          // optional
};

struct WorkloadConfig {
  std::filesystem::path dir;       // the workload folder (absolute)
  std::filesystem::path toml_path;
  std::string name;
  std::string description;
  std::string mode = "harness";    // "harness" | "program"
  std::string language = "cuda";   // "cuda" | "cpu"
  std::string seed_file;           // relative to dir
  std::string reference_file;      // relative to dir; harness mode only
  std::string generation0_file;    // relative to dir; the search's start (defaults to seed_file)
  int world_size = 1;
  std::vector<int> world_sizes;    // supported sizes; contains world_size
  // Absolute paths of the files or folders the program reads that its arguments name (a training
  // set): bound read-only into every candidate's sandbox, whose /tmp is its own.
  std::vector<std::string> reads;
  // Folders the program writes files into by a path relative to where it runs (`Output` of
  // "Output/Field-%d.tec"): plain relative paths, made empty in each run's working folder and in
  // each candidate's private /tmp, where it starts.
  std::vector<std::string> run_folders;
  // As loaded: an include folder or file named relative to the workload folder (`-Iinclude`,
  // `-I _up/common`, as cuco init writes a program's own) is made absolute against dir.
  std::vector<std::string> build_flags;
  std::vector<std::string> build_libs;
  // Program mode: the program's other source files (relative to dir), compiled and linked with the
  // seed; its own headers sit in dir, which every compile has on its include path.
  std::vector<std::string> build_sources;
  std::map<std::string, int64_t> verify_sizes;
  std::map<std::string, int64_t> bench_sizes;
  double tol_rel_l2 = 0;
  double tol_max_abs = 0;
  int warmup = 5;
  int iters = 20;
  int verify_runs = 2;
  double verify_fraction = 0.25;
  double compile_s = 600;
  double verify_s = 120;
  double bench_s = 300;
  // One iteration's GPU work (harness mode): past it the harness reports a hang and exits, so a
  // candidate that deadlocks costs this, not the whole stage limit.
  double iteration_s = 30;
  std::vector<Knob> knobs;         // the knobs marked in generation 0
  std::vector<Variant> variants;
  std::vector<KnobExclusion> excluded;
  WorkSpec work;
  std::optional<ProgramSpec> program;

  std::filesystem::path SeedPath() const { return dir / seed_file; }
  std::filesystem::path ReferencePath() const { return dir / reference_file; }
  std::filesystem::path Generation0Path() const { return dir / generation0_file; }
  const Knob* FindKnob(const std::string& name) const;
  // The first exclusion whose every setting `knobs` (knob -> value) has; nullptr when none.
  const KnobExclusion* ExclusionOf(const std::map<std::string, std::string>& knobs) const;
};

// The value of a [work] expression at `sizes` and world size `world` (nullopt: not stated, or it
// does not evaluate there, e.g. a division by zero).
std::optional<int64_t> EvalWork(const std::string& expr, const std::map<std::string, int64_t>& sizes, int world);

// Applies `--size NAME=VALUE` settings to the bench sizes (the verify sizes stay as declared).
// NAME must be one of the workload's bench sizes; VALUE an integer. Errors name the setting.
Status OverrideBenchSizes(WorkloadConfig* workload, const std::vector<std::string>& settings);

// The workload at `path` with `cuco eval`'s and `cuco bench`'s overrides: `bench_sizes` ("NAME=VALUE",
// OverrideBenchSizes) and the verify / bench time limits where > 0. Every error is kInvalidArgument,
// naming the file or the setting.
Result<WorkloadConfig> LoadWorkloadWithOverrides(const std::string& path, const std::vector<std::string>& bench_sizes,
                                                 double verify_limit_s, double bench_limit_s);

// A --world-size N (<= 0: not given) among the workload's world_sizes: Ok, else kInvalidArgument
// "--world-size N: not among the world_sizes of <workload.toml>".
Status CheckWorldSizeListed(const WorkloadConfig& workload, int world_size);

// The largest of the workload's world_sizes that `gpus` GPUs can run; 0 when none fits.
int LargestWorldSizeWithin(const WorkloadConfig& workload, int gpus);

// Loads <workload_dir>/workload.toml (or the given .toml file itself).
Result<WorkloadConfig> LoadWorkload(const std::filesystem::path& workload_dir_or_toml);
// The same from `text`, as the file `toml_path` (absolute) would hold it: parsed, and the files it
// names checked. Each call is one parse (util/read_trace.h: "workload.toml", the path and the
// text's hash): a command parses a text once and passes the workload down.
Result<WorkloadConfig> LoadWorkloadText(const std::string& text, const std::filesystem::path& toml_path);

// `flags` with the path of each -I, -isystem, -iquote and -include (joined, `-Idir`, or the next
// word) made absolute against `dir` when it is relative; every other flag as it is. A pre-included
// header not in `dir` (`-include=cstdio`) stays a name, for the compiler's include search.
std::vector<std::string> AbsoluteIncludeFlags(const std::vector<std::string>& flags, const std::filesystem::path& dir);
// Parses TOML text as if read from `path` (for tests and error messages).
Result<WorkloadConfig> ParseWorkload(const std::string& text, const std::filesystem::path& path);

}  // namespace cuco
