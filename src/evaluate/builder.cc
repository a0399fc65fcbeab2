#include "evaluate/builder.h"

#include "launch/sandbox.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <sstream>
#include <thread>

#include "evaluate/runtime_knobs.h"
#include "launch/interrupts.h"
#include "launch/subprocess.h"
#include "util/file_lock.h"
#include "util/files.h"
#include "util/language_standard.h"
#include "util/runtime_dir.h"
#include "util/sha256.h"
#include "util/source_text.h"

namespace cuco {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> SplitWords(const std::string& s) {
  std::istringstream in(s);
  std::vector<std::string> w;
  for (std::string t; in >> t;) w.push_back(t);
  return w;
}

// A [build] flag as the workload's units compile with it: a language standard as AtLeastCpp17 makes
// it (in nvcc's spelling when `cuda`), -fopenmp as nvcc hands it to the host compiler; any other flag
// as it is.
std::string WorkloadSpelling(const std::string& flag, bool cuda) {
  if (flag == "-fopenmp" && cuda) return "-Xcompiler=-fopenmp";  // a host-compiler flag: nvcc passes it on, linking too
  return AtLeastCpp17(flag, cuda);
}

// Host-compiler flags from mpicc, translated for nvcc where needed.
std::vector<std::string> MpiFlags(const std::string& which, bool for_nvcc) {
  auto run = RunCapture({"mpicc", "--showme:" + which}, 20);
  std::vector<std::string> out;
  if (!run.outcome.ok()) return out;
  for (const auto& w : SplitWords(run.output)) {
    bool plain = w.rfind("-I", 0) == 0 || w.rfind("-D", 0) == 0 || w.rfind("-L", 0) == 0 || w.rfind("-l", 0) == 0;
    if (!for_nvcc || plain) {
      out.push_back(w);
    } else if (w.rfind("-Wl,", 0) == 0) {
      out.push_back("-Xlinker");
      out.push_back(w.substr(4));
    } else {
      out.push_back("-Xcompiler");
      out.push_back(w);
    }
  }
  return out;
}

std::string HashFilesUnder(const fs::path& dir, const std::vector<std::string>& skip_names) {
  std::vector<fs::path> files;
  std::error_code ec;
  if (fs::exists(dir, ec))
    for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator(); ++it) {
      if (!it->is_regular_file()) continue;
      if (!IsSourceFile(it->path())) continue;
      if (std::find(skip_names.begin(), skip_names.end(), it->path().filename().string()) != skip_names.end()) continue;
      files.push_back(it->path());
    }
  std::sort(files.begin(), files.end());
  std::string all;
  for (const auto& f : files) {
    auto text = ReadFile(f);
    all += fs::relative(f, dir).string() + "\n" + (text.ok() ? Sha256Hex(*text) : "?") + "\n";
  }
  return Sha256Hex(all);
}

std::string Join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : " ") + x;
  return s;
}

}  // namespace

