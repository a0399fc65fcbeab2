// cuco init: a workload folder scaffolded from a user's host-driven CUDA+NCCL program: program mode
// (the program as is, untrusted), plus harness mode made of the program itself in harness/, or a
// skeleton with TODOs where that cannot be made (src/scaffold/scaffold.h).
#include <iostream>

#include "analyze/analysis.h"
#include "scaffold/scaffold.h"
#include "cli/commands.h"
#include "cli/program_flags.h"
#include "scaffold/program_analysis.h"
#include "toolchain/toolchain.h"

namespace cuco {

namespace {

// `cuco init --explain`: what each pass of the harness decided and why (scaffold/program_harness.h).
void PrintExplain(const ScaffoldReport& r) {
  std::cout << "\nhow harness/ was made (cuco init --explain):\n";
  for (const auto& pass : r.explain) {
    std::cout << "  " << pass.pass << ":\n";
    for (const auto& line : pass.lines) std::cout << "    - " << line << "\n";
  }
}

nlohmann::json ExplainJson(const ScaffoldReport& r) {
  nlohmann::json j = nlohmann::json::array();
  for (const auto& pass : r.explain) j.push_back({{"pass", pass.pass}, {"lines", pass.lines}});
  return j;
}

// What init wrote and decided, what to do next.
void PrintInitReport(const ScaffoldReport& r, const Analysis& a, const std::string& file, const std::string& d, bool explain) {
  std::cout << "cuco init: wrote " << d << "/ from " << file << " (parsed with " << a.parse_path << ")\n";
  for (const auto& f : r.files) std::cout << "  " << f.string() << "\n";
  std::cout << "\nprogram mode: " << r.name << ", " << r.world_size << " ranks"
            << (r.world_size_source.empty() ? " (assumed)" : " (" + r.world_size_source + ")") << ", launcher "
            << r.launcher << ", libs";
  for (const auto& l : r.libs) std::cout << " " << l;
  std::cout << "\n  time_regex " << r.time_regex << (r.time_regex_guessed ? "" : " (default)") << "\n  pass_regex "
            << r.pass_regex << (r.pass_regex_guessed ? "" : " (default)") << "\n";
  if (r.harness_ready) {
    std::cout << "harness mode (trusted): " << r.name << "_harness in " << d << "/harness, the program itself:\n";
    for (const auto& g : r.harness_guesses) std::cout << "  " << g << "\n";
  } else {
    std::cout << "harness skeleton: " << r.name << "_harness, sizes";
    if (r.sizes.empty()) std::cout << " (none found)";
    for (const auto& s : r.sizes) std::cout << " " << s.name << "=" << s.value;
    std::cout << "\n  not the program itself: " << r.harness_reason << "\n";
  }
  if (!r.todos.empty()) {
    std::cout << "\nTODO:\n";
    for (const auto& t : r.todos) std::cout << "  - " << t << "\n";
  }
  std::cout << "\nnext:\n";
  if (r.harness_ready)
    std::cout << "  cuco eval " << d << "/harness             verify and time the program in the harness (sandboxed, trusted)\n"
              << "  cuco run " << d << "/harness              generation 0 and the search\n"
              << "  cuco eval " << d << "                     run the program as it is (program mode, untrusted)\n";
  else
    std::cout << "  cuco eval " << d << "                      run the program as it is (program mode, untrusted)\n"
              << "  fill in " << d << "/harness (grep -n 'TODO(cuco init)' " << d << "/harness/*), then\n"
              << "  cuco eval " << d << "/harness --stage compile   and   cuco transform " << d << "/harness\n";
  if (explain) PrintExplain(r);
}

}  // namespace

void AddInitCommand(CLI::App& app, int* exit_code) {
  auto* cmd = app.add_subcommand("init", "Make workloads of your CUDA+NCCL program: harness/ (harness mode, trusted: the "
                                         "program itself, verified against its own code), and program mode that runs it "
                                         "as is (under mpirun or cuco's launcher); where harness/ cannot be the program, "
                                         "a skeleton with TODOs and the reason");
  auto files = std::make_shared<std::vector<std::string>>();
  auto out = std::make_shared<std::string>();
  auto name = std::make_shared<std::string>();
  auto force = std::make_shared<bool>(false);
  auto json = std::make_shared<bool>(false);
  auto loop = std::make_shared<std::string>();
  auto explain = std::make_shared<bool>(false);
  auto args = std::make_shared<std::string>();
  cmd->add_option("program", *files, "The program's files (.cu, .cc, .cpp), the one defining main first (else it is found among them)")->required();
  cmd->add_option("--out", *out, "The folder to create (default: workloads/<name>)");
  cmd->add_option("--name", *name, "Workload name (default: the program's file stem; for main.*, its folder's name, or, where the "
                  "folder is named for a role (src, c, cuda, ...), its parent's and its own with a short hash of "
                  "the path)");
  cmd->add_flag("--force", *force, "Write into a folder that is not empty (files of the same name are replaced)");
  cmd->add_flag("--json", *json, "Print what was written as JSON (schema cuco.init/1)");
  cmd->add_option("--loop", *loop, "FILE:LINE of the loop the harness serves (its for/while line, in main's file or "
                                   "another source given), when init cannot decide or decides wrong");
  cmd->add_option("--args", *args, "The arguments you run the program with (\"4 --seq 128\"), passed to it by the "
                                   "harness and in program mode (default: none)");
  cmd->add_flag("--explain", *explain, "Print what each pass of the harness decided and why: the loop chosen and those "
                                       "rejected, each buffer's binding, main's rewrite, the files, what was rendered");
  auto flags = AddProgramFlagOptions(cmd);
  cmd->callback([files, out, name, force, json, loop, explain, args, flags, exit_code] {
    if (const std::string moved = MainFileFirst(files.get()); !moved.empty()) std::cerr << "cuco init: " << moved << "\n";
    const auto file = std::make_shared<std::string>(files->front());
    Result<CompileFlags> f = ResolveProgramFlags(*flags, *file);
    if (!f.ok()) {
      std::cerr << "cuco init: " << f.status().message() << "\n";
      *exit_code = kExitUsage;
      return;
    }
    if (const std::string added = AddCommandSources(*f, files.get()); !added.empty())
      std::cerr << "cuco init: " << added << "\n";
    Result<Analysis> a = AnalyzeOnThisMachine(*files, *f, DetectToolchain());
    if (!a.ok()) {
      std::cerr << "cuco init: " << a.status().message() << "\n";
      *exit_code = kExitUsage;
      return;
    }
    const std::filesystem::path dir =
        out->empty() ? std::filesystem::path("workloads") /
                           (name->empty() ? DefaultWorkloadName(*file) : SanitizeWorkloadName(*name))
                     : std::filesystem::path(*out);
    ScaffoldOptions so;
    so.name = *name;
    so.force = *force;
    so.compile_flags = f->flags;
    so.nvcc_flags = f->nvcc_flags;
    so.unused_flags = f->unused;
    so.link_libraries = f->libraries;
    so.own_include_dirs = f->own_include_dirs;
    so.loop = *loop;
    so.args = *args;
    so.other_sources.assign(files->begin() + 1, files->end());
    Result<ScaffoldReport> r = ScaffoldWorkload(*a, *file, dir, so);
    if (!r.ok()) {
      std::cerr << "cuco init: " << r.status().message() << "\n";
      const Status::Code c = r.status().code();
      *exit_code = c == Status::Code::kInvalidArgument || c == Status::Code::kNotFound ? kExitUsage : kExitInternal;
      return;
    }
    for (const auto& w : a->warnings) std::cerr << "cuco init: analysis: " << w << "\n";
    if (*json) {
      nlohmann::json j = ScaffoldReportToJson(*r);
      if (*explain) j["explain"] = ExplainJson(*r);
      std::cout << j.dump(2) << "\n";
      *exit_code = kExitOk;
      return;
    }
    PrintInitReport(*r, *a, *file, dir.string(), *explain);
    *exit_code = kExitOk;
  });
}

}  // namespace cuco
