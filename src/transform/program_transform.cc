#include "transform/program_transform.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "transform/collective_wrappers.h"
#include "transform/host_calls.h"
#include "transform/included_calls.h"
#include "transform/mpi_calls.h"
#include "transform/producer_sites.h"
#include "util/files.h"
#include "workload/evolve_blocks.h"
#include "workload/knob_marks.h"

namespace cuco {
namespace {

using transform_internal::ApplyEdits;
using transform_internal::CollectiveWrapper;
using transform_internal::ConsumerSite;
using transform_internal::FindConsumerSite;
using transform_internal::FindProducerSite;
using transform_internal::IncludedCall;
using transform_internal::IncludedCallList;
using transform_internal::IncludedCommunication;
using transform_internal::ProducerSite;
using transform_internal::SeedCall;
using transform_internal::Edit;
using transform_internal::NcclMap;
using transform_internal::SeedSource;

constexpr const char* kBackendConstant = "kCucoBackend";

constexpr const char* kKnobLines =
    "// cuco transform: the design space of your program (cuco/program/codesign.h). backend: how its NCCL\n"
    "// calls move data (\"nccl\": its own host calls; \"lsa\": device-initiated over NVLink; \"ce\": its\n"
    "// reductions by copy engines, where it has any). graph: \"on\"\n"
    "// captures the iteration into a CUDA graph and replays it. At these values it is your program.\n"
    "constexpr const char* kCucoBackend = \"nccl\";  // cuco:knob backend\n"
    "constexpr const char* kCucoGraph = \"off\";     // cuco:knob graph\n"
    "[[maybe_unused]] static const bool cuco_graph_knob = cuco_program::set_graph(kCucoGraph);\n"
    "// part: never searched; \"compute\" / \"comm\" time the program without its communication / its GEMMs,\n"
    "// the two parts of its overlap bound (cuco/program/impl/part_knob.h).\n"
    "constexpr const char* kCucoPart = \"none\";      // cuco:knob part\n"
    "[[maybe_unused]] static const bool cuco_part_knob = cuco_program::set_part(kCucoPart);\n";

// The program's NCCL calls outside the blocks (its included files' and its set-up's) take the
// backend knob too (cuco/program/impl/included_calls.h).
constexpr const char* kIncludedLines =
    "// The program's NCCL calls outside these blocks (in the files it includes, and its set-up's) take\n"
    "// the backend knob too (cuco/program/impl/included_calls.h).\n"
    "[[maybe_unused]] static const bool cuco_included_calls = cuco_program::comm::RouteIncluded(kCucoBackend);\n";

constexpr const char* kChunksLines =
    "// chunks: a GEMM whose output the next collective reads runs in this many column chunks, and the\n"
    "// collective follows each chunk on a side stream (cuco/program/impl/chunk_overlap.h); 1: as written.\n"
    "constexpr const char* kCucoChunks = \"1\";     // cuco:knob chunks\n";

// Where the GEMMs overlap the collectives (chunks or gather): the SMs the device collectives take.
constexpr const char* kCommCtasLines =
    "// comm_ctas: with backend \"lsa\", at most this many blocks per kernel of cuco's collectives (\"all\":\n"
    "// two per SM), leaving the other SMs to the GEMMs they overlap (cuco/program/impl/comm_ctas_knob.h).\n"
    "constexpr const char* kCucoCommCtas = \"all\"; // cuco:knob comm_ctas\n"
    "[[maybe_unused]] static const bool cuco_comm_ctas_knob = cuco_program::set_comm_ctas(kCucoCommCtas);\n";

constexpr const char* kGatherLines =
    "// gather: \"on\" runs a GEMM reading what an all-gather just gathered per source rank, each part as\n"
    "// soon as it has arrived (cuco/program/impl/gather_overlap.h); \"off\": as written.\n"
    "constexpr const char* kCucoGather = \"off\";   // cuco:knob gather\n";

// The backend knob's [[knobs]] entry: "ce" where the program makes a call the copy engines move
// (CeCollective: `ce_calls`).
std::string BackendToml(bool ce_calls) {
  return std::string(
             "# The design space `cuco transform` gave the program (cuco/program/codesign.h); generation 0 marks\n"
             "# them with `// cuco:knob`.\n"
             "[[knobs]]\n"
             "name = \"backend\"\n"
             "description = \"how the program's NCCL calls move data: nccl (its own host calls) or lsa (device-initiated "
             "loads and stores over NVLink, cuco/codesign/collectives.h)") +
         (ce_calls ? ", or ce (its reductions and all-gathers by copy engines into the peers' staging buffers, then a "
                     "local reduction or copy; cuco/program/impl/ce_collectives.h)"
                   : "") +
         "\"\nvalues = [\"nccl\", \"lsa\"" + (ce_calls ? ", \"ce\"" : "") + "]\ndefault = \"nccl\"\n\n";
}

constexpr const char* kGraphToml =
    "[[knobs]]\n"
    "name = \"graph\"\n"
    "description = \"off: the iteration runs as the program wrote it; on: it is captured into a CUDA graph once "
    "per set of harness buffers and replayed\"\n"
    "values = [\"off\", \"on\"]\n"
    "default = \"off\"\n";

// cuco's copy-engine collectives count their calls on the host (ce_collectives.h): a graph would
// freeze them, so they refuse a capture, and a search never evaluates the pair.
constexpr const char* kCeNotInGraphToml =
    "\n[[excluded]]\n"
    "knobs = { backend = \"ce\", graph = \"on\" }\n"
    "why = \"cuco's copy-engine collectives count their calls on the host, so they cannot be captured into a CUDA "
    "graph\"\n";

constexpr const char* kChunksToml =
    "\n"
    "[[knobs]]\n"
    "name = \"chunks\"\n"
    "description = \"how many column chunks a GEMM whose output the next collective reads runs in, the collective "
    "following each chunk on a side stream (1: the GEMM and the collective as the program wrote them)\"\n"
    "values = [\"1\", \"2\", \"4\", \"8\"]\n"
    "default = \"1\"\n";

// The comm_ctas knob's [[knobs]] entry: it changes nothing but backend "lsa", so the other backends
// at a limit are excluded (`ce_calls`: "ce" is offered).
std::string CommCtasToml(bool ce_calls) {
  std::string t =
      "\n[[knobs]]\n"
      "name = \"comm_ctas\"\n"
      "description = \"backend lsa: at most this many blocks per kernel of cuco's device collectives (all: two per SM), "
      "leaving the other SMs to the GEMMs they overlap, at the cost of slower communication "
      "(cuco/program/impl/comm_ctas_knob.h)\"\n"
      "values = [\"all\", \"64\", \"32\", \"16\"]\n"
      "default = \"all\"\n";
  for (const char* backend : {"nccl", "ce"}) {
    if (std::string(backend) == "ce" && !ce_calls) continue;
    for (const char* ctas : {"64", "32", "16"})
      t += std::string("\n[[excluded]]\nknobs = { backend = \"") + backend + "\", comm_ctas = \"" + ctas +
           "\" }\nwhy = \"comm_ctas limits cuco's device collectives (backend lsa) only: the same code as comm_ctas all\"\n";
  }
  return t;
}

constexpr const char* kGatherToml =
    "\n"
    "[[knobs]]\n"
    "name = \"gather\"\n"
    "description = \"on: a GEMM reading what an all-gather just gathered runs per source rank, each part as soon as its "
    "send/recv step has arrived on a side stream (off: the all-gather, then the GEMM, as the program wrote them)\"\n"
    "values = [\"off\", \"on\"]\n"
    "default = \"off\"\n";

// The part knob and the variants `cuco bench` times for the program's overlap bound: the program
// without its communication, and (where cuco stands in for its GEMMs: `gemms`) without its GEMMs,
// each as written and captured into a graph (the bound takes each part's fastest: a best candidate
// with the graph knob on must not beat a bound timed with it off).
std::string PartToml(bool gemms, const char* routed) {
  std::string t =
      "\n[[knobs]]\n"
      "name = \"part\"\n"
      "description = \"bench only: the program without its communication (compute)"
      + std::string(gemms ? " or without the GEMMs cuco stands in for (comm)" : "") +
      ", timed for its overlap bound (never verified: the outputs are not the program's)\"\n"
      "values = [\"none\", \"compute\"" + (gemms ? ", \"comm\"" : "") + "]\n"
      "default = \"none\"\n"
      "search = false\n";
  auto variant = [&t](const std::string& part, const std::string& what, bool graph) {
    t += "\n[[variants]]\n"
         "name = \"" + part + "_alone" + (graph ? "_graph" : "") + "\"\n"
         "description = \"" + what + (graph ? ", captured into a CUDA graph and replayed" : "") + "\"\n"
         "knobs = { part = \"" + part + "\"" + (graph ? ", graph = \"on\"" : "") + " }\n"
         "part = \"" + part + "\"\n";
  };
  for (bool graph : {false, true}) {
    variant("compute", std::string("the program with its communication skipped (") + routed + ")", graph);
    if (gemms)
      variant("comm", "the program with the GEMMs cuco stands in for skipped (its other kernels still run: a bound "
                      "no lower than the true one)", graph);
  }
  return t;
}

// The GEMM calls the chunks knob can split -> their stand-ins (cuco/program/impl/chunk_overlap.h).
const std::map<std::string, std::string>& GemmStandIns() {
  static const std::map<std::string, std::string> kMap = {
      {"cublasSgemm", "cuco_program::overlap::Sgemm"},   {"cublasSgemm_v2", "cuco_program::overlap::Sgemm"},
      {"cublasHgemm", "cuco_program::overlap::Hgemm"},   {"cublasGemmEx", "cuco_program::overlap::GemmEx"},
      {"cublasLtMatmul", "cuco_program::overlap::LtMatmul"}};
  return kMap;
}

// The collectives whose chunks are parts of their send buffer (runtime/src/program/program_collectives.cu).
bool ChunkedCollective(const std::string& name) { return name == "ncclAllReduce" || name == "ncclReduceScatter"; }

// The calls the backend "ce" moves by copy engines (runtime/src/program/ce_collectives.cu).
bool CeCollective(const std::string& name) {
  return ChunkedCollective(name) || name == "ncclReduce" || name == "ncclAllGather";
}

// "ncclAllReduce" -> "cuco_program::comm::AllReduce".
std::string DispatchName(const std::string& nccl_name) { return "cuco_program::comm::" + nccl_name.substr(4); }

// The program's own functions the knobs see through (ProgramFunctionsOf).
struct ProgramFunctions {
  std::vector<CollectiveWrapper> wrappers;  // running a collective on a parameter
  std::vector<std::string> gemm_helpers;    // calling a cuBLAS or cublasLt GEMM
};

// Which of the knobs that restructure the program's GEMMs apply (AddGemmKnobs).
struct GemmKnobs {
  bool chunks = false, gather = false;
  bool stand_ins = false;  // the blocks' GEMMs call cuco's stand-ins: part "comm" can skip them
  // A producer feeds a wrapper whose collective lies outside the blocks: the program's NCCL calls
  // there must take the backend knob (RouteIncluded) for the collective to take the chunks.
  const CollectiveWrapper* routed_wrapper = nullptr;
  bool wrapped = false;  // the blocks call a wrapper of a collective (they communicate through it)
  // The blocks call a GEMM helper of the program outside them (`hgemm` in gemm.h): its cuBLAS call is
  // cuco's stand-in there too (candidate_shims.h), so the knobs can split it.
  std::string gemm_helper;
};

// A line before the statement at `at`: its own line when it starts one (`indent`), else on its line.
Edit LineBefore(size_t at, const std::string& indent, const std::string& code) {
  return {at, 0, indent.empty() && at > 0 ? " " + code : indent + code + "\n"};
}

// The gather knob for all-gather `c` (producer_sites.h's consumer form): its Consumer into *edits,
// or a warning saying why not.
void AddConsumer(const SeedSource& src, const std::string& seed_path, const SeedCall& c, RuleTransformResult* result,
                 std::vector<Edit>* edits) {
  std::string why;
  const std::optional<ConsumerSite> site = FindConsumerSite(src, c, &why);
  if (!site) {
    result->warnings.push_back(seed_path + ":" + std::to_string(c.line) + ": " + c.name + " gets no gather knob: " + why);
    return;
  }
  edits->push_back(LineBefore(site->insert_at, site->indent,
                              "cuco_program::overlap::Consumer cuco_consumer_" + std::to_string(c.line) +
                                  "(kCucoGather, " + site->buffer + ");"));
  result->inserted.push_back(seed_path + ":" + std::to_string(c.line) + ": the gather knob's consumer of `" +
                             site->buffer + "`, which the call at line " + std::to_string(site->consumer_line) +
                             " reads after " + c.name + " gathers it");
}

// The chunks knob's Producer for collective `c` (producer_sites.h) into *edits; false where it has
// none, and then a warning saying why unless `quiet`. `w`: the wrapper `c` calls, whose parameter
// names the buffer (collective_wrappers.h), or null when `c` is the collective itself.
bool AddProducer(const SeedSource& src, const std::string& seed_path, const SeedCall& c, const CollectiveWrapper* w,
                 bool quiet, RuleTransformResult* result, std::vector<Edit>* edits) {
  std::string why;
  const std::optional<ProducerSite> site = FindProducerSite(src, c, &why, w == nullptr ? 0 : w->param);
  const std::string through = w == nullptr ? "" : "; " + w->collective + " at " + w->where;
  if (!site) {
    if (!quiet)
      result->warnings.push_back(seed_path + ":" + std::to_string(c.line) + ": " + c.name +
                                 (w == nullptr ? "" : " (" + through.substr(2) + ")") + " gets no chunks knob: " + why);
    return false;
  }
  const std::string producer = "cuco_producer_" + std::to_string(c.line);
  // The loop form arms each pass's buffer just before its GEMM (producer_sites.h).
  edits->push_back(LineBefore(site->insert_at, site->indent,
                              "cuco_program::overlap::Producer " + producer + "(kCucoChunks, " +
                                  (site->loop ? "nullptr" : site->buffer) + ");"));
  if (site->loop) edits->push_back(LineBefore(site->arm_at, site->arm_indent, producer + ".Arm(" + site->buffer + ");"));
  for (size_t at : site->waits_at) edits->push_back({at, 0, "if (!" + producer + ".SkipsWait()) "});
  result->inserted.push_back(seed_path + ":" + std::to_string(site->producer_line) + ": the chunks knob's producer of `" +
                             site->buffer + "`, which " + c.name + " (line " + std::to_string(c.line) + through + ") reads" +
                             (site->loop ? " in the loop after its loop" : ""));
  return true;
}

// The Producers of the blocks' calls of `wrappers` into *producers; *covered gets the wrappers'
// collectives ("file:line") that one was made for. The routed wrapper, if any, into *k.
void AddWrapperProducers(const SeedSource& src, const std::string& seed_path,
                         const std::vector<CollectiveWrapper>& wrappers, RuleTransformResult* result,
                         std::vector<Edit>* producers, std::set<std::string>* covered, GemmKnobs* k) {
  for (const CollectiveWrapper& w : wrappers)
    for (const SeedCall& call : transform_internal::WrapperCalls(src, w)) {
      k->wrapped = true;
      if (AddProducer(src, seed_path, call, &w, false, result, producers)) {
        covered->insert(w.where);
        if (!w.in_blocks && k->routed_wrapper == nullptr) k->routed_wrapper = &w;
      }
    }
}

// The program's functions running a collective the chunks knob splits on a parameter, and those
// calling a GEMM cuco stands in for: the seed's (in the blocks or not) and those of the files it
// includes (collective_wrappers.h).
ProgramFunctions ProgramFunctionsOf(const std::string& seed, const std::string& seed_path, const SeedSource& src,
                                    const std::vector<transform_internal::IncludedFile>& files) {
  const std::set<std::string> chunked = {"ncclAllReduce", "ncclReduceScatter"};
  std::set<std::string> gemm_names;
  for (const auto& [name, stand_in] : GemmStandIns()) gemm_names.insert(name);
  ProgramFunctions out;
  out.wrappers = transform_internal::FindCollectiveWrappers(
      seed, std::filesystem::path(seed_path).filename().string(), chunked, [&](size_t p) { return src.InBlock(p); });
  out.gemm_helpers = transform_internal::FunctionsCalling(seed, gemm_names);
  for (const transform_internal::IncludedFile& f : files) {
    for (CollectiveWrapper& w : transform_internal::FindCollectiveWrappers(f.text, f.file, chunked, [](size_t) { return false; }))
      out.wrappers.push_back(std::move(w));
    for (std::string& h : transform_internal::FunctionsCalling(f.text, gemm_names)) out.gemm_helpers.push_back(std::move(h));
  }
  return out;
}

// The knobs that restructure the program's GEMMs, where the blocks hold a GEMM the runtime can
// split: chunks, where a collective reads what the call just before it wrote (or the loop form),
// and gather, where the call after an all-gather reads what it gathered (producer_sites.h). Their
// Producers, Consumers and the GEMMs' stand-ins go into *edits, what was done and why not into
// *result. The blocks' GEMMs get their stand-ins whenever the blocks communicate, knobs or not: the
// stand-in is the call itself unless a knob splits it, and part "comm" (comm_alone, the
// communication's side of the program's overlap bound) skips it.
GemmKnobs AddGemmKnobs(const SeedSource& src, const std::string& seed_path, const std::vector<SeedCall>& calls,
                       const ProgramFunctions& fns, RuleTransformResult* result, std::vector<Edit>* edits) {
  const std::vector<CollectiveWrapper>& wrappers = fns.wrappers;
  std::vector<SeedCall> gemms;
  for (const SeedCall& g : src.Calls([&](const std::string& n) { return GemmStandIns().count(n) > 0; }))
    if (g.in_block) gemms.push_back(g);
  GemmKnobs k;
  for (const std::string& helper : fns.gemm_helpers)
    if (k.gemm_helper.empty() && !transform_internal::WrapperCalls(src, {helper, 0, "", "", false}).empty())
      k.gemm_helper = helper;
  const bool splits = !gemms.empty() || !k.gemm_helper.empty();
  std::vector<Edit> producers, consumers;
  std::set<std::string> covered;  // wrappers' collectives fed through their calls: no warning of their own
  AddWrapperProducers(src, seed_path, wrappers, result, &producers, &covered, &k);
  const std::string file = std::filesystem::path(seed_path).filename().string();
  for (const SeedCall& c : calls) {
    if (c.name == "ncclAllGather") AddConsumer(src, seed_path, c, result, &consumers);
    else if (ChunkedCollective(c.name))
      AddProducer(src, seed_path, c, nullptr, covered.count(file + ":" + std::to_string(c.line)) > 0, result, &producers);
  }
  k.chunks = !producers.empty() && splits;
  k.gather = !consumers.empty() && splits;
  if ((!producers.empty() || !consumers.empty()) && !splits)
    result->warnings.push_back(seed_path + ": no chunks or gather knob: the EVOLVE blocks call none of " +
                               "cublasSgemm, cublasHgemm, cublasGemmEx, cublasLtMatmul, which they split, nor a " +
                               "function of the program that does");
  if (gemms.empty() && !k.gemm_helper.empty() && (k.chunks || k.gather))  // said where it decides
    result->inserted.push_back(seed_path + ": the GEMMs of " + k.gemm_helper + ", which the blocks call, are cuco's " +
                               "stand-ins where they are (cuco/program/impl/candidate_shims.h): the knobs split them");
  k.stand_ins = splits && (!calls.empty() || k.wrapped);
  if (k.stand_ins) {
    for (const SeedCall& g : gemms) {
      const std::string& to = GemmStandIns().at(g.name);
      edits->push_back({g.name_pos, g.name_end - g.name_pos, to});
      result->rewrites.push_back({g.line, g.name, to + "(...)"});
    }
  }
  if (k.chunks) edits->insert(edits->end(), producers.begin(), producers.end());
  if (k.gather) edits->insert(edits->end(), consumers.begin(), consumers.end());
  return k;
}

// Where the knobs go so that every call sees them: the top of the first block at file scope when it
// comes before the blocks' calls, else the top of the one block holding them all (main's timed
// loop, say); npos when neither exists. Without calls in the blocks (the program communicates in
// the files it includes), the first block at file scope, else the first block.
size_t KnobsPlace(const SeedSource& src, const std::vector<SeedCall>& calls) {
  for (const auto& [begin, end] : src.blocks())
    if (src.BraceDepth(begin) == 0) {
      if (calls.empty() || begin < calls.front().name_pos) return begin;
      break;
    }
  if (calls.empty()) return src.blocks().empty() ? std::string::npos : src.blocks().front().first;
  for (const auto& [begin, end] : src.blocks())
    if (begin <= calls.front().name_pos && calls.back().name_pos < end) return begin;
  return std::string::npos;
}

// What generation 0's knobs are, said at `where` (the knobs' line) into result->inserted.
void SayKnobs(const std::string& where, bool mpi, bool ce_calls, const GemmKnobs& gk, RuleTransformResult* result) {
  std::string knobs = std::string("backend (") + (mpi ? "\"mpi\"" : "\"nccl\"") + " | \"lsa\"" +
                      (ce_calls ? " | \"ce\"" : "") + "), graph (\"off\" | \"on\")";
  std::string defaults = mpi ? "mpi, off" : "nccl, off";
  if (gk.chunks) knobs += ", chunks (\"1\" | \"2\" | \"4\" | \"8\")", defaults += ", 1";
  if (gk.gather) knobs += ", gather (\"off\" | \"on\")", defaults += ", off";
  if (gk.chunks || gk.gather) knobs += ", comm_ctas (\"all\" | \"64\" | \"32\" | \"16\")", defaults += ", all";
  const size_t last = knobs.rfind(", ");
  knobs.replace(last, 2, " and ");
  result->inserted.push_back(where + ": knobs " + knobs + ", at the program's own behaviour (" + defaults + ")");
  const bool gemms = gk.stand_ins;
  result->inserted.push_back(where + ": knob part (never searched) and workload.toml's [[variants]] compute_alone" +
                             (gemms ? " and comm_alone" : "") + " (each also with graph on: _graph)" +
                             ": `cuco bench` times the program without its communication" +
                             (gemms ? " and without its GEMMs" : "") + " for its overlap bound");
}

}  // namespace

Result<RuleTransformResult> ProgramTransform(const std::string& seed, const std::string& seed_path,
                                             const SeedSource& src, const std::vector<std::string>& build_flags) {
  const auto& map = NcclMap();
  auto marks = FindKnobMarks(seed, seed_path);
  if (!marks.ok()) return marks.status();
  for (const KnobMark& k : *marks)
    if (k.name == "backend" || k.name == "graph" || k.name == "chunks" || k.name == "gather" || k.name == "part" ||
        k.name == "comm_ctas")
      return Status::InvalidArgument(seed_path + ":" + std::to_string(k.line) + ": the seed already marks a knob `" +
                                     k.name + "`, which the transform adds: rename yours");

  std::vector<SeedCall> calls;
  for (const SeedCall& c : src.Calls([&](const std::string& n) { return map.count(n) > 0; }))
    if (c.in_block) calls.push_back(c);  // the program's set-up (frozen) keeps its host calls
  const std::vector<transform_internal::IncludedFile> files = transform_internal::IncludedFiles(seed_path, build_flags);
  // Communication in the files the harness keeps as they are: routed through the knob from its lines.
  const std::vector<IncludedCall> included = IncludedCommunication(files);
  // A program communicating through CUDA-aware MPI alone: its collectives on device memory take the
  // backend knob (mpi_calls.h), whose default is then its own MPI.
  std::vector<std::string> mpi_host;
  const bool mpi = calls.empty() && included.empty() && !(calls = transform_internal::MpiRoutedCalls(src, &mpi_host)).empty();
  RuleTransformResult result;
  std::vector<Edit> edits;
  for (const SeedCall& c : calls) {
    const std::string to = mpi ? transform_internal::MpiDispatchName(c.name) : DispatchName(c.name);
    edits.push_back({c.name_pos, c.name_end - c.name_pos, to});
    const bool no_args = src.NextCode(c.open + 1) == c.close;
    edits.push_back({c.open + 1, 0, std::string(kBackendConstant) + (no_args ? "" : ", ")});
    result.rewrites.push_back({c.line, c.name, to + "(" + kBackendConstant + ", ...)"});
    if (c.name != "ncclGroupStart" && c.name != "ncclGroupEnd") ++result.collectives;
  }
  const ProgramFunctions fns = ProgramFunctionsOf(seed, seed_path, src, files);
  const GemmKnobs gk = mpi ? GemmKnobs{} : AddGemmKnobs(src, seed_path, calls, fns, &result, &edits);
  const bool routes = !included.empty() || gk.routed_wrapper != nullptr;
  if (result.collectives == 0 && included.empty()) {
    // A program communicating through MPI alone (CUDA-aware MPI) with no collective the knob moves:
    // say where, and why.
    static const std::regex mpi_call(R"(\bMPI_(Sendrecv|Send|Isend|Irecv|Recv|Allreduce|Reduce|Bcast|Allgather|Alltoall)\s*\()");
    std::smatch m;
    std::string why = "nothing to transform";
    if (!mpi_host.empty())
      why = "the program communicates through MPI, and its collectives in the blocks move host memory (" +
            fmt::format("{}", fmt::join(mpi_host, ", ")) + "), which cuco's MPI moves as the program asks at every backend: the backend knob " +
            "moves MPI collectives on device memory (cuco/program/codesign.h)";
    else if (std::regex_search(seed, m, mpi_call))
      why = fmt::format("the program communicates through MPI (MPI_{} at line {}), and the blocks make none of the "
                        "MPI collectives the backend knob moves (MPI_Allreduce, MPI_Reduce, MPI_Bcast, MPI_Allgather, "
                        "MPI_Alltoall, MPI_Reduce_scatter_block on device memory): its point-to-point calls already "
                        "move by NCCL in the candidate (impl/mpi_p2p.h)",
                        m[1].str(), 1 + std::count(seed.begin(), seed.begin() + m.position(0), '\n'));
    return Status::InvalidArgument(seed_path + ":1: no NCCL collective or send/recv inside the EVOLVE blocks or in the "
                                   "files the program includes: " + why);
  }
  const size_t knobs_at = KnobsPlace(src, calls);
  if (knobs_at == std::string::npos)
    return Status::InvalidArgument(
        seed_path + ":" + std::to_string(calls.front().line) + ": " + calls.front().name +
        " is not where one declaration of the knobs can reach it and the other NCCL calls of the EVOLVE blocks "
        "(no block at file scope above it, and no one block holds them all): put the program's functions that "
        "issue NCCL calls in blocks (cuco init marks them)");
  if (!included.empty())
    result.inserted.push_back(seed_path + ":" + std::to_string(src.LineOf(knobs_at)) +
                              ": the NCCL calls of the files the program includes (" + IncludedCallList(included) +
                              ") and of its set-up take the backend knob too");
  else if (routes)
    result.inserted.push_back(seed_path + ":" + std::to_string(src.LineOf(knobs_at)) +
                              ": the NCCL calls outside the EVOLVE blocks (" + gk.routed_wrapper->collective + " at " +
                              gk.routed_wrapper->where + ", in " + gk.routed_wrapper->name +
                              ", which the blocks call) take the backend knob too");
  // After the producers: at the same place, the knobs come first (ApplyEdits).
  edits.push_back({knobs_at, 0, (mpi ? transform_internal::MpiKnobLines() : std::string(kKnobLines)) + (routes ? kIncludedLines : "") +
                                    (gk.chunks ? kChunksLines : "") + (gk.gather ? kGatherLines : "") +
                                    (gk.chunks || gk.gather ? kCommCtasLines : "")});
  bool ce_calls = false;
  for (const SeedCall& c : calls) ce_calls = ce_calls || (mpi ? transform_internal::MpiCeCall(c.name) : CeCollective(c.name));
  for (const IncludedCall& c : included) ce_calls = ce_calls || CeCollective(c.name);
  SayKnobs(seed_path + ":" + std::to_string(src.LineOf(knobs_at)), mpi, ce_calls, gk, &result);
  result.warnings.push_back(
      "backend \"lsa\" needs every rank in one NVLink domain (at most 8) taking part in every call and group in the "
      "same order; a send/recv group moves at most 256 MiB per peer. Candidates that break this fail, saying why");
  result.knobs_toml = (mpi ? transform_internal::MpiBackendToml(ce_calls) : BackendToml(ce_calls)) + kGraphToml + (gk.chunks ? kChunksToml : "") +
                      (gk.gather ? kGatherToml : "") + (gk.chunks || gk.gather ? CommCtasToml(ce_calls) : "") +
                      PartToml(gk.stand_ins, mpi ? "every MPI collective the backend knob moves"
                                                 : "every NCCL call of the EVOLVE blocks") + (ce_calls ? kCeNotInGraphToml : "");
  result.code = ApplyEdits(seed, edits);
  Status frozen = CheckFrozenCode(seed, seed_path, result.code, "generation 0");
  if (!frozen.ok()) return Status::Internal("the program transform changed frozen code: " + frozen.message());
  return result;
}

}  // namespace cuco