Builder::Builder(fs::path cache_dir, const WorkloadConfig& workload, const Toolchain& toolchain)
    : cache_dir_(fs::absolute(cache_dir)), workload_(workload), toolchain_(toolchain), runtime_dir_(RuntimeDir()) {
  const bool cuda = workload_.language == "cuda";
  compiler_ = cuda ? toolchain_.nvcc : (toolchain_.cxx.empty() ? "g++" : toolchain_.cxx);
  if (cuda) {
    std::string arch = PreferredCudaArch(toolchain_);  // "sm_90a"
    arch_flag_ = "-gencode=arch=compute_" + arch.substr(3) + ",code=" + arch;
    common_flags_ = {arch_flag_, "-Xcompiler=-fPIC"};
  } else {
    common_flags_ = {"-Wall", "-pthread"};  // the supervisor runs one thread per rank
  }
  // The runtime's units are cuco's code: cuco's flags (C++20), the same for every workload (so that
  // their objects are shared), with the include folders of the libraries the runtime itself uses.
  // A workload's own units (its reference, its candidates) are in the dialect its [build] flags
  // name, else the compiler's default (C++17 for nvcc 13 and g++ 12), as the program's own build
  // would compile them; C++20 would also cost every candidate's compile a fifth more parsing
  // (libstdc++'s and libcu++'s headers grow with it).
  runtime_flags_ = common_flags_;
  runtime_flags_.insert(runtime_flags_.begin(), "-std=c++20");
  runtime_flags_.push_back(cuda ? "-O3" : "-O2");
  runtime_flags_.push_back("-I" + (runtime_dir_ / "include").string());
  runtime_flags_.push_back("-I" + (runtime_dir_ / "src").string());
  if (cuda && toolchain_.nccl.found) runtime_flags_.push_back("-I" + toolchain_.nccl.include_dir);
  if (cuda && toolchain_.cublas.found && toolchain_.cublas.include_dir != toolchain_.cuda_home + "/include")
    runtime_flags_.push_back("-I" + toolchain_.cublas.include_dir);
  for (const auto& f : workload_.build_flags) {
    if (!cuda && IsNvccLanguageFlag(f)) continue;  // a host compiler's build of the program's code
    common_flags_.push_back(WorkloadSpelling(f, cuda));
    if (f == "-fopenmp") link_flags_.push_back(WorkloadSpelling(f, cuda));  // its runtime (omp_get_wtime) links too
  }
  // NVTX annotations compile to calls answered by runtime/src/common/nvtx_off.cc (no-ops), not to
  // NVTX's header implementation, whose dlopen the object check refuses in a candidate.
  if (cuda && workload_.mode == "harness") common_flags_.push_back("-DNVTX_NO_IMPL");
  common_flags_.push_back("-I" + (runtime_dir_ / "include").string());
  common_flags_.push_back("-I" + workload_.dir.string());
  auto add_lib = [&](const LibraryInstall& lib) {
    if (!lib.found) return;
    common_flags_.push_back("-I" + lib.include_dir);
    // By file name (-l:libnccl.so.2): wheels ship no unversioned .so, and nvcc takes no .so paths.
    link_flags_.push_back("-L" + lib.lib_dir);
    if (!lib.library.empty()) link_flags_.push_back("-l:" + fs::path(lib.library).filename().string());
    if (cuda) {
      link_flags_.push_back("-Xlinker");
      link_flags_.push_back("-rpath=" + lib.lib_dir);
    } else {
      link_flags_.push_back("-Wl,-rpath," + lib.lib_dir);
    }
  };
  // The GPU harness itself uses NCCL and cuBLASLt: a harness-mode CUDA workload links them even
  // when its workload.toml does not list them.
  std::vector<std::string> libs = workload_.build_libs;
  if (cuda && workload_.mode == "harness")
    for (const char* needed : {"nccl", "cublasLt"})
      if (std::find(libs.begin(), libs.end(), needed) == libs.end()) libs.push_back(needed);
  for (const auto& lib : libs) {
    if (lib == "nccl") add_lib(toolchain_.nccl);
    else if (lib == "nvshmem") {
      if (!toolchain_.nvshmem.found)
        missing_ = "this workload links \"nvshmem\" ([build] libs) but this machine lacks NVSHMEM (nvshmem.h and "
                   "libnvshmem_host.so): see `cuco doctor` (CUCO_NVSHMEM_HOME, or the nvidia-nvshmem-cu13 wheel)";
      add_lib(toolchain_.nvshmem);
    }
    else if (lib == "cudnn") {
      // codesign/cudnn_attention.h: runtime/src/cudnn_sdpa.cu (a frozen unit, see Build) needs
      // the frontend's headers; the link needs libcudnn and the frontend's libnvrtc.
      if (!toolchain_.cudnn.found || toolchain_.cudnn_frontend_include.empty())
        missing_ = "this workload links \"cudnn\" ([build] libs) but this machine lacks " +
                   std::string(!toolchain_.cudnn.found ? "cuDNN 9 (cudnn.h and libcudnn.so.9)" : "the cuDNN frontend headers") +
                   ": see `cuco doctor` (pip install nvidia-cudnn-frontend; CUCO_CUDNN_HOME, CUCO_CUDNN_FRONTEND_INCLUDE)";
      add_lib(toolchain_.cudnn);
      if (!toolchain_.cudnn_frontend_include.empty()) common_flags_.push_back("-I" + toolchain_.cudnn_frontend_include);
      if (toolchain_.cudnn.found) cudnn_flags_.push_back("-I" + toolchain_.cudnn.include_dir);
      if (!toolchain_.cudnn_frontend_include.empty()) cudnn_flags_.push_back("-I" + toolchain_.cudnn_frontend_include);
      link_flags_.push_back("-lnvrtc");
      extra_frozen_.push_back(runtime_dir_ / "src" / "cudnn_sdpa.cu");
    }
    else if (lib == "cublasLt" || lib == "cublas") {
      if (toolchain_.cublas.found && toolchain_.cublas.include_dir != toolchain_.cuda_home + "/include") {
        common_flags_.push_back("-I" + toolchain_.cublas.include_dir);
        link_flags_.push_back("-L" + toolchain_.cublas.lib_dir);
        link_flags_.push_back("-Xlinker");
        link_flags_.push_back("-rpath=" + toolchain_.cublas.lib_dir);
      }
      link_flags_.push_back("-l" + lib);
    } else if (lib == "mpi") {
      for (const auto& f : MpiFlags("compile", cuda)) common_flags_.push_back(f);
      for (const auto& f : MpiFlags("link", cuda)) link_flags_.push_back(f);
    } else {
      link_flags_.push_back("-l" + lib);
    }
  }
  runtime_key_ = RuntimeKey();
  env_key_ = EnvironmentKey();
}

