#include "scaffold/program_workload.h"

#include <filesystem>

#include "scaffold/program_analysis.h"
#include "scaffold/scaffold.h"
#include "util/clock.h"
#include "util/files.h"
#include "util/sha256.h"
#include "util/source_text.h"

namespace cuco {

namespace fs = std::filesystem;

namespace {

// The folder to use: `dir`, or when it was made from another program, one beside it of its own.
fs::path FolderOf(const ProgramWorkloadRequest& r, const std::function<void(const std::string&)>& say) {
  const std::string& program = r.files.front();
  fs::path dir = r.dir.empty() ? fs::path("cuco-runs") / DefaultWorkloadName(program) : fs::path(r.dir);
  const std::string origin = ProgramOrigin(program);
  Result<std::string> made_from = ReadFile(dir / kOriginFile);
  if (r.dir.empty() && made_from.ok() && Trim(*made_from) != origin) {
    const fs::path other = dir;
    dir += "_" + Sha256Hex(origin).substr(0, 4);
    say(other.string() + " was made from " + Trim(*made_from) + ", not " + origin + ": using " + dir.string());
  }
  return dir;
}

// The workload made by init's passes at `dir`.
Result<ProgramWorkload> Make(const ProgramWorkloadRequest& r, const fs::path& dir, const std::string& inputs_hash,
                             const Toolchain& tc, const std::function<void(const std::string&)>& say) {
  const std::string& program = r.files.front();
  Result<Analysis> a = AnalyzeOnThisMachine(r.files, r.flags, tc);
  if (!a.ok()) return Status::InvalidArgument(a.status().message());
  ScaffoldOptions so;
  so.compile_flags = r.flags.flags;
  so.inputs_hash = inputs_hash;
  so.link_libraries = r.flags.libraries;
  so.own_include_dirs = r.flags.own_include_dirs;
  so.loop = r.loop;
  so.args = r.args;
  so.other_sources.assign(r.files.begin() + 1, r.files.end());
  Result<ScaffoldReport> made = ScaffoldWorkload(*a, program, dir, so);
  if (!made.ok()) return made.status();
  say("1/3 init: wrote " + dir.string() + " from " + program + " (parsed with " + a->parse_path + ")");
  if (!made->harness_ready)
    return Status::InvalidArgument("no harness can be made of " + program + ": " + made->harness_reason +
                                   "\n  the program-mode workload runs it as it is (untrusted): cuco eval " + dir.string());
  for (const auto& g : made->harness_guesses) say("  " + g);
  ProgramWorkload w;
  w.dir = (dir / "harness").string();
  w.workload = std::move(made->harness_workload);
  return w;
}

}  // namespace

Result<ProgramWorkload> ProgramWorkloadFor(const ProgramWorkloadRequest& r, const Toolchain& tc,
                                           const std::function<void(const std::string&)>& say) {
  if (r.files.empty()) return Status::InvalidArgument("no program file given");
  const std::string& program = r.files.front();
  const fs::path dir = FolderOf(r, say);
  std::string was;
  const std::string inputs_hash = ProgramInputsHash(r.files, r.flags.flags, r.flags.libraries, r.loop, r.args);
  const ProgramWorkloadState state = StateOfProgramWorkload(dir, inputs_hash, &was);
  if (state == ProgramWorkloadState::kChanged) {
    std::error_code ec;
    fs::path kept = dir.string() + "-" + was.substr(0, 8);
    if (fs::exists(kept, ec)) kept += "-" + std::to_string(NowMs());  // never over an older one
    fs::rename(dir, kept, ec);
    if (ec)
      return Status::InvalidArgument(program + " changed since " + dir.string() + " was made from it, and the old folder "
                                     "cannot be moved aside to " + kept.string() + ": " + ec.message());
    say(program + " (or its flags, --loop or --args) changed since " + dir.string() + " was made from it: making it again (the old one kept as " +
        kept.string() + ")");
  }
  if (state != ProgramWorkloadState::kCurrent) return Make(r, dir, inputs_hash, tc, say);
  ProgramWorkload reused;
  reused.dir = (dir / "harness").string();
  say("1/3 init: reusing " + dir.string() + " (an earlier `cuco run` made it from this " + program + ")");
  Result<std::string> seed = ReadFile(dir / "harness" / "seed.cu");
  if (seed.ok() && seed->find("TODO(cuco init)") != std::string::npos)  // the skeleton, not filled in since
    return Status::InvalidArgument(reused.dir + " is the skeleton init made (no harness can be made of " + program +
                                   " as it is): fill in its TODO(cuco init) marks (" + reused.dir + "/README.md), or run the "
                                   "program as it is (untrusted): cuco eval " + dir.string());
  return reused;
}

}  // namespace cuco
