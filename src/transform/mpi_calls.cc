#include "transform/mpi_calls.h"

#include <map>

#include "util/source_text.h"

namespace cuco::transform_internal {
namespace {

struct Routed {
  const char* dispatch;
  std::vector<int> buffers;  // the argument indices that are buffers
  bool ce;
};

const std::map<std::string, Routed>& RoutedMap() {
  static const std::map<std::string, Routed> kMap = {
      {"MPI_Allreduce", {"Allreduce", {0, 1}, true}},
      {"MPI_Reduce", {"Reduce", {0, 1}, true}},
      {"MPI_Bcast", {"Bcast", {0}, false}},
      {"MPI_Allgather", {"Allgather", {0, 3}, true}},
      {"MPI_Alltoall", {"Alltoall", {0, 3}, false}},
      {"MPI_Reduce_scatter_block", {"Reduce_scatter_block", {0, 1}, true}},
  };
  return kMap;
}

}  // namespace

std::string MpiDispatchName(const std::string& name) {
  auto it = RoutedMap().find(name);
  return it == RoutedMap().end() ? "" : std::string("cuco_program::mpi_comm::") + it->second.dispatch;
}

bool MpiCeCall(const std::string& name) {
  auto it = RoutedMap().find(name);
  return it != RoutedMap().end() && it->second.ce;
}

std::string MpiHostBuffer(const SeedSource& src, const SeedCall& call) {
  auto it = RoutedMap().find(call.name);
  if (it == RoutedMap().end()) return "";
  const std::vector<std::string> args = src.Args(call);
  for (int i : it->second.buffers) {
    if (static_cast<size_t>(i) >= args.size()) continue;
    const std::string a = WithoutCasts(args[static_cast<size_t>(i)]);
    if ((a.starts_with("&") && !a.starts_with("&&")) || a.ends_with(".data()") || a.ends_with("->data()"))
      return Trim(args[static_cast<size_t>(i)]);
  }
  return "";
}

std::vector<SeedCall> MpiRoutedCalls(const SeedSource& src, std::vector<std::string>* host) {
  std::vector<SeedCall> out;
  for (const SeedCall& c : src.Calls([](const std::string& n) { return RoutedMap().count(n) > 0; })) {
    if (!c.in_block) continue;
    const std::string h = MpiHostBuffer(src, c);
    if (h.empty()) out.push_back(c);
    else if (host) host->push_back(c.name + " at line " + std::to_string(c.line) + " (`" + h + "`)");
  }
  return out;
}

std::string MpiKnobLines() {
  return "// cuco transform: the design space of your program (cuco/program/codesign.h). backend: how its MPI\n"
         "// collectives on device memory move data (\"mpi\": its own calls, by NCCL in cuco's MPI; \"lsa\":\n"
         "// device-initiated over NVLink; \"ce\": its reductions and all-gathers by copy engines, where it has\n"
         "// any). graph: \"on\" captures the iteration into a CUDA graph and replays it. At these values it is\n"
         "// your program.\n"
         "constexpr const char* kCucoBackend = \"mpi\";   // cuco:knob backend\n"
         "constexpr const char* kCucoGraph = \"off\";     // cuco:knob graph\n"
         "[[maybe_unused]] static const bool cuco_graph_knob = cuco_program::set_graph(kCucoGraph);\n"
         "// part: never searched; \"compute\" times the program without the collectives above, one part of\n"
         "// its overlap bound (cuco/program/impl/part_knob.h).\n"
         "constexpr const char* kCucoPart = \"none\";      // cuco:knob part\n"
         "[[maybe_unused]] static const bool cuco_part_knob = cuco_program::set_part(kCucoPart);\n";
}

std::string MpiBackendToml(bool ce_calls) {
  return std::string(
             "# The design space `cuco transform` gave the program (cuco/program/codesign.h); generation 0 marks\n"
             "# them with `// cuco:knob`.\n"
             "[[knobs]]\n"
             "name = \"backend\"\n"
             "description = \"how the program's MPI collectives on device memory move data: mpi (its own calls, "
             "which cuco's MPI moves by NCCL) or lsa (device-initiated loads and stores over NVLink, "
             "cuco/codesign/collectives.h)") +
         (ce_calls ? ", or ce (its reductions and all-gathers by copy engines into the peers' staging buffers, then a "
                     "local reduction or copy; cuco/program/impl/ce_collectives.h)"
                   : "") +
         "; each call keeps MPI's blocking contract (runtime/src/program/mpi_collectives.cu)\"\nvalues = [\"mpi\", "
         "\"lsa\"" + (ce_calls ? ", \"ce\"" : "") + "]\ndefault = \"mpi\"\n\n";
}

}  // namespace cuco::transform_internal
