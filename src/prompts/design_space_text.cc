#include "prompts/design_space_text.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "prompts/header_declarations.h"
#include "workload/deny_list.h"

namespace cuco {
namespace fs = std::filesystem;
namespace {

std::string ReadText(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  if (!f) return "";
  std::ostringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// Appends `block` (a header's declarations under a title) if it fits in what is left; cut to fit
// otherwise. Returns false when the budget is spent.
bool AppendBounded(std::string& out, const std::string& title, const std::string& decls, size_t max_chars) {
  if (decls.empty()) return true;
  const std::string head = "// ---- " + title + " ----\n";
  const size_t note = 48;
  if (out.size() + head.size() + note >= max_chars) return false;
  out += head;
  const size_t room = max_chars - out.size();
  if (decls.size() <= room) {
    out += decls;
    return true;
  }
  // Cut at a line boundary, leaving room for the note.
  size_t cut = decls.rfind('\n', room > note ? room - note : 0);
  if (cut == std::string::npos) cut = 0;
  else ++cut;
  size_t dropped = std::count(decls.begin() + static_cast<std::ptrdiff_t>(cut), decls.end(), '\n');
  out += decls.substr(0, cut) + "// ... (" + std::to_string(dropped) + " more lines cut)\n";
  return false;
}

std::string Join(const std::vector<std::string>& v, const std::string& sep) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? sep : "") + v[i];
  return s;
}

std::string Gib(uint64_t bytes) {
  std::ostringstream ss;
  ss.precision(3);
  ss << static_cast<double>(bytes) / (1024.0 * 1024.0 * 1024.0) << " GiB";
  return ss.str();
}

}  // namespace

std::string HarnessRulesText() {
  std::string s =
      "Harness rules (cuco's harness enforces them; a candidate that breaks one is rejected):\n"
      "- cuco_candidate_setup(ctx, sizes, &state) runs once, untimed, and is COLLECTIVE: every rank calls it and any "
      "collective call inside (ctx.alloc_symmetric, ctx.create_dev_comm, NCCL calls) must happen in the same order "
      "on every rank. Allocate, build descriptors, create side streams and device communicators here.\n"
      "- cuco_candidate_run(ctx, state, io) enqueues ONE iteration and is called many times, sometimes with different "
      "output buffers (io is valid only during the call). Enqueue everything on ctx.stream or on "
      "ctx.side_stream(i) (0 <= i < 8; create them in setup, creation in run is timed). The harness joins every side "
      "stream into ctx.stream after run returns; host time spent in run is timed too.\n"
      "- Order work across streams only with ctx.record_event(i, stream) and ctx.wait_event(stream, i) "
      "(harness-owned events, 0 <= i < 64), or with device flags.\n"
      "- Never create or destroy streams, events or timers; never touch files, the environment, processes or the "
      "device (cudaSetDevice, cudaDeviceReset); never name cuco_frozen / cuco_harness; no #include, #undef, ## "
      "or #line in the EVOLVE blocks (the includes above the blocks are frozen: use what they provide).\n"
      "- Memory: ctx.alloc_symmetric(bytes, &buf) (collective; an NCCL symmetric window, freed by the harness) and "
      "ctx.create_dev_comm(reqs, &devComm) (collective ncclDevCommCreate; destroyed by the harness; lsaMultimem / "
      "NVLink multicast is refused). The io buffers are already registered symmetric windows (Buffer::window), so "
      "peers can reach them; their allocation may be larger than Buffer::bytes. Free in teardown only what setup "
      "allocated itself.\n"
      "- Fresh random inputs are written before every iteration and the outputs are poisoned (NaNs in floating "
      "outputs, random bits in integer ones): never cache or memoise results across calls, never skip work when "
      "outputs look already written, write every output element every call: every timed iteration's whole output is "
      "scanned for poison left and NaN/Inf.\n"
      "- Verification: every rank's output is checked against a frozen reference on a random, unannounced subset of "
      "timed iterations, plus a second run into freshly allocated outputs that must agree. Flags and counters used "
      "for synchronisation must be reset (or use per-iteration epochs) because run is called many times.\n"
      "- Time = from before the run call to after the side streams are joined (median per rank, max over ranks); "
      "work left running after the join is detected and rejected.\n";
  // The deny-list, compactly, by category.
  std::vector<std::string> order;
  std::map<std::string, std::vector<std::string>> by_cat;
  for (const auto& e : DeniedIdentifiers()) {
    if (!by_cat.count(e.category)) order.push_back(e.category);
    by_cat[e.category].push_back(e.token);
  }
  for (const auto& e : DeniedSubstrings()) {
    if (!by_cat.count(e.category)) order.push_back(e.category);
    by_cat[e.category].push_back(e.token);
  }
  s += "- Denied in the EVOLVE blocks (the file is refused before compiling):\n";
  for (const auto& c : order) s += "  " + c + ": " + Join(by_cat[c], " ") + "\n";
  return s;
}

