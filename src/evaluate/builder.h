// L1: building a candidate into something that runs, through a content-hash
// cache so identical code is never compiled twice (failures are cached too,
// with their diagnostics).
//
// Harness mode builds two executables. The supervisor (cuco's frozen runtime/src/supervisor/ and
// common/ plus the workload's reference) never contains candidate code; the candidate executable
// is the candidate plus the frozen candidate runtime (runtime/src/candidate/, common/, program/) and never
// contains the reference. Program mode compiles the candidate program alone. CUDA workloads use
// nvcc; CPU workloads the host compiler. Paths come from the detected Toolchain, never from constants.
//
// What is compiled once, in the cache (every entry written whole or not at all, under a lock):
//   runtime-<key>/   the runtime's objects, compiled with cuco's own flags, not the workload's:
//                    one set per toolchain and runtime text, shared by every workload
//   frozen-<key>/    a workload's reference object and its supervisor, keyed by the runtime, the
//                    workload's flags and libraries, and the files the reference and the candidate
//                    can include (the reference, [build] sources, every header of the workload
//                    folder and what they include by name); not by the folder's other sources, so
//                    a generation 0 written beside the seed changes nothing compiled before it
//   cand-<key>/      one candidate: the frozen key and its code
//   knobfree-<key>/  a program candidate's code with its knob values taken out (runtime_knobs.h) and
//                    the program's other files: compiled once for every setting of the knobs, each
//                    cand-<key>/ then compiling only its values (knob_values.cc) and linking
#pragma once

#include <filesystem>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "evaluate/runtime_knobs.h"
#include "toolchain/toolchain.h"
#include "util/status.h"
#include "workload/workload_config.h"

namespace cuco {

struct BuildResult {
  bool ok = false;
  bool cached = false;          // taken from the cache, nothing compiled
  // Its code was compiled before with other knob values (knobfree-<key>/): only its values were
  // compiled, then linked.
  bool knob_values_only = false;
  std::string executable;       // when ok: the candidate (harness mode) or the program
  std::string supervisor;       // harness mode, when ok: the frozen supervisor that runs it
  std::string reference_object; // harness mode, when ok: the frozen reference's object (the user's own names)
  std::string object;           // the candidate's own object file (for the object checks; knob-free when shared)
  std::string source;           // the candidate's file as compiled (in the cache): what the compiler's messages cite
  // A compile or the link was ended by a signal cuco did not send (launch/interrupts.h: Ctrl-C,
  // SIGTERM...): no verdict on the code, and not cached.
  bool interrupted = false;
  std::string log;              // compiler and linker output (whole)
  std::string log_path;
  std::string key;              // content hash of everything that went into it
  double seconds = 0;
  std::vector<std::vector<std::string>> commands;  // what was (or would be) run
};

// The compile cache: $CUCO_CACHE_DIR, else $XDG_CACHE_HOME/cuco, else ~/.cache/cuco, else a temp folder.
std::filesystem::path DefaultCacheDir();

class Builder {
 public:
  // `cache_dir` may be relative (--cache-dir, $CUCO_CACHE_DIR): it is made absolute here, once,
  // against the current working directory.
  Builder(std::filesystem::path cache_dir, const WorkloadConfig& workload, const Toolchain& toolchain);

  // Compiles and links `code` (a candidate for this workload). Thread-safe;
  // concurrent builds of the same key wait for one another.
  Result<BuildResult> Build(const std::string& code, double timeout_s);

  // Every compile and link of Build runs inside the sandbox (launch/sandbox.h): no network, a
  // private /tmp, writes only to its own build folder, no environment but PATH. On by default;
  // off only for --unsafe-no-sandbox.
  void set_sandboxed(bool on) { sandboxed_ = on; }
  bool sandboxed() const { return sandboxed_; }

  // Compile checks only: a candidate's own device code without optimisation (nvcc -Xptxas -O0;
  // the host object, which the object check reads, is built as always; CPU workloads are built as
  // always); part of the candidate's cache key. The frozen side is the same either way. Such an
  // executable must never be timed.
  void set_unoptimized(bool on) { unoptimized_ = on; }

  // The command that preprocesses `source` (a candidate file) exactly as Build compiles it (the
  // compile command with `-c src -o obj` replaced by `-E src`), inside the sandbox when sandboxed.
  // The deny-list scans its output (workload/deny_list.h, CheckDenyListPreprocessed).
  Result<std::vector<std::string>> PreprocessCommand(const std::filesystem::path& source) const;

  // The command that compiles `source` (a candidate file) into `object` exactly as Build compiles a
  // candidate, outside the sandbox: what a test runs to check an object as Build would make it.
  std::vector<std::string> CandidateCompileCommand(const std::filesystem::path& source,
                                                   const std::filesystem::path& object) const;

