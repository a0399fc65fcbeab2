// cuco init: the scaffolder (scaffold.h). It checks its input, gathers what it can learn about
// the program (program_facts.h), renders the seven files (program_toml.h, harness_toml.h,
// seed_cu.h, reference_cu.h, harness_readme.h), writes them, and loads back what it wrote.
#include "scaffold/scaffold.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <optional>
#include <set>
#include <utility>

#include "scaffold/harness_readme.h"
#include "scaffold/harness_sizes.h"
#include "scaffold/harness_toml.h"
#include "scaffold/input_files.h"
#include "scaffold/iteration_io.h"
#include "scaffold/launcher_guess.h"
#include "scaffold/mpi_communication.h"
#include "scaffold/program_arguments.h"
#include "scaffold/program_facts.h"
#include "scaffold/program_files.h"
#include "scaffold/program_harness.h"
#include "scaffold/program_text.h"
#include "scaffold/program_toml.h"
#include "scaffold/reference_cu.h"
#include "scaffold/seed_cu.h"
#include "scaffold/world_size.h"
#include "util/files.h"
#include "util/sha256.h"
#include "util/source_text.h"
#include "workload/deny_list.h"
#include "workload/evolve_blocks.h"
#include "workload/workload_config.h"

namespace cuco {
namespace {

namespace fs = std::filesystem;
using namespace scaffold_internal;

// The program has an NCCL call, or communicates through MPI alone (its MPI calls are its
// communication ops then: analysis.h), and out_dir is a folder that may be written (absent, empty,
// or `force`).
Status CheckInput(const Analysis& analysis, const std::string& program_path, const fs::path& out_dir,
                  const ScaffoldOptions& options) {
  bool has_nccl = false;
  for (const auto& op : analysis.ops) has_nccl |= op.api.rfind("nccl", 0) == 0 || IsCommOp(op);
  if (!has_nccl) return Status::InvalidArgument(NoNcclMessage(analysis, program_path));

  std::error_code ec;
  if (fs::exists(out_dir, ec) && !fs::is_directory(out_dir, ec))
    return Status::InvalidArgument(out_dir.string() + ": exists and is not a folder");
  if (fs::is_directory(out_dir, ec) && !fs::is_empty(out_dir, ec) && !options.force)
    return Status::InvalidArgument(out_dir.string() + ": folder exists and is not empty (choose another --out, or --force to write into it)");
  return Status::Ok();
}

// Writes the files in order (recording each in rep->files), then loads both workload.toml files
// back: a failure there is a cuco bug, named with the file.
Status WriteAndCheck(const std::vector<std::pair<fs::path, std::string>>& files, const fs::path& out_dir,
                     const fs::path& harness, ScaffoldReport* rep) {
  CUCO_RETURN_IF_ERROR(MakeDirs(harness));
  for (const auto& [path, text] : files) {
    CUCO_RETURN_IF_ERROR(MakeDirs(path.parent_path()));  // a header in a folder of its own (include/, _up/common/)
    CUCO_RETURN_IF_ERROR(WriteFileAtomic(path, text));
    rep->files.push_back(path);
  }
  for (const fs::path& dir : {out_dir, harness}) {
    auto loaded = LoadWorkload(dir);
    if (!loaded.ok()) return Status::Internal("cuco init wrote a workload.toml that does not load: " + loaded.status().message());
    if (dir == harness) rep->harness_workload = std::move(*loaded);
  }
  return Status::Ok();
}

// The skeleton's seed.cu, checked against the deny-list (a refusal there is a cuco bug). A harness of
// the program itself is checked before it is chosen (ServedCodeAllowed), where the user can be told.
Result<std::string> SkeletonSeed(const ProgramFacts& f, const HarnessSizes& sizes, const fs::path& harness) {
  std::string seed = SeedCu(f, sizes);
  if (Status st = CheckDenyList(seed, (harness / "seed.cu").string()); !st.ok())
    return Status::Internal("cuco init wrote a seed.cu the deny-list refuses: " + st.message());
  return seed;
}

// "file:line" of the first line of the program's files (file name, text) reading `line` (trimmed),
// or nullopt.
std::optional<std::string> ProgramLineOf(const std::string& line,
                                         const std::vector<std::pair<std::string, std::string>>& program_files) {
  if (line.empty()) return std::nullopt;
  for (const auto& [file, raw] : program_files) {
    const std::vector<std::string> lines = SplitLines(raw);
    for (size_t i = 0; i < lines.size(); ++i)
      if (Trim(lines[i]) == line) return fmt::format("{}:{}", file, i + 1);
  }
  return std::nullopt;
}

// Ok, or why the harness cannot be served: code in its EVOLVE blocks that candidates may not run
// (a log file written in the iteration, `ofstream`), named at the program's own file:line where
// the line is the program's as written (else at the harness file's), with what the user can do.
Status ServedCodeAllowed(const ProgramHarness& ph, const ProgramFacts& f, const std::vector<ProgramFile>& more) {
  for (const auto& [name, text] : ph.files) {
    if (text.find(kEvolveBlockStart) == std::string::npos) continue;
    Result<std::vector<DenyHit>> hits = ScanEvolveBlocks(text, "harness/" + name);
    if (!hits.ok() || hits->empty()) continue;
    const DenyHit& h = hits->front();
    const std::vector<std::string> lines = SplitLines(text);
    const std::string served = h.line >= 1 && h.line <= static_cast<int>(lines.size()) ? Trim(lines[h.line - 1]) : "";
    std::vector<std::pair<std::string, std::string>> own = {{f.file, f.raw}};
    for (const ProgramFile& pf : more) own.push_back({pf.name, pf.text});
    const std::string where = ProgramLineOf(served, own).value_or(fmt::format("harness/{}:{}", name, h.line));
    return Status::InvalidArgument(fmt::format(
        "{}: the iteration cuco init would serve uses '{}' ({}), which code inside EVOLVE blocks may not: candidates "
        "could never run it; take it out of the timed loop, or name another loop with --loop file:line",
        where, h.token, h.category));
  }
  return Status::Ok();
}

// The guesses as ScaffoldReport reports them (defaults where a regex was not guessed).
void FillReport(const ProgramFacts& f, const HarnessSizes& sizes, ScaffoldReport* rep) {
  rep->world_size = f.world.size;
  rep->world_size_source = f.world.source;
  rep->launcher = f.launcher;
  rep->libs = f.libs;
  rep->time_regex = f.time ? f.time->regex : "Time:\\s*([0-9.eE+-]+)\\s*ms";
  rep->pass_regex = f.pass ? f.pass->regex : "PASS";
  rep->fail_regex = f.fail ? f.fail->regex : "";
  rep->time_regex_guessed = f.time.has_value();
  rep->pass_regex_guessed = f.pass.has_value();
  rep->sizes = sizes.sizes;
  for (const auto& b : f.io.inputs) rep->inputs.push_back(IoName(b));
  for (const auto& b : f.io.outputs) rep->outputs.push_back(IoName(b));
  rep->todos = f.todos;
}

// The program's files as the user wrote them (what program mode builds).
struct AsWritten {
  std::string main;
  std::vector<ProgramFile> others;
};

// Makes `raw` (main's file) and `more` (its other files) what the harness builds: a C source as the
// analysis read it, with what C++ needs written in (analyze/c_as_cpp.h). Returns them as they were.
AsWritten ReadAsCpp(const Analysis& analysis, const std::string& program_path, const std::vector<std::string>& include_dirs,
                    std::string* raw, std::vector<ProgramFile>* more) {
  AsWritten was{*raw, *more};
  if (const auto cpp = analysis.cpp_texts.find(program_path); cpp != analysis.cpp_texts.end()) *raw = cpp->second;
  for (ProgramFile& pf : *more)
    if (const auto cpp = analysis.cpp_texts.find(pf.path); cpp != analysis.cpp_texts.end())
      pf.text = WithWorkloadIncludes(cpp->second, pf.path, pf.name, ProgramRoot(program_path), include_dirs);
  return was;
}

// The rank count and the rank the program reads from its arguments (f->program_args): a GPU count
// is the rank count in one process on every GPU (or as an option with a default there), and in a
// process a GPU where the program checks it against MPI's rank count or hands it to
// ncclCommInitRank; a rank read by position makes program mode's TODO say so.
void ReadRankArguments(ProgramFacts* f) {
  ArgumentWorld w = WorldFromArguments(f->code, f->file, f->program_args, f->world_vars);
  if (f->launcher == "single" && w.position == 0) w = WorldFromOption(f->constants, f->file, f->program_args, f->world_vars);
  if (f->launcher != "single" && !ComparedWithTheRankCount(f->code, w.variable, f->world_vars) &&
      !GivenToNcclAsTheRankCount(f->code, w.variable))
    w = {};
  if (w.position > 0 || !w.flag.empty()) {
    f->world = w.guess, f->world_argument = w.position, f->world_option = w.flag;
  } else if (WorldGuess mesh = WorldFromArgumentMesh(f->code, f->file, f->program_args, f->world_vars);
             !mesh.source.empty()) {
    f->world = mesh;
  }
  f->rank_argument = RankFromArguments(f->code, f->program_args);
  if (f->rank_argument > 0)  // program mode gives every process the same arguments; the harness, each its own rank
    std::replace(f->todos.begin(), f->todos.end(), ProgramModeRankTodo(0), ProgramModeRankTodo(f->rank_argument));
}

// The arguments the program is started with (`given`: --args; where none are, its rank alone when
// that is all it reads: RankAloneArguments), what it reads from them, and what main stops without
// that they lack (a TODO each). An error names --args when it cannot be split.
Status ReadArguments(const std::string& given, ProgramFacts* f) {
  std::string args_error;
  std::vector<std::string> program_args;
  if (!SplitProgramArguments(given, &program_args, &args_error)) return Status::InvalidArgument(args_error);
  if (program_args.empty()) {  // a program started once per rank with its rank as its argument
    program_args = RankAloneArguments(f->raw, f->code, f->constants);
    f->rank_alone_arguments = !program_args.empty();
  }
  SetProgramArguments(f, std::move(program_args));
  ReadRankArguments(f);
  f->arguments_missing = ArgumentsMissing(ArgumentsMainRequires(f->raw), f->file, f->program_args,
                                          static_cast<int>(f->program_args.size()));
  for (const std::string& m : f->arguments_missing) f->todos.push_back("workload.toml [program] args: " + m);
  return Status::Ok();
}

}  // namespace

std::string DefaultWorkloadName(const std::string& program_path) {
  std::string stem = fs::path(program_path).stem().string();
  if (stem == "main") {
    const fs::path dir = fs::absolute(program_path).lexically_normal().parent_path();
    const std::string folder = dir.filename().string();
    // A folder named for its language or role (NCCL's examples each sit in c/) says nothing: its
    // parent is named too, and a hash of the folder's path keeps two such programs apart (their
    // workloads, and the stores named after them).
    // Any name holding "src" (csrc, srcs, cuda_src) is such a role too.
    static const std::set<std::string> generic = {"c", "cc", "cpp", "cxx", "cu", "cuda", "source", "sources", "code",
                                                  "app", "apps", "prog", "program", "main", "test", "tests", "example",
                                                  "examples", "demo", "bin", "lib", "core", "impl", "host", "tools"};
    const bool role = generic.count(folder) > 0 || folder.find("src") != std::string::npos;
    if (role && !dir.parent_path().filename().empty())
      stem = dir.parent_path().filename().string() + "_" + folder + "_" + Sha256Hex(dir.string()).substr(0, 4);
    else if (!folder.empty())
      stem = folder;
  }
  return SanitizeWorkloadName(stem);
}

std::string ProgramOrigin(const std::string& program_path) {
  return ResolvedPath(program_path).string();
}

std::string ProgramInputsHash(const std::vector<std::string>& files, const std::vector<std::string>& compile_flags,
                              const std::vector<std::string>& libraries, const std::string& loop, const std::string& args) {
  std::string all = "cuco-inputs-v1\n";
  for (const std::string& f : files) {
    Result<std::string> text = ReadFile(f);
    all += "file " + ProgramOrigin(f) + "\n" + (text.ok() ? Sha256Hex(*text) : "unreadable") + "\n";
  }
  for (const std::string& f : compile_flags) all += "flag " + f + "\n";
  for (const std::string& l : libraries) all += "lib " + l + "\n";
  if (!loop.empty()) all += "loop " + loop + "\n";
  if (!args.empty()) all += "args " + args + "\n";
  return Sha256Hex(all);
}

ProgramWorkloadState StateOfProgramWorkload(const fs::path& dir, const std::string& inputs_hash, std::string* was) {
  std::error_code ec;
  if (!fs::exists(dir / "harness" / "workload.toml", ec)) return ProgramWorkloadState::kNone;
  Result<std::string> recorded = ReadFile(dir / kInputsFile);
  if (!recorded.ok() || Trim(*recorded) == inputs_hash) return ProgramWorkloadState::kCurrent;
  if (was) *was = Trim(*recorded);
  return ProgramWorkloadState::kChanged;
}

std::string SanitizeWorkloadName(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-') out += c;
    else if (!out.empty() && out.back() != '_') out += '_';
  }
  while (!out.empty() && (out.back() == '_' || out.back() == '.')) out.pop_back();
  while (!out.empty() && out.front() == '.') out.erase(0, 1);
  return out.empty() ? "workload" : out;
}

