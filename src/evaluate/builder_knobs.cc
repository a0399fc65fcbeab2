// Builder: a program candidate's knob-free code, compiled once for every setting of its knobs
// (builder.h, runtime_knobs.h).
#include "evaluate/builder.h"

#include "util/file_lock.h"
#include "util/files.h"
#include "util/sha256.h"

namespace cuco {

namespace fs = std::filesystem;

fs::path Builder::KnobFreeDir(const RuntimeKnobs& knobs) const {
  const std::string key = Sha256Hex(env_key_ + (unoptimized_ ? "\nunoptimized" : "") + "\nknob-free\n" + knobs.code);
  return cache_dir_ / ("knobfree-" + key.substr(0, 32));
}

Result<BuildResult> Builder::BuildKnobFreeObjects(const RuntimeKnobs& knobs, double timeout_s,
                                                  std::vector<Unit>* units) {
  const fs::path dir = KnobFreeDir(knobs);
  CUCO_RETURN_IF_ERROR(MakeDirs(dir));
  FileLock lock(dir.string() + ".lock");
  const std::string ext = workload_.language == "cuda" ? ".cu" : ".cc";
  std::vector<Unit> own = {WorkloadUnit(dir / ("candidate" + ext), dir / "candidate.o")};
  for (const auto& src : workload_.build_sources)  // the program's other files
    own.push_back(WorkloadUnit(workload_.dir / src, dir / (fs::path(src).filename().string() + ".o")));
  for (Unit& u : own) u.candidate = true;  // linked by each candidate's build, not here
  auto keep = [&](BuildResult r) {
    r.object = (dir / "candidate.o").string();
    r.source = (dir / ("candidate" + ext)).string();
    if (r.ok) units->insert(units->end(), own.begin(), own.end());
    return r;
  };
  const fs::path status = dir / "status";
  if (fs::exists(status)) {
    auto st = ReadFile(status);
    BuildResult r;
    r.cached = true;
    r.ok = st.ok() && *st == "ok";
    bool whole = r.ok;
    for (const Unit& u : own) whole = whole && fs::exists(u.object);
    if (whole || (st.ok() && *st == "failed")) {
      r.ok = whole;
      return keep(r);
    }
  }
  CUCO_RETURN_IF_ERROR(WriteFileAtomic(own.front().source, knobs.code));
  std::error_code ec;
  for (const Unit& u : own) fs::remove(u.object, ec);
  auto built = BuildInDir(dir, own, fs::path(), timeout_s);
  if (!built.ok()) return built.status();
  if (built->log.find("compile time limit passed") == std::string::npos && !built->interrupted)
    CUCO_RETURN_IF_ERROR(WriteFileAtomic(status, built->ok ? "ok" : "failed"));
  return keep(*built);
}

Result<std::optional<BuildResult>> Builder::AddCandidateUnits(const std::string& code, const fs::path& dir,
                                                             const fs::path& source, const fs::path& object,
                                                             double timeout_s, std::vector<Unit>* units,
                                                             BuildResult* shared) {
  // A program candidate whose knobs are read at run time: its code compiled once for every setting
  // of them, here only its values (then the link).
  if (workload_.mode == "harness" && workload_.language == "cuda") {
    if (std::optional<RuntimeKnobs> knobs = SplitRuntimeKnobs(code)) {
      auto objects = BuildKnobFreeObjects(*knobs, timeout_s, units);
      if (!objects.ok()) return objects.status();
      *shared = *objects;
      // Stopped or out of time: no verdict on the code (the whole code would not fare better).
      if (shared->interrupted || shared->log.find("compile time limit passed") != std::string::npos)
        return std::optional<BuildResult>(*shared);
      if (shared->ok) {
        CUCO_RETURN_IF_ERROR(WriteFileAtomic(dir / "knob_values.cc", RuntimeKnobsUnit(knobs->values)));
        units->push_back(RuntimeUnit(dir / "knob_values.cc", dir / "knob_values.o"));
        return std::optional<BuildResult>();
      }
    }
  }
  // Compiled whole (a code that needs a knob at compile time fails erased: its own code decides).
  units->push_back(WorkloadUnit(source, object));
  for (const auto& src : workload_.build_sources)  // the program's other files
    units->push_back(WorkloadUnit(workload_.dir / src, dir / (fs::path(src).filename().string() + ".o")));
  return std::optional<BuildResult>();
}

}  // namespace cuco