std::string DesignSpaceText(const Toolchain* tc) {
  auto avail = [&](bool ok, const std::string& why_not) -> std::string {
    if (tc == nullptr) return "";
    return ok ? " [available here]" : " [NOT available here: " + why_not + "]";
  };
  const bool device_api = tc && tc->nccl.found && tc->nccl.device_api;
  const bool lsa = device_api && tc->nccl.lsa;
  const bool gin = device_api && tc->nccl.gin && !tc->rdma_devices.empty();
  const bool nccl = tc && tc->nccl.found;
  const bool nvshmem = tc && tc->nvshmem.found;
  std::string gin_why = !device_api ? "no NCCL device API" : !tc->nccl.gin ? "NCCL without GIN" : "no RDMA NICs";

  std::string s;
  s += "Design space (CUCo): a candidate is one point along five dimensions. Overlap communication with "
       "computation; the host-driven baseline runs them one after the other.\n\n";
  s += "1. Communication backend\n";
  s += "   a. NCCL device API, LSA (load/store accessible peers over NVLink)" +
       avail(lsa, device_api ? "NCCL without lsa_barrier.h" : "no NCCL device API") +
       ": in setup, ctx.create_dev_comm(reqs, &devComm) with reqs.lsaBarrierCount set (never lsaMultimem); in a "
       "kernel, ncclGetLsaPointer(buf.window, offset, peer) (or ncclSymPtr<T>(window, offset).lsaPtr(peer)) gives a "
       "plain pointer into the peer's symmetric buffer for ordinary loads/stores (vectorise: 16-byte accesses); "
       "ncclLsaBarrierSession<ncclCoopCta> bar(ncclCoopCta(), devComm, ncclTeamTagLsa(), blockIdx.x); "
       "bar.sync(ncclCoopCta(), cuda::memory_order_release/acquire) orders ranks. Only symmetric windows "
       "(io buffers, ctx.alloc_symmetric) are reachable.\n";
  s += "   b. NCCL GIN (GPU-initiated networking over RDMA)" + avail(gin, gin_why) +
       ": ncclGin gin(devComm, ctx_index); gin.put(team, peer, dstWin, dstOff, srcWin, srcOff, bytes, "
       "ncclGin_SignalInc{signal}); the receiver gin.waitSignal(coop, signal, expected); needs ginContextCount / "
       "ginSignalCount in the requirements; for peers across nodes.\n";
  s += "   c. Host NCCL on a side stream" + avail(nccl, "NCCL not found") +
       ": ncclReduceScatter / ncclAllGather / ncclSend+ncclRecv (inside ncclGroupStart/End) on ctx.side_stream(i), "
       "per chunk, waiting for the producing kernel with record_event/wait_event, while compute continues on "
       "ctx.stream. NCCL kernels take SMs too (fewer with symmetric windows).\n";
  s += "   d. Copy engine" + avail(lsa, "needs LSA peer pointers") +
       ": cudaMemcpyAsync(peer_ptr, src, bytes, cudaMemcpyDeviceToDevice, side_stream) between peer buffers "
       "(peer addresses obtained once in setup, e.g. a tiny kernel storing ncclGetLsaPointer(...) for every peer "
       "into device memory, then copied to the host); signalled per chunk with record_event/wait_event; takes no "
       "SMs.\n";
  s += "   e. NVSHMEM" + avail(nvshmem, "not installed") +
       ": nvshmem_malloc'd symmetric heap, nvshmem_ptr / nvshmemx_putmem_signal_nbi_block / "
       "nvshmem_signal_wait_until; only where the workload links nvshmem.\n\n";
  s += "2. Placement: (a) fused into the compute kernel (the epilogue stores tiles straight into peers' buffers, or "
       "dedicated warps/CTAs of the same kernel communicate); (b) a separate communication kernel on its own side "
       "stream, running concurrently with compute and polling per-chunk ready flags; (c) host-issued on a separate "
       "stream (host NCCL or copy engine) after per-chunk events.\n\n";
  s += "3. Synchronisation scope: thread / warp / CTA / grid flags written with release and read with acquire "
       "(cuda::atomic_ref<T, cuda::thread_scope_system> or __threadfence_system + volatile polling) per tile or chunk; "
       "cross-rank LSA barriers (ncclLsaBarrierSession arrive/wait/sync); stream waits on events (wait_event) or on "
       "device flags. Finer scopes start communication earlier but cost more flag traffic.\n\n";
  s += "4. Issuer granularity: who issues communication: single threads, warps, or whole CTAs; how many CTAs "
       "(or SMs) communication takes from compute (e.g. 8-16 of 132), and how the rest share the compute tiles.\n\n";
  s += "5. Chunk size / pipelining depth: how the data is split (rows or tiles per chunk, number of chunks in "
       "flight): more chunks overlap more but add synchronisation and launch overhead; the first and last chunks "
       "cannot overlap.\n";
  return s;
}