std::string Builder::RuntimeKey() const {
  std::string k = "cuco-runtime-v1\n" + compiler_ + "\n" + toolchain_.cuda_version + "\n" + toolchain_.nccl.version + "\n";
  k += Join(runtime_flags_) + "\n";
  k += HashFilesUnder(runtime_dir_ / "include", {}) + "\n";
  k += HashFilesUnder(runtime_dir_ / "src", {}) + "\n";  // the supervisor and the candidate runtime
  return Sha256Hex(k);
}

std::string Builder::WorkloadFilesHash() const {
  // The reference, the [build] sources and every header of the folder, then whatever those include
  // by a quoted name that resolves beside the including file or in the workload folder.
  std::vector<fs::path> todo = {workload_.ReferencePath()};
  for (const auto& src : workload_.build_sources) todo.push_back(workload_.dir / src);
  std::error_code ec;
  if (fs::exists(workload_.dir, ec))
    for (auto it = fs::recursive_directory_iterator(workload_.dir, ec); !ec && it != fs::recursive_directory_iterator(); ++it) {
      static const std::vector<std::string> kHeader = {".h", ".hpp", ".hh", ".cuh", ".inl", ".inc"};
      if (it->is_regular_file() &&
          std::find(kHeader.begin(), kHeader.end(), it->path().extension().string()) != kHeader.end())
        todo.push_back(it->path());
    }
  std::map<std::string, std::string> hashed;  // canonical path -> its text's hash
  while (!todo.empty()) {
    fs::path f = todo.back();
    todo.pop_back();
    const fs::path canonical = fs::weakly_canonical(f, ec);
    if (ec || hashed.count(canonical.string())) continue;
    auto text = ReadFile(canonical);
    hashed[canonical.string()] = text.ok() ? Sha256Hex(*text) : "missing";
    if (!text.ok()) continue;
    for (const std::string& line : SplitLines(*text)) {
      const std::string t = Trim(line);
      if (!t.starts_with("#")) continue;
      const size_t q = t.find('"'), e = q == std::string::npos ? q : t.find('"', q + 1);
      if (e == std::string::npos || Trim(t.substr(1, q - 1)) != "include") continue;
      const std::string name = t.substr(q + 1, e - q - 1);
      for (const fs::path& dir : {canonical.parent_path(), workload_.dir})
        if (fs::is_regular_file(dir / name, ec)) todo.push_back(dir / name);
    }
  }
  std::string all;
  for (const auto& [path, hash] : hashed) {
    const fs::path rel = fs::relative(path, fs::weakly_canonical(workload_.dir, ec), ec);
    all += (rel.empty() || rel.string().starts_with("..") ? path : rel.string()) + "\n" + hash + "\n";
  }
  return Sha256Hex(all);
}

