#include "scaffold/init_render.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <regex>

#include "scaffold/generated_text.h"
#include "scaffold/harness_sizes.h"
#include "scaffold/host_clocks.h"
#include "scaffold/input_files.h"
#include "scaffold/loop_accesses.h"
#include "scaffold/main_rewrite.h"
#include "scaffold/tokens.h"
#include "scaffold/world_size.h"
#include "util/source_text.h"
#include "util/text.h"
#include "workload/deny_list.h"
#include "workload/evolve_blocks.h"
#include "workload/program_seed.h"

namespace cuco::scaffold_internal {
namespace {

namespace fs = std::filesystem;

// The seed's spelling of the calls the harness owns (the stand-ins of cuco/program/candidate.h),
// so that the text inside the EVOLVE blocks names no stream, event, device, environment or exit call.
std::string CandidateSpellings(const std::string& text) {
  static const std::regex std_prefixed(R"(\bstd\s*::\s*(getenv|exit|abort)\b)");
  const std::string plain = std::regex_replace(text, std_prefixed, "$1");
  std::vector<std::pair<std::string, std::string>> renames;
  for (const char* n : {"StreamCreate", "StreamCreateWithFlags", "StreamCreateWithPriority", "StreamDestroy", "EventCreate",
                        "EventCreateWithFlags", "EventRecord", "EventRecordWithFlags", "StreamWaitEvent", "EventSynchronize",
                        "EventQuery", "EventElapsedTime", "EventDestroy", "SetDevice"})
    renames.push_back({std::string("cuda") + n, std::string("cuco_program::shim::") + n});
  renames.push_back({"getenv", "cuco_program::program_getenv"});
  renames.push_back({"exit", "cuco_program_exit"});
  renames.push_back({"abort", "cuco_program_abort"});
  return RenameTokens(plain, renames);
}


// The end marker of a block and what follows it: the marker is a line of its own, so code after
// the block on its last line (`} sync(s);`) starts a line of its own rather than joining the comment.
std::string EndMarkerThen(const std::string& rest) {
  return std::string(kEvolveEndLine) + (rest.empty() || rest.front() == '\n' ? "" : "\n") + rest;
}

// Marks each definition of `names` found in `text` as an EVOLVE block; the names marked go to *marked.
std::string MarkEvolve(const std::string& text, const std::vector<std::string>& names, std::vector<std::string>* marked) {
  std::vector<std::pair<size_t, size_t>> spans;
  for (const auto& n : names) {
    size_t b = 0, e = 0;
    if (DefinitionLines(text, n, &b, &e)) spans.push_back({b, e}), marked->push_back(n);
  }
  std::sort(spans.begin(), spans.end());
  std::string out;
  size_t at = 0;
  for (const auto& [b, e] : spans) {
    if (b < at) continue;  // overlapping (nested) definitions: the outer one holds it
    out += text.substr(at, b - at) + kEvolveStartLine + "\n" + text.substr(b, e - b) + "\n" + kEvolveEndLine;
    at = e;  // DefinitionLines ends at a line's end: the marker stays a line of its own
  }
  return out + text.substr(at);
}

struct Tolerance {
  double rel_l2, max_rel;
  std::string why;
};
Tolerance ToleranceFor(const std::string& dtype) {
  if (dtype == "kBF16") return {0.02, 0.25, "bf16 outputs (8 significant bits): the reference sums in fp64, NCCL in bf16"};
  if (dtype == "kF16") return {0.01, 0.1, "fp16 outputs (11 significant bits)"};
  if (dtype == "kF64") return {1e-9, 1e-7, "fp64 outputs"};
  return {1e-4, 1e-2, "fp32 outputs: a change of summation order moves them by ~1e-7 relative; TF32 (~1e-3) fails"};
}

// The tolerance of the least precise of the communication's datatype (`dtype`, kF32 when none) and
// the outputs' declared element types: a program all-reducing fp32 into a half output (or moving
// bytes by MPI) is compared as fp16, naming the output that decides it.
Tolerance OutputsTolerance(const std::string& dtype, const std::vector<std::pair<std::string, std::string>>& outputs) {
  static const std::vector<std::pair<std::string, std::string>> kLeastPreciseFirst = {
      {"__nv_bfloat16", "kBF16"}, {"__half", "kF16"}, {"float", "kF32"}};
  const auto rank = [](const std::string& d) {
    for (size_t i = 0; i < kLeastPreciseFirst.size(); ++i)
      if (kLeastPreciseFirst[i].second == d) return i;
    return kLeastPreciseFirst.size();
  };
  std::string chosen = dtype, by;
  for (const auto& [expr, type] : outputs)
    for (const auto& [cpp, d] : kLeastPreciseFirst)
      if (type == cpp && rank(d) < rank(chosen)) chosen = d, by = expr + " is " + cpp;
  Tolerance t = ToleranceFor(chosen);
  if (!by.empty()) t.why = t.why.substr(0, t.why.find(':')) + " (" + by + ")";
  return t;
}

std::string HarnessWorkloadToml(const ProgramFacts& f, const TimedLoop& loop,
                                const std::vector<std::pair<std::string, std::string>>& output_types) {
  const Tolerance tol = OutputsTolerance(f.dtype, output_types);
  const std::vector<TimedLoop::SizeFlag>& sizes = loop.size_flags;
  std::string t;
  t += fmt::format("# {}_harness: the program {} run by the harness, written by `cuco init`.\n", f.name, f.file);
  t += fmt::format("# seed.cu is the program's own code ({} the iteration); reference.cu is the same code,\n",
                   loop.region ? "the statements served whole are" : "its timed loop is");
  t += "# frozen, with every rank a thread of the supervisor and NCCL emulated (cuco/program/reference.h).\n";
  t += KeyLine("name = " + TomlQuoted(f.name + "_harness"));
  std::string colls;
  for (size_t i = 0; i < f.collectives.size(); ++i) colls += (i ? ", " : "") + f.collectives[i];
  t += KeyLine("description = " +
               TomlLiteralOrQuoted(fmt::format("{}, one harness iteration per {} ({}:{}): {}", f.file,
                                               loop.region ? "run of the statements served whole"
                                                           : "pass of its timed loop",
                                               f.file, loop.line, colls.empty() ? "no collective" : colls)));
  t += KeyLine("mode = \"harness\"");
  t += KeyLine("language = \"cuda\"");
  t += KeyLine("seed = \"seed.cu\"");
  t += KeyLine("reference = \"reference.cu\"");
  t += KeyLine(fmt::format("world_size = {}", f.world.size), f.world.source.empty() ? "2 assumed" : f.world.source);
  // A rank count the program holds as a constant is the only one it runs at.
  std::vector<int> ws = f.world.fixed ? std::vector<int>{f.world.size} : std::vector<int>{1, 2, 4, 8};
  if (std::find(ws.begin(), ws.end(), f.world.size) == ws.end()) ws.push_back(f.world.size), std::sort(ws.begin(), ws.end());
  // The rank counts the program refuses itself (`if (world % 2) exit(1);`) are left out.
  const std::map<int, std::string> refused = RefusedWorldSizes(f.code, f.file, f.world_vars, ws);
  std::string wss, left_out;
  for (int w : ws) {
    if (w < f.world.least) continue;  // a rank its calls name would not exist
    if (refused.count(w) && w != f.world.size) {
      left_out += fmt::format("{}{} ({})", left_out.empty() ? "" : ", ", w, refused.at(w));
      continue;
    }
    wss += (wss.empty() ? "" : ", ") + std::to_string(w);
  }
  if (!left_out.empty()) t += "# Left out, refused by the program: " + left_out + "\n";
  t += KeyLine("world_sizes = [" + wss + "]", "the rank counts to verify at; remove those the program refuses");
  if (const std::vector<std::string> reads = AbsoluteInputPaths(f.program_args); !reads.empty())
    t += KeyLine("reads = " + TomlList(reads), "paths the program's arguments name: read-only in candidates' sandboxes");
  if (const std::vector<std::string> folders = WrittenFolders(f); !folders.empty())
    t += KeyLine("run_folders = " + TomlList(folders), "folders the program writes into: made, empty, where each run starts");
  t += "\n[build]\n";
  t += KeyLine("flags = " + TomlList(f.build_flags), "-O3 and the program's own flags");
  std::vector<std::string> libs;
  for (const auto& l : f.libs)
    if (l != "mpi") libs.push_back(l);
  t += KeyLine("libs = " + TomlList(libs), "MPI is answered by cuco/program/mpi.h");
  if (std::none_of(sizes.begin(), sizes.end(), [](const TimedLoop::SizeFlag& z) { return !z.size.empty(); })) {
    t += "\n# The program runs at its own sizes (its defaults): there are none to pass.\n[sizes.verify]\n\n[sizes.bench]\n";
  } else {
    t += "\n# The sizes the program reads from its options, arguments or environment, passed to it there\n"
         "# (`--size NAME=V` changes one).\n[sizes.verify]\n";
    for (const auto& z : sizes)
      if (!z.size.empty()) t += KeyLine(fmt::format("{} = {}", z.size, VerifySize(z.value)), z.Spelling() + ", smaller where it is large");
    t += "\n[sizes.bench]\n";
    for (const auto& z : sizes)
      if (!z.size.empty()) t += KeyLine(fmt::format("{} = {}", z.size, z.value), z.Spelling() + "'s default in the program");
  }
  t += "\n[tolerance]\n";
  t += fmt::format("# {}. max_abs is relative here: the worst element error over\n# the RMS of the reference's outputs.\n", tol.why);
  t += KeyLine(fmt::format("rel_l2 = {}", tol.rel_l2));
  t += KeyLine(fmt::format("max_abs = {}", tol.max_rel));
  t += "\n[timing]\nwarmup = 5\niters = 20\nverify_runs = 2\nverify_fraction = 0.25\n";
  t += "\n[limits]\ncompile_s = 600\nverify_s = 180\nbench_s = 300\n";
  return t;
}

std::string Readme(const ProgramFacts& f, const ProgramHarness& h, bool region) {
  std::string r = fmt::format("# {}_harness\n\nThe program `{}` as a harness-mode workload, written by `cuco init`.\n\n", f.name, f.file);
  r += fmt::format("- `seed.cu`: the program's files one after the other; `main` runs once up to {} (the\n"
                   "  harness's setup), then each harness iteration runs {} once on the harness's\n"
                   "  buffers (`cuco/program/program.h`). Only the EVOLVE blocks may change in candidates.\n",
                   region ? "the statements it serves whole" : "its timed loop", region ? "them" : "the loop's body");
  r += "- `reference.cu`: the same code, frozen: every rank a thread of the supervisor on one GPU, NCCL\n"
       "  emulated between them. Inputs are fresh random values at the program's own scale (floats;\n"
       "  uniform in [-1, 1) where the program zeroed them) or the program's own values (integers);\n"
       "  outputs are compared on every rank.\n\n";
  r += "What cuco init decided (correct it here, or in the program, and run `cuco init` again):\n\n";
  for (const auto& g : h.guesses) r += "- " + g + "\n";
  return r;
}

// The first API the deny-list refuses in candidates that the definition of `fn` (in the program's
// main file or another of its files) uses, as "file:line: fn uses 'clock' (timing and event
// APIs)"; "" when none does or the definition is not found. `respelled`: as the seed holds it, with
// what CandidateSpellings answers (`cudaSetDevice`, `exit`) spelled so.
std::string DeniedUse(const ProgramFacts& f, const std::string& fn, bool respelled = false) {
  std::vector<std::pair<std::string, const std::string*>> texts = {{f.file, &f.raw}};
  for (const auto& [name, code] : f.other_code) texts.push_back({name, &code});
  for (const auto& [file, text] : texts) {
    size_t b = 0, e = 0;
    if (!DefinitionLines(*text, fn, &b, &e)) continue;
    const std::string body = respelled ? CandidateSpellings(text->substr(b, e - b)) : text->substr(b, e - b);
    const std::string block = std::string(kEvolveStartLine) + "\n" + body + "\n" + kEvolveEndLine + "\n";
    Result<std::vector<DenyHit>> hits = ScanEvolveBlocks(block, file);
    if (!hits.ok() || hits->empty()) return "";
    const DenyHit& h = hits->front();
    return fmt::format("{}:{}: {} uses '{}' ({})", file, LineOf(*text, b) + h.line - 2, fn, h.token, h.category);
  }
  return "";
}

// The program's functions the served iteration calls (the lines of bound.ranges in main's file), and
// those they call, by their texts in the program's files and headers (calls the analysis dropped,
// touching none of the caller's variables, included).
std::set<std::string> ServedFunctions(const ProgramFacts& f, const BoundBuffers& bound) {
  std::vector<std::pair<std::string, const std::string*>> texts = {{f.file, &f.raw}};
  for (const auto& [name, code] : f.other_code) texts.push_back({name, &code});
  for (const auto& [name, code] : f.header_code) texts.push_back({name, &code});  // llm.c's zero.cuh
  std::vector<std::string> todo;
  for (const auto& [lo, hi] : bound.ranges) {
    const size_t b = OffsetOfLine(f.raw, lo), e = OffsetOfLine(f.raw, hi + 1);
    if (b < e) todo.push_back(f.raw.substr(b, e - b));
  }
  std::set<std::string> served;
  while (!todo.empty()) {
    const std::string text = std::move(todo.back());
    todo.pop_back();
    for (const auto& [name, args] : CallsIn(BlankCommentsAndLiterals(text))) {
      if (served.count(name) || KeywordBeforeParen(name)) continue;  // `switch (` is no call of a function
      for (const auto& [file, code] : texts) {
        size_t b = 0, e = 0;
        if (!DefinitionLines(*code, name, &b, &e)) continue;
        served.insert(name);
        todo.push_back(code->substr(b, e - b));
        break;
      }
    }
  }
  return served;
}

// The functions inside EVOLVE blocks: those issuing the communication, the program's functions they
// call and those the loop (and its lambdas) call directly: the compute around the communication.
// A function called that uses what candidates may not (DeniedUse: a kernel sleeping on clock())
// stays frozen, outside the blocks, said in *frozen; so does a function issuing communication that
// the served iteration never calls (another mode's benchmark), where the iteration's own is known.
std::vector<std::string> EvolveFunctions(const ProgramFacts& f, const FoundLoop& found, const BoundBuffers& bound,
                                         std::vector<std::string>* frozen) {
  const Analysis& a = *f.analysis;
  // A function issuing communication the served iteration never calls (another mode's benchmark)
  // stays frozen where the iteration's own communication is known to be in the blocks without it:
  // one declaration of the knobs then reaches every call the blocks hold.
  const std::set<std::string> served_fns = ServedFunctions(f, bound);
  static const std::regex comm_call(
      R"(\bnccl(AllReduce|AllGather|ReduceScatter|Reduce|Broadcast|Bcast|Send|Recv|AlltoAll|AllToAll|Gather|Scatter)\s*\()");
  bool own_known = found.direct.count(found.loop_fn) > 0 ||
                   std::any_of(found.direct.begin(), found.direct.end(),
                               [&](const std::string& fn) { return served_fns.count(fn) > 0; });
  for (const auto& [lo, hi] : bound.ranges) {  // the loop's own calls (its lambdas' included)
    const size_t b = OffsetOfLine(f.raw, lo), e = OffsetOfLine(f.raw, hi + 1);
    own_known = own_known || (b < e && std::regex_search(BlankCommentsAndLiterals(f.raw.substr(b, e - b)), comm_call));
  }
  std::vector<std::string> evolve;
  std::set<std::string> kept;  // the functions issuing communication in the blocks
  for (const std::string& fn : found.direct) {
    if (!own_known || served_fns.count(fn) || fn == found.loop_fn) evolve.push_back(fn), kept.insert(fn);
    else frozen->push_back(fmt::format("{} issues communication the served iteration never calls: it stays frozen, as "
                                       "the program wrote it", fn));
  }
  auto add = [&](const std::string& fn) {
    if (fn != "main" && fn != found.loop_fn && FindFunction(a, fn) && std::find(evolve.begin(), evolve.end(), fn) == evolve.end())
      evolve.push_back(fn);
  };
  for (const auto& op : a.ops) {
    if (op.kind != "kernel" && op.kind != "call") continue;
    if (kept.count(op.function)) add(op.api);
    if (op.function == found.loop_fn && SourceFileName(op.file) == f.file)
      for (const auto& [lo, hi] : bound.ranges)
        if (op.line >= lo && op.line <= hi) add(op.api);
  }
  std::vector<std::string> open;
  for (const std::string& fn : evolve) {
    std::string denied = DeniedUse(f, fn);
    std::string unserved;
    // One issuing the iteration's communication too stays in the blocks where the seed's spellings
    // answer what it uses (`cudaSetDevice`, `exit`); where they do not (hrshl212's save_solution: an
    // MPI_Gather, then fopen of a snapshot every 40 steps) it stays frozen, run as written, rather than none.
    if (!denied.empty() && found.direct.count(fn)) {
      if (served_fns.count(fn) && DeniedUse(f, fn, true).empty()) denied.clear();
      unserved = served_fns.count(fn) ? "; its communication stays as the program wrote it"
                                      : "; the served iteration never calls it";
    }
    if (denied.empty()) open.push_back(fn);
    else frozen->push_back(denied + ", which code inside EVOLVE blocks may not" + unserved +
                           ": it stays frozen, as the program wrote it");
  }
  return open;
}

// NCCL calls written in the loop itself (not in a lambda of main, which gets its own block).
bool CommInLoopBody(const ProgramFacts& f, const FoundLoop& found) {
  const TimedLoop& loop = found.loop;
  bool comm_in_loop_body = false;
  for (const auto& op : f.analysis->ops)
    if (IsCommOp(op) && op.function == found.loop_fn && SourceFileName(op.file) == f.file && op.line >= loop.line &&
        op.line <= loop.end_line) {
      bool in_lambda = false;
      for (const auto& l : loop.lambdas) in_lambda |= op.line >= l.line && op.line <= l.end_line;
      comm_in_loop_body |= !in_lambda;
    }
  return comm_in_loop_body;
}

// Whether a header of `headers` other than `name` includes `name` (by its file name).
bool IncludedByAnotherHeader(const std::vector<std::pair<std::string, std::string>>& headers, const std::string& name) {
  static const std::regex include(R"re(#\s*include\s*"([^"]+)")re");
  const std::string file = fs::path(name).filename().string();
  for (const auto& [other, text] : headers)
    for (auto it = std::sregex_iterator(text.begin(), text.end(), include); other != name && it != std::sregex_iterator(); ++it)
      if (fs::path((*it)[1].str()).filename() == file) return true;
  return false;
}

// `text`, the header `name`'s, with each `#include "X"` it resolves beside itself (`name`'s folder
// holds X among `headers`: llm.c's `llmc/encoder.cuh` including "cuda_common.h") spelled from the
// harness's folder ("llmc/cuda_common.h"), where the inlined text is compiled.
std::string IncludesFromHarnessRoot(const std::string& name, const std::string& text,
                                    const std::vector<std::pair<std::string, std::string>>& headers) {
  const fs::path dir = fs::path(name).parent_path();
  if (dir.empty()) return text;
  static const std::regex include(R"re((#[ \t]*include[ \t]*")([^"]+)("))re");
  std::string out;
  size_t at = 0;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), include); it != std::sregex_iterator(); ++it) {
    const std::string beside = (dir / (*it)[2].str()).lexically_normal().string();
    if (std::none_of(headers.begin(), headers.end(), [&](const auto& h) { return h.first == beside; })) continue;
    out += text.substr(at, static_cast<size_t>(it->position(0)) - at) + (*it)[1].str() + beside + (*it)[3].str();
    at = static_cast<size_t>(it->position(0) + it->length(0));
  }
  return out + text.substr(at);
}

// `unit` with the header `name`'s first `#include "..."` (by file name) replaced by `text` (its
// `#pragma once` lines dropped) and its others by a comment; false, `unit` unchanged, where it has none.
bool InlineHeader(const std::string& name, const std::string& text, std::string* unit) {
  // At a line's start only: `// #include "halo.h"`, a comment, is none.
  static const std::regex include(R"re((^|\n)[ \t]*#[ \t]*include[ \t]*"([^"]+)"[^\n]*)re");
  static const std::regex once(R"((^|\n)[ \t]*#[ \t]*pragma[ \t]+once[^\n]*)");
  const std::string file = fs::path(name).filename().string();
  std::string out;
  size_t at = 0;
  bool first = true;
  for (auto it = std::sregex_iterator(unit->begin(), unit->end(), include); it != std::sregex_iterator(); ++it) {
    if (fs::path((*it)[2].str()).filename() != file) continue;
    out += unit->substr(at, static_cast<size_t>(it->position(0)) - at) + (*it)[1].str();
    out += first ? "// cuco init: " + name + ", the program's header, inlined: a function of it is in the EVOLVE blocks\n" +
                       std::regex_replace(text, once, "$1") + "\n// cuco init: the end of " + name
                 : "// cuco init: " + name + " is inlined above";
    at = static_cast<size_t>(it->position(0) + it->length(0));
    first = false;
  }
  if (first) return false;
  *unit = out + unit->substr(at);
  return true;
}

// The program's texts with their EVOLVE blocks (seed) and without (reference), main's file last; the
// blocks marked go to *marked. A header of the program defining a function of the blocks (its
// communication: HALO_NCCL_lib's exchangeHalo in halo_lib.hpp) is inlined into both at its first
// #include, so that candidates may change it, unless another header includes it.
Status MarkedTexts(const ProgramFacts& f, const FoundLoop& found, const BoundBuffers& bound, const ProjectFiles& project,
                   std::string* seed, std::string* reference, std::vector<std::string>* marked,
                   std::vector<std::string>* frozen) {
  // A program that marks its own EVOLVE blocks keeps them, and gets no others.
  std::vector<std::string> evolve;
  if (!project.own_blocks) evolve = EvolveFunctions(f, found, bound, frozen);
  std::string seed_main = MarkEvolve(project.main_text, evolve, marked);
  for (auto it = project.lambdas.rbegin(); it != project.lambdas.rend() && !project.own_blocks; ++it) {  // main's lambdas
    if (!it->status.ok()) return it->status;
    const size_t at = seed_main.find(it->text);
    if (at == std::string::npos) continue;
    const size_t b = seed_main.rfind('\n', at) + 1;
    const size_t e = seed_main.find('\n', at + it->text.size());
    seed_main = seed_main.substr(0, b) + kEvolveStartLine + "\n" + seed_main.substr(b, e - b) + "\n" +
                EndMarkerThen(e == std::string::npos ? "" : seed_main.substr(e));
    marked->push_back("main's lambda " + it->name);
  }
  for (const ProjectedText& src : project.sources) {
    if (!src.status.ok()) return src.status;
    *seed += "// ==== " + src.name + " (the program's file) ====\n" + MarkEvolve(src.text, evolve, marked) + "\n";
    *reference += "// ==== " + src.name + " (the program's file) ====\n" + src.text + "\n";
  }
  if (project.own_blocks) {
    marked->push_back("the program's own");
  } else if (marked->empty() || CommInLoopBody(f, found)) {  // the loop's body issues communication itself
    const size_t at = seed_main.find("  cuco_program::serve(");
    const size_t end = seed_main.find("});", at);
    seed_main = seed_main.substr(0, at) + kEvolveStartLine + "\n" + seed_main.substr(at, end + 3 - at) + "\n" +
                EndMarkerThen(seed_main.substr(end + 3));
    marked->push_back(found.loop.region ? "the statements served whole" : "the timed loop's body");
  }
  *seed += "// ==== " + f.file + " (the program's file; main rewritten by cuco init) ====\n" + seed_main;
  *reference += "// ==== " + f.file + " (the program's file; main rewritten by cuco init) ====\n" + project.main_text;
  for (const auto& [name, text] : project.headers) {
    std::vector<std::string> in_header;
    const std::string rooted = IncludesFromHarnessRoot(name, text, project.headers);
    const std::string marked_text = project.own_blocks ? rooted : MarkEvolve(rooted, evolve, &in_header);
    if (in_header.empty() || IncludedByAnotherHeader(project.headers, name) || !InlineHeader(name, marked_text, seed))
      continue;
    InlineHeader(name, rooted, reference);
    for (const std::string& fn : in_header) marked->push_back(fn + " (" + name + ")");
  }
  *seed = CandidateSpellings(*seed);
  Result<std::string> ticking = TickingClocksInBlocks(*seed, "seed.cu");  // the program's own timing, in the blocks
  if (!ticking.ok()) return ticking.status();
  *seed = std::move(ticking).value();
  return Status::Ok();
}

}  // namespace

Result<ProgramHarness> Render(const ProgramFacts& f, const FoundLoop& found, const BoundBuffers& bound,
                              const ProjectFiles& project, InitPassTrace* trace) {
  ProgramHarness h;
  h.guesses = found.guesses;
  h.guesses.insert(h.guesses.end(), bound.guesses.begin(), bound.guesses.end());
  h.inputs = bound.inputs, h.outputs = bound.outputs;
  std::string seed, reference;
  std::vector<std::string> marked, frozen;
  CUCO_RETURN_IF_ERROR(MarkedTexts(f, found, bound, project, &seed, &reference, &marked, &frozen));
  for (const std::string& why : frozen) h.guesses.push_back(why), trace->Add(why);
  h.evolve = marked;
  std::string evolved;
  for (size_t i = 0; i < marked.size(); ++i) evolved += (i ? ", " : "") + marked[i];
  h.guesses.push_back("EVOLVE blocks (what candidates may change): " + evolved);
  trace->Add(h.guesses.back());

  auto head = [&](const char* what) {
    return fmt::format("// {}_harness: {}, written by `cuco init` from the program's own files (cuco/program/program.h).\n",
                       f.name, what);
  };
  h.files.push_back({"seed.cu", head("the candidate file") +
                                    (found.loop.region
                                         ? "// Frozen outside the EVOLVE blocks; the program's statements served whole are "
                                           "the harness's iteration.\n"
                                         : "// Frozen outside the EVOLVE blocks; the program's timed loop is the harness's "
                                           "iteration.\n") +
                                    project.defines + std::string(kProgramSeedInclude) + "\n" + project.seed_guards + "\n" +
                                    seed});
  h.files.push_back({"reference.cu", head("the frozen reference") +
                                         "// The program itself, every rank a thread of the supervisor, NCCL emulated.\n" +
                                         project.defines + "#define CUCO_PROGRAM_WORKLOAD " + TomlQuoted(f.name + "_harness") +
                                         "\n#include <cuco/program/reference.h>\n" + project.reference_guards + "\n" +
                                         reference});
  h.files.push_back(
      {"workload.toml", HarnessWorkloadToml(f, found.loop, bound.output_types)});
  for (const auto& [name, text] : project.headers) h.files.push_back({name, text});
  h.files.push_back({"README.md", Readme(f, h, found.loop.region)});
  for (const auto& [name, text] : h.files)
    trace->Add(fmt::format("harness/{}: {} lines", name, std::count(text.begin(), text.end(), '\n')));
  return h;
}

}  // namespace cuco::scaffold_internal