std::string InstalledCommApiText(const NcclInstall& nccl, const LibraryInstall& nvshmem, size_t max_chars,
                                 bool rdma_nics) {
  std::string out;
  if (!nccl.found && !nvshmem.found) return "No NCCL or NVSHMEM installation was found on this machine.\n";
  if (nccl.found) {
    out += "// NCCL " + (nccl.version.empty() ? std::string("(version unknown)") : nccl.version) +
           ": device API " + (nccl.device_api ? "yes" : "no") + ", LSA " + (nccl.lsa ? "yes" : "no") + ", GIN " +
           (nccl.gin ? "yes" : "no") + "; headers " + nccl.include_dir + "\n";
    if (!nccl.device_api) out += "// This NCCL has no device API (nccl_device.h): only host NCCL calls are possible.\n";
  }
  std::vector<std::pair<std::string, std::string>> files;  // title, declarations
  if (nccl.found && !nccl.include_dir.empty()) {
    const fs::path inc = nccl.include_dir;
    const std::vector<std::string> first = {"core.h", "ptr.h", "lsa_barrier.h", "coop.h", "barrier.h", "ll_a2a.h"};
    const std::vector<std::string> gin_files = {"gin.h", "gin_barrier.h"};
    const std::vector<std::string> skipped = {"utility.h", "net_device.h", "comm.h"};
    std::vector<std::string> names = first;
    std::error_code ec;
    std::vector<std::string> rest;
    for (const auto& e : fs::directory_iterator(inc / "nccl_device", ec)) {
      const std::string n = e.path().filename().string();
      auto listed = [&](const std::vector<std::string>& v) { return std::find(v.begin(), v.end(), n) != v.end(); };
      if (e.is_regular_file() && e.path().extension() == ".h" && !listed(first) && !listed(gin_files) &&
          !listed(skipped))
        rest.push_back(n);
    }
    std::sort(rest.begin(), rest.end());
    names.insert(names.end(), rest.begin(), rest.end());
    DeclarationOptions dev;
    auto add_device = [&](const std::string& n, const std::string& note) {
      const std::string text = ReadText(inc / "nccl_device" / n);
      if (!text.empty()) files.push_back({"nccl_device/" + n + note, ExtractDeclarations(text, dev)});
    };
    for (const auto& n : names) add_device(n, "");
    if (rdma_nics) {
      for (const auto& n : gin_files) add_device(n, "");
    }
    const std::string host = ReadText(inc / "nccl.h");
    if (!host.empty()) {
      DeclarationOptions h;
      // Communicator management is the harness's; configs and simulation are irrelevant here.
      h.skip_names = {"CommInit", "CommSplit", "CommShrink", "CommRevoke", "CommAbort", "CommFinalize",
                      "CommDestroy", "GetUniqueId", "UniqueId", "UNIQUE_ID", "Config", "SimInfo", "SimulateEnd", "CONFIG",
                      "SIM_INFO", "SHRINK", "REVOKE", "SPLIT_NOCOLOR", "UNDEF", "CommGetAsyncError"};
      files.push_back({"nccl.h (host API)", ExtractDeclarations(host, h)});
    }
    if (!rdma_nics)
      for (const auto& n : gin_files) add_device(n, " (GIN needs RDMA NICs: none on this machine)");
  }
  if (nvshmem.found && !nvshmem.include_dir.empty()) {
    const fs::path inc = nvshmem.include_dir;
    DeclarationOptions o;
    o.only_names = {"nvshmem", "NVSHMEM"};
    for (const char* n : {"nvshmem.h", "nvshmemx.h", "host/nvshmem_api.h", "host/nvshmemx_api.h",
                          "device/nvshmem_defines.h", "device/nvshmemx_defines.h"}) {
      const std::string text = ReadText(inc / n);
      if (!text.empty()) files.push_back({"NVSHMEM " + std::string(n), ExtractDeclarations(text, o)});
    }
  }
  for (const auto& [title, decls] : files)
    if (!AppendBounded(out, title, decls, max_chars)) break;
  return out;
}