std::string Builder::EnvironmentKey() const {
  std::string k = "cuco-build-v4\n" + runtime_key_ + "\n" + Join(common_flags_) + "\n" + Join(link_flags_) + "\n";
  for (const fs::path& src : extra_frozen_) {  // frozen runtime units: their text is part of the environment
    auto text = ReadFile(src);
    k += src.filename().string() + " " + Sha256Hex(text.ok() ? *text : "missing") + " " + Join(cudnn_flags_) + "\n";
  }
  return Sha256Hex(k + WorkloadFilesHash() + "\n");
}

std::vector<std::string> Builder::CompileCommand(const Unit& u, const fs::path& object) const {
  std::vector<std::string> cmd = {compiler_};
  const std::vector<std::string>& flags = u.runtime ? runtime_flags_ : common_flags_;
  cmd.insert(cmd.end(), flags.begin(), flags.end());
  // Device code only: the host object stays as the workload builds it, since the object check
  // reads it (at -O0 the host object holds inline functions a -O3 build never emits).
  if (unoptimized_ && u.candidate && workload_.language == "cuda") cmd.insert(cmd.end(), {"-Xptxas", "-O0"});
  // The workload's own units (the candidate, the program's other files, the reference) carry a line
  // table: the object check tells frozen text from a candidate's code by it (object_check.h).
  if (!u.runtime) cmd.push_back(workload_.language == "cuda" ? "-Xcompiler=-g1" : "-g1");
  cmd.insert(cmd.end(), u.extra_flags.begin(), u.extra_flags.end());
  cmd.insert(cmd.end(), {"-c", u.source.string(), "-o", object.string()});
  return cmd;
}

std::vector<std::string> Builder::LinkCommand(const std::vector<fs::path>& objects, const fs::path& exe) const {
  std::vector<std::string> cmd = {compiler_};
  if (workload_.language == "cuda") cmd.push_back(arch_flag_);
  for (const auto& o : objects) cmd.push_back(o.string());
  cmd.insert(cmd.end(), {"-o", exe.string()});
  cmd.insert(cmd.end(), link_flags_.begin(), link_flags_.end());
  return cmd;
}

Result<std::vector<std::string>> Builder::CompileSandbox(const fs::path& dir, double timeout_s) const {
  SandboxSpec box;
  // What the compile reads may lie under /tmp (private inside): the cache (frozen objects), the
  // runtime, the workload and the include folders its [build] flags name (-I DIR, -isystem DIR: a
  // user's program keeps its own headers' folder), read-only; it writes only its own folder.
  std::vector<fs::path> reads = {cache_dir_, runtime_dir_, workload_.dir};
  for (size_t i = 0; i < workload_.build_flags.size(); ++i) {
    const std::string& f = workload_.build_flags[i];
    if (f.rfind("-I", 0) == 0 && f.size() > 2) reads.push_back(f.substr(2));
    if ((f == "-I" || f == "-isystem") && i + 1 < workload_.build_flags.size()) reads.push_back(workload_.build_flags[i + 1]);
  }
  for (const fs::path& ro : reads) {
    std::error_code ec;
    if (fs::is_directory(ro, ec)) box.readonly_dirs.push_back(fs::absolute(ro).string());
  }
  box.writable_dirs = {fs::absolute(dir).string()};
  box.env = {{"PATH", std::getenv("PATH") ? std::getenv("PATH") : "/usr/bin:/bin"}, {"HOME", "/tmp"},
             {"LANG", "C"}, {"TMPDIR", "/tmp"}};
  box.cwd = fs::absolute(dir).string();
  box.tmp_bytes = 4ull << 30;  // nvcc's intermediate files
  box.file_size_bytes = 4ull << 30;
  box.cpu_seconds = static_cast<uint64_t>(std::max(1.0, timeout_s)) + 10;
  return SandboxPrefix(box);
}

Result<std::vector<std::string>> Builder::PreprocessCommand(const fs::path& source) const {
  if (compiler_.empty()) return Status::Unavailable("no compiler found (run `cuco doctor`)");
  std::vector<std::string> cmd;
  if (sandboxed_) {
    auto prefix = CompileSandbox(source.parent_path(), 120);
    if (!prefix.ok()) return prefix.status();
    cmd = *prefix;
  }
  cmd.push_back(compiler_);
  cmd.insert(cmd.end(), common_flags_.begin(), common_flags_.end());
  cmd.insert(cmd.end(), {"-E", source.string()});
  return cmd;
}

