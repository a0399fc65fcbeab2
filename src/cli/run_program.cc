#include "cli/run_program.h"

#include <filesystem>
#include <iostream>

#include "cli/commands.h"
#include "scaffold/scaffold.h"
#include "util/clock.h"
#include "util/files.h"
#include "util/sha256.h"
#include "util/source_text.h"

namespace cuco {

namespace fs = std::filesystem;

bool IsProgramFile(const std::string& target) {
  std::error_code ec;
  return fs::is_regular_file(target, ec);
}

std::variant<ProgramWorkload, int> WorkloadOfProgram(const std::vector<std::string>& files, const ProgramFlagOptions& flags,
                                                     const std::string& dir_option, const std::string& loop,
                                                     const Toolchain& tc) {
  const std::string& program = files.front();
  fs::path dir = dir_option.empty() ? fs::path("cuco-runs") / DefaultWorkloadName(program) : fs::path(dir_option);
  std::error_code ec;
  // A workload of that name made from another program (two jacobi.cpp in two folders): not this one's.
  const std::string origin = ProgramOrigin(program);
  Result<std::string> made_from = ReadFile(dir / kOriginFile);
  if (dir_option.empty() && made_from.ok() && Trim(*made_from) != origin) {
    const fs::path other = dir;
    dir += "_" + Sha256Hex(origin).substr(0, 4);
    std::cout << "cuco run: " << other.string() << " was made from " << Trim(*made_from) << ", not " << origin
              << ": using " << dir.string() << "\n";
  }
  Result<CompileFlags> f = ResolveProgramFlags(flags, program);
  if (!f.ok()) {
    std::cerr << "cuco run: " << f.status().message() << "\n";
    return kExitUsage;
  }
  // Made again when the program, its flags or its libraries changed since; the old folder is kept.
  const std::vector<std::string> others(files.begin() + 1, files.end());
  std::vector<std::string> inputs = {program};
  inputs.insert(inputs.end(), others.begin(), others.end());
  std::string was;
  const std::string inputs_hash = ProgramInputsHash(inputs, f->flags, f->libraries);
  const ProgramWorkloadState state = StateOfProgramWorkload(dir, inputs_hash, &was);
  if (state == ProgramWorkloadState::kChanged) {
    fs::path kept = dir.string() + "-" + was.substr(0, 8);
    if (fs::exists(kept, ec)) kept += "-" + std::to_string(NowMs());  // never over an older one
    fs::rename(dir, kept, ec);
    if (ec) {
      std::cerr << "cuco run: " << program << " changed since " << dir.string() << " was made from it, and the old "
                << "folder cannot be moved aside to " << kept.string() << ": " << ec.message() << "\n";
      return kExitUsage;
    }
    std::cout << "cuco run: " << program << " (or its flags) changed since " << dir.string()
              << " was made from it: making it again (the old one kept as " << kept.string() << ")\n";
  }
  ProgramWorkload made;
  made.dir = (dir / "harness").string();
  if (state == ProgramWorkloadState::kCurrent) {
    std::cout << "cuco run: 1/3 init: reusing " << dir.string() << " (an earlier `cuco run` made it from this "
              << program << ")\n";
    Result<std::string> seed = ReadFile(dir / "harness" / "seed.cu");
    if (seed.ok() && seed->find("TODO(cuco init)") != std::string::npos) {  // the skeleton, not filled in since
      std::cerr << "cuco run: " << made.dir << " is the skeleton init made (no harness can be made of " << program
                << " as it is): fill in its TODO(cuco init) marks (" << made.dir << "/README.md), or run the program "
                << "as it is (untrusted): cuco eval " << dir.string() << "\n";
      return kExitUsage;
    }
  } else {
    Result<Analysis> a = AnalyzeOnThisMachine(files, *f, tc);
    if (!a.ok()) {
      std::cerr << "cuco run: " << a.status().message() << "\n";
      return kExitUsage;
    }
    ScaffoldOptions so;
    so.compile_flags = f->flags;
    so.inputs_hash = inputs_hash;
    so.link_libraries = f->libraries;
    so.own_include_dirs = f->own_include_dirs;
    so.loop = loop;
    so.other_sources = others;
    Result<ScaffoldReport> r = ScaffoldWorkload(*a, program, dir, so);
    if (!r.ok()) {
      std::cerr << "cuco run: " << r.status().message() << "\n";
      return r.status().code() == Status::Code::kInvalidArgument ? kExitUsage : kExitInternal;
    }
    std::cout << "cuco run: 1/3 init: wrote " << dir.string() << " from " << program << " (parsed with "
              << a->parse_path << ")\n";
    if (!r->harness_ready) {
      std::cerr << "cuco run: no harness can be made of " << program << ": " << r->harness_reason << "\n"
                << "  the program-mode workload runs it as it is (untrusted): cuco eval " << dir.string() << "\n";
      return kExitUsage;
    }
    for (const auto& g : r->harness_guesses) std::cout << "  " << g << "\n";
    made.workload = std::move(r->harness_workload);
  }
  return made;
}

}  // namespace cuco