// `--loop FILE:LINE` (`loop`) into f->forced_loop_line, and f->forced_loop_file where FILE is another
// of the program's source files (`more`), not main's.
static Status SetForcedLoop(const std::string& loop, const std::vector<ProgramFile>& more, ProgramFacts* f) {
  const size_t colon = loop.rfind(':');
  const std::string file = colon == std::string::npos ? "" : fs::path(loop.substr(0, colon)).filename().string();
  const int line = colon == std::string::npos ? 0 : std::atoi(loop.c_str() + colon + 1);
  const bool other = std::any_of(more.begin(), more.end(), [&](const ProgramFile& pf) {
    return pf.source && fs::path(pf.path).filename() == file;
  });
  if (line <= 0 || (file != f->file && !other))
    return Status::InvalidArgument("--loop '" + loop + "': want FILE:LINE, the line of a loop in one of the program's "
                                   "source files (" + f->file + " or another given to cuco init)");
  f->forced_loop_line = line;
  if (file != f->file) f->forced_loop_file = file;
  return Status::Ok();
}

Result<ScaffoldReport> ScaffoldWorkload(const Analysis& analysis, const std::string& program_path,
                                        const fs::path& out_dir, const ScaffoldOptions& options) {
  auto raw = ReadFile(program_path);
  if (!raw.ok()) return Status::InvalidArgument(program_path + ": cannot read the program (" + raw.status().message() + ")");
  CUCO_RETURN_IF_ERROR(CheckInput(analysis, program_path, out_dir, options));
  const std::string name =
      options.name.empty() ? DefaultWorkloadName(program_path) : SanitizeWorkloadName(options.name);
  if (!options.name.empty() && name != options.name)
    return Status::InvalidArgument("--name '" + options.name + "': a workload name may hold only letters, digits, '_', '-' and '.'");

  Result<std::vector<ProgramFile>> more = CollectProgramFiles(program_path, options.other_sources, options.own_include_dirs);
  if (!more.ok()) return more.status();
  const AsWritten as_written = ReadAsCpp(analysis, program_path, options.own_include_dirs, &*raw, &*more);
  ProgramFacts f = GatherFacts(analysis, fs::path(program_path).filename().string(), name, *raw, *more);
  if (!options.loop.empty()) CUCO_RETURN_IF_ERROR(SetForcedLoop(options.loop, *more, &f));
  CUCO_RETURN_IF_ERROR(ReadArguments(options.args, &f));
  std::error_code cwd_error;
  for (const std::string& m : RelativeInputPaths(f, fs::current_path(cwd_error).string())) f.todos.push_back(m);
  for (const std::string& m : WrittenPathTodos(f.program_args)) f.todos.push_back(m);
  // The program's own include folders are named relative to the workload, which holds copies.
  const std::string main_dir = fs::path(program_path).parent_path().string();
  const std::set<std::string> own(options.own_include_dirs.begin(), options.own_include_dirs.end());
  for (const std::string& flag : options.compile_flags) f.build_flags.push_back(OwnIncludeFlag(flag, main_dir, own));
  for (const std::string& flag : options.nvcc_flags) f.build_flags.push_back(flag);
  if (!options.unused_flags.empty())
    f.todos.push_back(fmt::format("workload.toml [build] flags: the build line's {} `{}` {} not used by cuco's builds "
                                  "(which choose the GPU architecture, optimisation and linking themselves); add any the "
                                  "program needs to both workload.toml files",
                                  options.unused_flags.size() == 1 ? "flag" : "flags",
                                  fmt::join(options.unused_flags, " "), options.unused_flags.size() == 1 ? "is" : "are"));
  AddBuildLineLibraries(options.link_libraries, &f.libs);
  for (const ProgramFile& pf : *more)
    if (pf.source) f.build_sources.push_back(pf.name);
  if (f.world.source.empty()) {  // main's file names no rank count: its other files and headers may
    std::vector<std::pair<std::string, std::string>> texts;
    for (const ProgramFile& pf : *more) texts.push_back({pf.name, StripComments(pf.text)});
    const int least = f.world.least;  // what the calls' named ranks need stays needed
    f.world = WorldSizeInOtherFiles(f.code, texts, f.world_vars);
    f.world.least = std::max(f.world.least, least);
  }
  f.world = FewestNotRefused(f.code, f.file, f.world_vars, f.world);  // `if (worldSize < 3) return 1;`: 4
  if (f.world.source.empty()) f.todos.push_back("workload.toml world_size: no rank count found in the program; 2 assumed");
  const HarnessSizes sizes = SplitConstants(f.constants, f.world_vars, f.file);

  ScaffoldReport rep;
  rep.out_dir = out_dir;
  rep.name = f.name;
  const fs::path harness = out_dir / "harness";
  std::vector<std::pair<fs::path, std::string>> files = {
      {out_dir / f.file, as_written.main},
      {out_dir / "workload.toml", ProgramToml(f)},
      {out_dir / "analysis.txt", FormatAnalysis(analysis)},
  };
  // harness/: the program itself as a harness-mode workload when init can make one, else a skeleton.
  Result<ProgramHarness> ph = MakeProgramHarness(f, *more, &rep.explain);
  if (ph.ok())
    if (Status served = ServedCodeAllowed(*ph, f, *more); !served.ok()) ph = served;
  if (ph.ok()) {
    for (const auto& [name, text] : ph->files) files.push_back({harness / name, text});
    rep.harness_ready = true;
    rep.harness_guesses = ph->guesses;
    for (const std::string& todo : ph->todos) f.todos.push_back(todo);
  } else {
    rep.harness_ready = false;
    rep.harness_reason = ph.status().message();
    f.todos.push_back("harness/: " + ph.status().message() + "; fill in every TODO(cuco init) in workload.toml, "
                      "reference.cu and seed.cu (harness/README.md)");
    files.push_back({harness / "workload.toml", HarnessToml(f, sizes)});
    Result<std::string> seed = SkeletonSeed(f, sizes, harness);
    if (!seed.ok()) return seed.status();
    files.push_back({harness / "seed.cu", std::move(*seed)});
    files.push_back({harness / "reference.cu", ReferenceCu(f)});
    files.push_back({harness / "README.md", HarnessReadme(f)});
  }
  for (const ProgramFile& pf : as_written.others) files.insert(files.begin() + 1, {out_dir / pf.name, pf.text});
  // The files at the workload's and the harness's top sit where the main file sat: their includes of
  // the program's files above it (`../common.cuh`) name the copies (`_up/common.cuh`).
  for (auto& [path, text] : files)
    if (path.parent_path() == out_dir || path.parent_path() == harness)
      text = WithWorkloadIncludes(text, program_path, path.filename().string(), main_dir, options.own_include_dirs);
  CUCO_RETURN_IF_ERROR(WriteAndCheck(files, out_dir, harness, &rep));
  // Which program this is, for `cuco run` (which reuses a workload only when made from this program).
  CUCO_RETURN_IF_ERROR(WriteFileAtomic(out_dir / kOriginFile, ProgramOrigin(program_path) + "\n"));
  std::string inputs_hash = options.inputs_hash;
  if (inputs_hash.empty()) {
    std::vector<std::string> inputs = {program_path};
    inputs.insert(inputs.end(), options.other_sources.begin(), options.other_sources.end());
    inputs_hash = ProgramInputsHash(inputs, options.compile_flags, options.link_libraries, options.loop, options.args);
  }
  CUCO_RETURN_IF_ERROR(WriteFileAtomic(out_dir / kInputsFile, inputs_hash + "\n"));
  FillReport(f, sizes, &rep);
  if (ph.ok()) rep.inputs = ph->inputs, rep.outputs = ph->outputs;
  return rep;
}