std::string InstalledCommApiText(const Toolchain& tc, size_t max_chars) {
  return InstalledCommApiText(tc.nccl, tc.nvshmem, max_chars, !tc.rdma_devices.empty());
}

std::string HardwareFactsText(const Toolchain& tc) {
  std::ostringstream s;
  if (tc.gpus.empty()) {
    s << "GPUs: none visible on the machine running the search (candidates run on the evaluation GPUs).\n";
  } else {
    s << "GPUs (" << tc.gpus.size() << "):\n";
    for (const auto& g : tc.gpus)
      s << "  GPU" << g.index << ": " << g.name << ", " << g.sm_count << " SMs, " << Gib(g.memory_bytes)
        << ", compute capability " << g.cc_major << "." << g.cc_minor << "\n";
  }
  if (!tc.gpu_links.empty()) {
    s << "GPU links (nvidia-smi topo: NV# = NVLink with # links, PIX/PXB/PHB/NODE/SYS = PCIe paths):\n";
    std::set<std::string> kinds;
    for (size_t i = 0; i < tc.gpu_links.size(); ++i) {
      s << "  GPU" << i << ":";
      for (size_t j = 0; j < tc.gpu_links[i].size(); ++j) {
        s << " " << tc.gpu_links[i][j];
        if (i != j) kinds.insert(tc.gpu_links[i][j]);
      }
      s << "\n";
    }
    bool all_nvlink = !kinds.empty();
    for (const auto& k : kinds) all_nvlink = all_nvlink && k.rfind("NV", 0) == 0;
    s << "  " << (all_nvlink ? "every GPU pair is NVLink-connected (LSA load/store works between all ranks)"
                             : "not every GPU pair is NVLink-connected")
      << "\n";
  }
  s << "RDMA NICs: " << (tc.rdma_devices.empty() ? "none (no GIN / inter-node RDMA)" : Join(tc.rdma_devices, " "))
    << "\n";
  s << "CUDA " << (tc.cuda_version.empty() ? "?" : tc.cuda_version);
  if (!tc.driver_version.empty()) s << ", driver " << tc.driver_version;
  s << "; NCCL " << (tc.nccl.found ? (tc.nccl.version.empty() ? "(found)" : tc.nccl.version) : "not found");
  if (tc.nccl.found)
    s << " (device API " << (tc.nccl.device_api ? "yes" : "no") << ", LSA " << (tc.nccl.lsa ? "yes" : "no") << ", GIN "
      << (tc.nccl.gin ? "yes" : "no") << ")";
  s << "; NVSHMEM " << (tc.nvshmem.found ? (tc.nvshmem.version.empty() ? "found" : tc.nvshmem.version) : "not installed")
    << "\n";
  s << "NVLink multicast (NVLS / multimem) is off for candidates.\n";
  return s.str();
}

}  // namespace cuco
