#include "scaffold/feeding_compute.h"

#include <algorithm>

#include "scaffold/iteration_io.h"
#include "scaffold/loop_accesses.h"

namespace cuco::scaffold_internal {
namespace {

// The program's functions that launch kernels or GEMMs, themselves or through the program's
// functions they call.
std::set<std::string> ComputeFunctions(const Analysis& a) {
  std::set<std::string> out;
  for (const AnalyzedOp& op : a.ops)
    if ((op.kind == "kernel" || op.kind == "gemm") && !op.function.empty()) out.insert(op.function);
  AddCallers(a, &out);
  return out;
}

// An NCCL call, or a call of the program's function that issues one (through its own calls too).
bool IsComm(const AnalyzedOp& op) { return IsCommOp(op) || (op.kind == "call" && op.contains_comm); }

// The statement [b, e] does nothing but wait for the device or read its last error (possibly
// inside the program's check macro).
bool OnlySyncOrCheck(const std::vector<Tok>& t, size_t b, size_t e) {
  static const std::set<std::string> waits = {"cudaDeviceSynchronize", "cudaStreamSynchronize", "cudaGetLastError",
                                              "cudaPeekAtLastError"};
  bool any = false;
  for (size_t i = b; i <= e && i < t.size(); ++i) {
    if (!t[i].ident) continue;
    if (waits.count(t[i].text)) {
      any = true;
    } else if (t[i].text.rfind("cuda", 0) == 0 || t[i].text.rfind("nccl", 0) == 0 || t[i].text.rfind("MPI_", 0) == 0 ||
               t[i].text.rfind("cublas", 0) == 0) {
      return false;
    }
  }
  return any;
}

}  // namespace

std::map<int, LineWork> DeviceWorkByLine(const Analysis& a, const std::string& file) {
  const std::set<std::string> compute = ComputeFunctions(a);
  std::map<int, LineWork> out;
  for (const AnalyzedOp& op : a.ops) {
    if (SourceFileName(op.file) != file) continue;
    const bool comm = IsComm(op);
    const bool launches = !comm && (op.kind == "kernel" || op.kind == "gemm" || (op.kind == "call" && compute.count(op.api)));
    if (!comm && !launches) continue;
    LineWork& w = out[op.line];
    w.comm |= comm;
    w.compute |= launches;
    w.reads.insert(op.reads.begin(), op.reads.end());
    w.writes.insert(op.writes.begin(), op.writes.end());
  }
  return out;
}

size_t FeedingComputeStart(const std::vector<Tok>& t, size_t block_open, size_t first, size_t last,
                           const std::map<int, LineWork>& work) {
  if (first >= t.size() || last >= t.size() || first <= block_open) return first;
  auto on_lines = [&](size_t b, size_t e) {  // the work of the lines of tokens [b, e]
    return std::make_pair(work.lower_bound(t[b].line), work.upper_bound(t[e].line));
  };
  std::set<std::string> needed;  // what the communication, and the compute taken, read
  for (auto [it, end] = on_lines(first, last); it != end; ++it)
    if (it->second.comm) needed.insert(it->second.reads.begin(), it->second.reads.end());
  size_t start = first;
  for (size_t end_tok = first - 1; end_tok > block_open && t[end_tok].text == ";";) {  // a block before: the walk ends
    const size_t b = StatementStart(t, end_tok, block_open + 1);
    if (b <= block_open || b > end_tok) break;
    auto [it, stop] = on_lines(b, end_tok);
    if (it == stop) {
      if (!OnlySyncOrCheck(t, b, end_tok)) break;
    } else {
      bool feeds = false, other = false;
      std::set<std::string> reads;
      for (; it != stop; ++it) {
        const LineWork& w = it->second;
        if (w.comm || !w.compute) other = true;
        const bool writes_needed =
            std::any_of(w.writes.begin(), w.writes.end(), [&](const std::string& v) { return needed.count(v) > 0; });
        if (writes_needed && !w.reads.empty()) feeds = true;
        reads.insert(w.reads.begin(), w.reads.end());
      }
      if (other || !feeds) break;
      needed.insert(reads.begin(), reads.end());
      start = b;
    }
    end_tok = b - 1;
  }
  return start;
}

}  // namespace cuco::scaffold_internal