nlohmann::json ScaffoldReportToJson(const ScaffoldReport& r) {
  nlohmann::json j;
  j["schema"] = "cuco.init/1";
  j["out_dir"] = r.out_dir.string();
  j["name"] = r.name;
  j["files"] = nlohmann::json::array();
  for (const auto& f : r.files) j["files"].push_back(f.string());
  j["world_size"] = r.world_size;
  j["world_size_source"] = r.world_size_source;
  j["launcher"] = r.launcher;
  j["libs"] = r.libs;
  j["time_regex"] = r.time_regex;
  j["time_regex_guessed"] = r.time_regex_guessed;
  j["pass_regex"] = r.pass_regex;
  j["pass_regex_guessed"] = r.pass_regex_guessed;
  j["fail_regex"] = r.fail_regex;
  j["sizes"] = nlohmann::json::array();
  for (const auto& s : r.sizes) j["sizes"].push_back({{"name", s.name}, {"value", s.value}, {"source", s.source}});
  j["inputs"] = r.inputs;
  j["outputs"] = r.outputs;
  j["todos"] = r.todos;
  j["harness_ready"] = r.harness_ready;
  j["harness_reason"] = r.harness_reason;
  j["harness_guesses"] = r.harness_guesses;
  return j;
}

}  // namespace cuco