  // Builds the small GPU health probe (runtime/src/gpu_probe.cu).
  Result<BuildResult> BuildGpuProbe(double timeout_s);

 private:
  struct Unit {
    std::filesystem::path source;
    std::filesystem::path object;
    bool runtime = false;  // a runtime/src unit: cuco's runtime flags (-I runtime/src), never the workload's
    bool link = true;      // linked into BuildInDir's executable (false: compiled for a later link)
    std::vector<std::string> extra_flags;  // a runtime unit's own (cudnn_sdpa.cu: the cuDNN headers)
    bool candidate = false;  // the candidate's own (set_unoptimized applies)
  };
  static Unit RuntimeUnit(std::filesystem::path source, std::filesystem::path object) {
    Unit u;
    u.source = std::move(source);
    u.object = std::move(object);
    u.runtime = true;
    return u;
  }
  static Unit WorkloadUnit(std::filesystem::path source, std::filesystem::path object) {
    Unit u;
    u.source = std::move(source);
    u.object = std::move(object);
    return u;
  }
  // The runtime's objects of both sides, compiled when missing (under the runtime folder's lock).
  // `supervisor_side` and `candidate_side` get the objects each executable links.
  Result<BuildResult> BuildRuntime(std::vector<Unit>* supervisor_side, std::vector<Unit>* candidate_side,
                                   double timeout_s);
  // The frozen side of a harness-mode workload (under a lock): the runtime's objects, then the
  // reference object and the supervisor executable in `fdir`. Fails with a log when they do not
  // compile. `runtime_units` gets the candidate runtime's objects.
  Result<BuildResult> BuildFrozen(const std::filesystem::path& fdir, std::vector<Unit>* runtime_units,
                                  double timeout_s);
  std::vector<std::string> CompileCommand(const Unit& u, const std::filesystem::path& object) const;
  std::vector<std::string> LinkCommand(const std::vector<std::filesystem::path>& objects,
                                       const std::filesystem::path& exe) const;
  // The sandbox prefix for a compile that writes only into `dir`.
  Result<std::vector<std::string>> CompileSandbox(const std::filesystem::path& dir, double timeout_s) const;
  // Compiles the units whose objects are missing (side by side, at most one per core), then links
  // the `link` units into `exe` unless it is empty. Writes only under `dir`.
  Result<BuildResult> BuildInDir(const std::filesystem::path& dir, const std::vector<Unit>& units,
                                 const std::filesystem::path& exe, double timeout_s);
  // The objects of a program candidate's knob-free code and of the program's other files, in
  // knobfree-<key>/ (under its lock), compiled when missing; when they compiled (ok), link-only units
  // of them are appended to `units`. A compile error is kept ("failed": later candidates of the same
  // code go straight to a whole compile); a stop or a timeout is not.
  // The candidate's own units for its folder `dir`: the knob-free objects and a unit of its values
  // where it has runtime knobs that compile so (`shared` then ok), else its code (`source` ->
  // `object`) and the program's other files, whole. A result to hand back as it is (the knob-free
  // compile was stopped or ran out of time), or nullopt to build on.
  Result<std::optional<BuildResult>> AddCandidateUnits(const std::string& code, const std::filesystem::path& dir,
                                                       const std::filesystem::path& source,
                                                       const std::filesystem::path& object, double timeout_s,
                                                       std::vector<Unit>* units, BuildResult* shared);
  std::filesystem::path KnobFreeDir(const RuntimeKnobs& knobs) const;
  Result<BuildResult> BuildKnobFreeObjects(const RuntimeKnobs& knobs, double timeout_s, std::vector<Unit>* units);
  std::string EnvironmentKey() const;
  std::string RuntimeKey() const;
  // The hash of what a workload's reference and candidates can include from the workload (see above).
  std::string WorkloadFilesHash() const;

  std::filesystem::path cache_dir_;
  WorkloadConfig workload_;
  Toolchain toolchain_;
  std::filesystem::path runtime_dir_;
  std::string env_key_;      // frozen-<key>: runtime, workload flags and files
  std::string runtime_key_;  // runtime-<key>: compiler, runtime flags and text
  std::string arch_flag_;  // CUDA: the one -gencode of every compile and link (PreferredCudaArch)
  std::vector<std::string> common_flags_, link_flags_;
  std::vector<std::string> runtime_flags_;  // the runtime units' flags (cuco's, not the workload's)
  std::vector<std::string> cudnn_flags_;    // cudnn_sdpa.cu's include folders
  std::vector<std::filesystem::path> extra_frozen_;  // runtime units some libs need ("cudnn": cudnn_sdpa.cu)
  std::string missing_;  // a library the workload needs and this machine lacks: every build fails with it
  std::string compiler_;
  bool sandboxed_ = true;
  bool unoptimized_ = false;
};

}  // namespace cuco
