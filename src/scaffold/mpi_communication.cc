#include "scaffold/mpi_communication.h"

#include <fmt/format.h>

#include <map>

#include "scaffold/tokens.h"
#include "util/files.h"

namespace cuco::scaffold_internal {
namespace {

// The MPI calls that move data, each with the positions of its buffer arguments, and the NCCL call
// (or calls) it becomes.
struct MpiDataApi {
  std::vector<size_t> buffers;
  const char* nccl;
};

const std::map<std::string, MpiDataApi>& DataApis() {
  static const std::map<std::string, MpiDataApi> apis = {
      {"MPI_Send", {{0}, "ncclSend"}},
      {"MPI_Ssend", {{0}, "ncclSend"}},
      {"MPI_Isend", {{0}, "ncclSend"}},
      {"MPI_Recv", {{0}, "ncclRecv"}},
      {"MPI_Irecv", {{0}, "ncclRecv"}},
      {"MPI_Sendrecv", {{0, 5}, "ncclSend and ncclRecv in one ncclGroupStart/ncclGroupEnd"}},
      {"MPI_Sendrecv_replace", {{0}, "ncclSend and ncclRecv (into another buffer) in one group"}},
      {"MPI_Bcast", {{0}, "ncclBroadcast"}},
      {"MPI_Ibcast", {{0}, "ncclBroadcast"}},
      {"MPI_Reduce", {{0, 1}, "ncclReduce"}},
      {"MPI_Allreduce", {{0, 1}, "ncclAllReduce"}},
      {"MPI_Iallreduce", {{0, 1}, "ncclAllReduce"}},
      {"MPI_Reduce_scatter", {{0, 1}, "ncclReduceScatter"}},
      {"MPI_Reduce_scatter_block", {{0, 1}, "ncclReduceScatter"}},
      {"MPI_Allgather", {{0, 3}, "ncclAllGather"}},
      {"MPI_Iallgather", {{0, 3}, "ncclAllGather"}},
      {"MPI_Allgatherv", {{0, 3}, "ncclSend/ncclRecv of each part in one group"}},
      {"MPI_Gather", {{0, 3}, "ncclSend/ncclRecv to the root in one group"}},
      {"MPI_Gatherv", {{0, 3}, "ncclSend/ncclRecv to the root in one group"}},
      {"MPI_Scatter", {{0, 3}, "ncclSend/ncclRecv from the root in one group"}},
      {"MPI_Scatterv", {{0, 4}, "ncclSend/ncclRecv from the root in one group"}},
      {"MPI_Alltoall", {{0, 3}, "ncclAlltoAll, or ncclSend/ncclRecv per peer in one group"}},
      {"MPI_Alltoallv", {{0, 4}, "ncclSend/ncclRecv per peer in one group"}},
      {"MPI_Put", {{0}, "ncclPutSignal, or ncclSend/ncclRecv"}},
      {"MPI_Get", {{0}, "ncclSend/ncclRecv"}},
      {"MPI_Accumulate", {{0}, "ncclReduce, or ncclSend/ncclRecv then a kernel"}},
  };
  return apis;
}

bool DeviceAllocation(const AnalyzedOp& op) {
  return op.kind == "alloc" && op.api != "cudaMallocHost" && op.api != "cudaHostAlloc";
}

// The function of `file` holding `line` (the one defined last before it), "" when none is known.
std::string EnclosingFunction(const Analysis& a, const std::string& file, int line) {
  const AnalyzedFunction* found = nullptr;
  for (const AnalyzedFunction& f : a.functions)
    if (f.file == file && f.line <= line && (found == nullptr || f.line > found->line)) found = &f;
  return found == nullptr ? "" : found->name;
}

// "file:line (cudaMalloc of `d_A`)" for the device allocation of `base`: where `function` allocates
// it (a local of that name), that allocation's, if on the device; else one anywhere (a global or
// member made in a set-up function); "" when none is known.
std::string DeviceAllocationOf(const Analysis& a, const std::string& base, const std::string& function) {
  if (base.empty()) return "";
  const AnalyzedOp *here = nullptr, *anywhere = nullptr;
  for (const AnalyzedOp& op : a.ops) {
    if (op.kind != "alloc" || op.assigns.empty() || BufferBase(op.assigns) != base) continue;
    if (op.function == function && here == nullptr) here = &op;
    if (DeviceAllocation(op) && anywhere == nullptr) anywhere = &op;
  }
  const AnalyzedOp* found = here != nullptr ? (DeviceAllocation(*here) ? here : nullptr) : anywhere;
  return found == nullptr ? "" : fmt::format("{}:{} ({} of `{}`)", found->file, found->line, found->api, found->assigns);
}

bool Inactive(const Analysis& a, const std::string& file, int line) {
  const auto it = a.inactive_lines.find(file);
  if (it == a.inactive_lines.end()) return false;
  for (const auto& [first, last] : it->second)
    if (first <= line && line <= last) return true;
  return false;
}

// The data-moving MPI calls of `text` (the file `file`), but those in code this build skips
// (`#ifdef USE_MPI` without -DUSE_MPI).
void ScanFile(const Analysis& a, const std::string& file, const std::string& text, std::vector<MpiDataCall>* out) {
  const std::vector<Tok> t = Scan(text);
  for (size_t i = 0; i + 1 < t.size(); ++i) {
    const auto api = DataApis().find(t[i].text);
    if (!t[i].ident || api == DataApis().end() || t[i + 1].text != "(") continue;
    if (i > 0 && (t[i - 1].text == "." || t[i - 1].text == ">")) continue;  // a member of the program's own
    const size_t close = Match(t, i + 1);
    if (close >= t.size()) continue;
    if (Inactive(a, file, t[i].line)) {
      i = close;
      continue;
    }
    const std::vector<std::string> args = SplitArgs(text.substr(t[i + 1].end, t[close].begin - t[i + 1].end));
    MpiDataCall call{t[i].text, file, t[i].line, "", ""};
    const std::string function = EnclosingFunction(a, file, t[i].line);
    // The buffer named is the first on device memory, else the first (MPI_IN_PLACE is none).
    for (size_t position : api->second.buffers) {
      if (position >= args.size() || args[position] == "MPI_IN_PLACE" || !call.device_alloc.empty()) continue;
      call.device_alloc = DeviceAllocationOf(a, BufferBase(args[position]), function);
      if (call.buffer.empty() || !call.device_alloc.empty()) call.buffer = args[position];
    }
    out->push_back(std::move(call));
    i = close;
  }
}

std::string Place(const MpiDataCall& c) {
  return fmt::format("`{}` at {}:{}", c.api, c.file, c.line);
}

}  // namespace

std::vector<MpiDataCall> FindMpiDataCalls(const Analysis& analysis) {
  std::vector<MpiDataCall> calls;
  for (const std::string& file : analysis.files) {
    const auto cpp = analysis.cpp_texts.find(file);
    if (cpp != analysis.cpp_texts.end()) {
      ScanFile(analysis, file, cpp->second, &calls);
      continue;
    }
    Result<std::string> text = ReadFile(file);
    if (text.ok()) ScanFile(analysis, file, *text, &calls);
  }
  return calls;
}

std::string NoNcclMessage(const Analysis& analysis, const std::string& program_path) {
  const std::string base = program_path + ": no NCCL call found; cuco init scaffolds multi-GPU programs that communicate "
                                          "through NCCL";
  const std::vector<MpiDataCall> calls = FindMpiDataCalls(analysis);
  if (calls.empty()) return base + " (`cuco analyze " + program_path + "` shows what was found)";
  const MpiDataCall* device = nullptr;
  for (const MpiDataCall& c : calls)
    if (!c.device_alloc.empty()) {
      device = &c;
      break;
    }
  std::vector<std::string> others;
  for (const MpiDataCall& c : calls)
    if (&c != device && others.size() < 4) others.push_back(Place(c));
  const size_t more = calls.size() - (device != nullptr ? 1 : 0) - others.size();
  const std::string listed = others.empty() ? ""
                                            : fmt::format("{}{}", fmt::join(others, ", "),
                                                          more == 0 ? "" : fmt::format(" and {} more", more));
  const MpiDataApi& first = DataApis().at(device != nullptr ? device->api : calls.front().api);
  if (device != nullptr)
    return fmt::format("{}, and this one communicates through MPI on device memory (CUDA-aware MPI): {} moves `{}`, "
                       "allocated on the GPU at {}{}. Write its MPI calls on device buffers as NCCL calls on a "
                       "communicator made from its ranks (ncclGetUniqueId on rank 0, MPI_Bcast of the id, "
                       "ncclCommInitRank; {} becomes {}), then run cuco init again",
                       base, Place(*device), device->buffer, device->device_alloc,
                       listed.empty() ? "" : "; its other MPI calls that move data: " + listed, device->api, first.nccl);
  return fmt::format("{}, and this one moves its data through MPI: {}, on memory the analysis does not know to be the "
                     "GPU's (a host buffer, or one made elsewhere). Where the GPUs exchange device buffers, write "
                     "those calls as NCCL calls on a communicator made from its ranks ({} becomes {}), then run "
                     "cuco init again",
                     base, listed,
                     calls.front().api, first.nccl);
}

}  // namespace cuco::scaffold_internal