std::vector<std::string> Builder::CandidateCompileCommand(const fs::path& source, const fs::path& object) const {
  Unit u = WorkloadUnit(source, object);
  u.candidate = true;
  return CompileCommand(u, object);
}

namespace {

// One step of a build: a compile or the link, its output in its own log file.
struct BuildStep {
  std::vector<std::string> cmd;
  fs::path log;
  ProcessOutcome outcome;
  std::string output;
  std::string sandbox_error;
  fs::path object;  // a compile's object, renamed from its .part when the compile succeeds
};

// Appends a finished step to r->log; false when it failed.
bool RecordBuildStep(const BuildStep& s, BuildResult* r) {
  r->log += "$ " + Join(s.cmd) + "\n" + s.output;
  if (!s.sandbox_error.empty()) {
    r->log += "cuco: cannot sandbox the compile: " + s.sandbox_error + "\n";
    return false;
  }
  if (s.outcome.ok()) return true;
  if (!s.outcome.timed_out && InterruptSignal(s.outcome.signal)) r->interrupted = true;
  r->log += s.outcome.timed_out ? "cuco: compile time limit passed; the compiler was killed\n"
                                : "cuco: " + s.outcome.Describe() + "\n";
  return false;
}

}  // namespace

Result<BuildResult> Builder::BuildInDir(const fs::path& dir, const std::vector<Unit>& units, const fs::path& exe,
                                        double timeout_s) {
  BuildResult r;
  r.log_path = (dir / "build.log").string();
  if (compiler_.empty())
    return Status::Unavailable(workload_.language == "cuda" ? "nvcc not found (run `cuco doctor`)"
                                                            : "no host C++ compiler found (run `cuco doctor`)");
  const auto start = std::chrono::steady_clock::now();
  auto left = [&] {
    return timeout_s - std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  using Step = BuildStep;
  auto run_step = [&](Step& s) {
    ProcessSpec spec;
    spec.argv = s.cmd;
    if (sandboxed_) {
      auto prefix = CompileSandbox(dir, left());
      if (!prefix.ok()) {
        s.sandbox_error = prefix.status().message();
        return;
      }
      spec.argv = *prefix;
      spec.argv.insert(spec.argv.end(), s.cmd.begin(), s.cmd.end());
    }
    spec.cwd = dir.string();
    spec.stdout_path = spec.stderr_path = s.log.string();
    s.outcome = RunProcess(spec, std::max(1.0, left()));
    auto out = ReadFile(s.log);
    s.output = out.ok() ? *out : "";
    std::error_code ec;
    if (!s.object.empty() && s.outcome.ok()) fs::rename(s.object.string() + ".part", s.object, ec);
    if (ec) s.sandbox_error = "cannot keep the object " + s.object.string() + ": " + ec.message();
  };
  auto record = [&](const Step& s) { return RecordBuildStep(s, &r); };

  // Each object is compiled to <object>.part and renamed when whole, so that a killed compile never
  // leaves an object a later build would take as done.
  std::vector<Step> compiles;
  std::vector<fs::path> objects, parts;
  for (const auto& u : units) {
    if (!fs::exists(u.object)) {
      parts.push_back(u.object.string() + ".part");
      Step step;
      step.cmd = CompileCommand(u, parts.back());
      step.log = dir / ("step-" + std::to_string(compiles.size()) + ".log");
      step.object = u.object;
      compiles.push_back(std::move(step));
    }
    if (u.link) objects.push_back(u.object);
  }
  Step link;
  if (!exe.empty()) {
    link.cmd = LinkCommand(objects, exe);
    link.log = dir / "step-link.log";
  }
  for (const Step& s : compiles) r.commands.push_back(s.cmd);
  if (!exe.empty()) r.commands.push_back(link.cmd);

  // The units compile side by side (the frozen side has a dozen), at most one per core.
  const size_t jobs = std::max<size_t>(1, std::min<size_t>(compiles.size(), std::thread::hardware_concurrency()));
  std::atomic<size_t> next{0};
  std::vector<std::thread> workers;
  for (size_t w = 1; w < jobs; ++w)
    workers.emplace_back([&] {
      for (size_t i; (i = next++) < compiles.size();) run_step(compiles[i]);
    });
  for (size_t i; (i = next++) < compiles.size();) run_step(compiles[i]);
  for (auto& t : workers) t.join();

  r.ok = true;
  for (const Step& s : compiles) r.ok = record(s) && r.ok;
  if (r.ok && !exe.empty()) {
    run_step(link);
    r.ok = record(link);
  }
  std::error_code ec;  // build.log holds every step's output
  for (const Step& s : compiles) fs::remove(s.log, ec);
  fs::remove(link.log, ec);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (r.ok && !exe.empty()) r.executable = exe.string();
  CUCO_RETURN_IF_ERROR(WriteFileAtomic(r.log_path, r.log));
  return r;
}

namespace {

// The runtime sources of each side of a harness-mode workload, relative to runtime/src.
std::vector<std::string> SupervisorSources(bool cuda) {
  std::vector<std::string> s = {"supervisor/supervisor.cc", "supervisor/rank_report.cc", "supervisor/args.cc",
                                "supervisor/candidate_process.cc", "supervisor/timed_loop.cc", "common/channel.cc"};
  if (cuda)
    s.insert(s.end(), {"supervisor/gpu_supervisor_main.cu", "supervisor/gpu_backend.cu", "supervisor/gpu_state.cu",
                       "supervisor/agree_unordered.cc", "common/driver_api.cu", "common/nvtx_off.cc",
                       // A program's reference checks and emulated NCCL (cuco/program/impl/reference_check.h,
                       // nccl_emulation.h): compiled once here, not in every program's reference; other
                       // supervisors link them unused.
                       "program/reference_check.cu", "program/nccl_emulation.cu"});
  else s.insert(s.end(), {"supervisor/cpu_supervisor_main.cc", "common/cpu_types.cc"});
  return s;
}

std::vector<std::string> CandidateRuntimeSources(bool cuda) {
  if (cuda)
    return {"candidate/gpu_candidate_main.cu", "candidate/rank_context.cu", "common/channel.cc", "common/driver_api.cu",
            "common/nvtx_off.cc",
            // A program's thread and iteration loop (cuco/program/impl/candidate_side.h) and design
            // space (cuco/program/codesign.h): compiled once here, not in every program candidate;
            // other candidates link them unused.
            "program/candidate_side.cu", "program/program_collectives.cu", "program/p2p_bounce.cu",
            "program/ce_collectives.cu", "program/candidate_p2p.cu", "program/mpi_collectives.cu"};
  return {"candidate/cpu_candidate_main.cc", "common/channel.cc", "common/cpu_types.cc"};
}

}  // namespace

Result<BuildResult> Builder::BuildRuntime(std::vector<Unit>* supervisor_side, std::vector<Unit>* candidate_side,
                                          double timeout_s) {
  const bool cuda = workload_.language == "cuda";
  const fs::path src = runtime_dir_ / "src";
  const fs::path rdir = cache_dir_ / ("runtime-" + runtime_key_.substr(0, 24));
  // runtime/src/common/ units compile once and link into both executables.
  auto unit_of = [&](const std::string& f, const char* side) {
    return RuntimeUnit(src / f, rdir / (f.starts_with("common/") ? "common" : side) / (fs::path(f).stem().string() + ".o"));
  };
  supervisor_side->clear();
  candidate_side->clear();
  for (const auto& f : SupervisorSources(cuda)) supervisor_side->push_back(unit_of(f, "supervisor"));
  for (const auto& f : CandidateRuntimeSources(cuda)) candidate_side->push_back(unit_of(f, "candidate"));
  // A library's own runtime unit (cudnn_sdpa.cu) needs that library's headers: its object is keyed
  // by them too, and links into both sides.
  for (const fs::path& x : extra_frozen_) {
    Unit u = RuntimeUnit(x, rdir / ("lib-" + Sha256Hex(Join(cudnn_flags_)).substr(0, 12)) / (x.stem().string() + ".o"));
    u.extra_flags = cudnn_flags_;
    supervisor_side->push_back(u);
    candidate_side->push_back(u);
  }
  std::vector<Unit> missing;
  for (const std::vector<Unit>* side : {supervisor_side, candidate_side})
    for (Unit u : *side) {
      bool listed = false;
      for (const Unit& m : missing) listed |= m.object == u.object;
      if (listed || fs::exists(u.object)) continue;
      u.link = false;
      missing.push_back(u);
    }
  BuildResult r;
  r.ok = true;
  if (missing.empty()) return r;
  for (const Unit& u : missing) CUCO_RETURN_IF_ERROR(MakeDirs(u.object.parent_path()));
  FileLock lock(rdir.string() + ".lock");
  return BuildInDir(rdir, missing, fs::path(), timeout_s);  // compiles only what another build has not
}

Result<BuildResult> Builder::BuildFrozen(const fs::path& fdir, std::vector<Unit>* runtime_units, double timeout_s) {
  std::vector<Unit> sup;
  auto runtime = BuildRuntime(&sup, runtime_units, timeout_s);
  if (!runtime.ok() || !runtime->ok) return runtime;
  for (Unit& u : sup) u.link = true;
  for (Unit& u : *runtime_units) u.link = true;
  Unit reference = WorkloadUnit(workload_.ReferencePath(), fdir / "supervisor" / "reference.o");
  // Compiled with a line table (CompileCommand): the object check reads which functions are the
  // program's frozen headers' from it (ProgramOwnOf).
  sup.push_back(reference);
  CUCO_RETURN_IF_ERROR(MakeDirs(fdir / "supervisor"));
  FileLock lock(fdir.string() + ".lock");
  const fs::path exe = fdir / "supervisor" / "supervisor";
  BuildResult r;
  r.ok = true;
  if (!fs::exists(exe)) {
    // Linked under a temporary name and renamed, like the objects: a killed link leaves nothing.
    const fs::path part = exe.string() + ".part";
    auto built = BuildInDir(fdir, sup, part, timeout_s);
    if (!built.ok()) return built.status();
    if (!built->ok) return *built;
    std::error_code ec;
    fs::rename(part, exe, ec);
    if (ec) return Status::Internal("cannot keep the supervisor " + exe.string() + ": " + ec.message());
  }
  r.supervisor = exe.string();
  r.reference_object = (fdir / "supervisor" / "reference.o").string();
  return r;
}

Result<BuildResult> Builder::Build(const std::string& code, double timeout_s) {
  const bool cuda = workload_.language == "cuda";
  const bool harness = workload_.mode == "harness";
  const std::string ext = cuda ? ".cu" : ".cc";
  CUCO_RETURN_IF_ERROR(MakeDirs(cache_dir_));

  if (!missing_.empty()) {
    BuildResult r;
    r.ok = false;
    r.log = missing_;
    return r;
  }
  // The frozen side, shared by every candidate of this workload and toolchain.
  std::vector<Unit> frozen;
  std::string supervisor, reference_object;
  if (harness) {
    const fs::path fdir = cache_dir_ / ("frozen-" + env_key_.substr(0, 24));
    auto fr = BuildFrozen(fdir, &frozen, timeout_s);
    if (!fr.ok()) return fr.status();
    if (!fr->ok) {
      fr->log = "the frozen supervisor or candidate runtime did not compile (a cuco or workload bug, not the "
                "candidate's):\n" + fr->log;
      return *fr;
    }
    supervisor = fr->supervisor;
    reference_object = fr->reference_object;
  }

  BuildResult r;
  r.key = Sha256Hex(env_key_ + (unoptimized_ ? "\nunoptimized" : "") + "\n" + code);
  fs::path dir = cache_dir_ / ("cand-" + r.key.substr(0, 32));
  CUCO_RETURN_IF_ERROR(MakeDirs(dir));
  FileLock lock(dir.string() + ".lock");
  fs::path exe = dir / (harness ? "candidate" : "program");
  fs::path status = dir / "status";
  const fs::path object = dir / "candidate.o";
  const fs::path source = dir / ("candidate" + ext);
  r.source = source.string();
  if (fs::exists(status)) {
    auto st = ReadFile(status);
    auto log = ReadFile(dir / "build.log");
    r.cached = true;
    r.ok = st.ok() && *st == "ok" && fs::exists(exe);
    if (r.ok || (st.ok() && *st == "failed")) {
      r.log = log.ok() ? *log : "";
      r.log_path = (dir / "build.log").string();
      if (r.ok) {
        r.executable = exe.string();
        r.supervisor = supervisor;
        r.reference_object = reference_object;
        r.object = object.string();
        // Linked with its knob values: its own object is the knob-free code's.
        if (fs::exists(dir / "knob_values.cc"))
          if (std::optional<RuntimeKnobs> knobs = SplitRuntimeKnobs(code)) r.object = (KnobFreeDir(*knobs) / "candidate.o").string();
      }
      return r;
    }
  }
  CUCO_RETURN_IF_ERROR(WriteFileAtomic(source, code));
  std::vector<Unit> units = frozen;
  BuildResult shared;  // the knob-free objects, where the candidate has runtime knobs
  auto early = AddCandidateUnits(code, dir, source, object, timeout_s, &units, &shared);
  if (!early.ok()) return early.status();
  if (*early) {
    (*early)->key = r.key;
    return **early;
  }
  for (Unit& u : units) u.candidate = !u.runtime;
  std::error_code ec;
  fs::remove(object, ec);
  fs::remove(dir / "knob_values.o", ec);
  auto built = BuildInDir(dir, units, exe, timeout_s);
  if (!built.ok()) return built.status();
  built->key = r.key;
  built->source = r.source;
  built->knob_values_only = shared.ok && shared.cached;
  if (!shared.cached) {  // what the knob-free compile ran now, whether or not its objects were taken
    built->seconds += shared.seconds;
    built->commands.insert(built->commands.begin(), shared.commands.begin(), shared.commands.end());
  }
  if (built->ok) {
    built->supervisor = supervisor;
    built->reference_object = reference_object;
    built->object = shared.ok ? shared.object : object.string();
  }
  // A timed-out compile is not cached (the next try may have more time), nor one a signal stopped.
  if (built->log.find("compile time limit passed") == std::string::npos && !built->interrupted)
    CUCO_RETURN_IF_ERROR(WriteFileAtomic(status, built->ok ? "ok" : "failed"));
  return built;
}

Result<BuildResult> Builder::BuildGpuProbe(double timeout_s) {
  fs::path src = runtime_dir_ / "src" / "gpu_probe.cu";
  auto text = ReadFile(src);
  if (!text.ok()) return text.status();
  fs::path dir = cache_dir_ / ("probe-" + Sha256Hex(compiler_ + *text + arch_flag_).substr(0, 24));
  CUCO_RETURN_IF_ERROR(MakeDirs(dir));
  FileLock lock(dir.string() + ".lock");
  fs::path exe = dir / "gpu_probe";
  if (fs::exists(exe)) {
    BuildResult r;
    r.ok = r.cached = true;
    r.executable = exe.string();
    return r;
  }
  std::vector<std::string> cmd = {compiler_, src.string(), "-o", exe.string()};
  if (!arch_flag_.empty()) cmd.insert(cmd.begin() + 1, arch_flag_);
  ProcessSpec spec;
  spec.argv = cmd;
  spec.stdout_path = spec.stderr_path = (dir / "build.log").string();
  ProcessOutcome o = RunProcess(spec, timeout_s);
  BuildResult r;
  r.ok = o.ok();
  r.commands = {cmd};
  auto log = ReadFile(dir / "build.log");
  r.log = log.ok() ? *log : "";
  if (r.ok) r.executable = exe.string();
  return r;
}

std::filesystem::path DefaultCacheDir() {
  if (const char* e = std::getenv("CUCO_CACHE_DIR")) return e;
  if (const char* x = std::getenv("XDG_CACHE_HOME")) return std::filesystem::path(x) / "cuco";
  if (const char* h = std::getenv("HOME")) return std::filesystem::path(h) / ".cache" / "cuco";
  return std::filesystem::temp_directory_path() / "cuco-cache";
}

}  // namespace cuco
