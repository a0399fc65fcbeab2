#include "scaffold/iteration_io.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <map>
#include <regex>
#include <utility>


namespace cuco::scaffold_internal {

bool IsCommOp(const AnalyzedOp& op) { return op.kind == "collective" || op.kind == "p2p"; }
bool IsDataOp(const AnalyzedOp& op) {
  return IsCommOp(op) || op.kind == "kernel" || op.kind == "gemm" || op.kind == "copy" || op.kind == "group";
}

std::vector<int> IterationOps(const Analysis& a) {
  std::map<std::string, std::pair<int, int>> span;  // function -> [lo, hi]
  auto widen = [&](const std::string& f, int i) {
    auto [it, fresh] = span.try_emplace(f, i, i);
    if (!fresh) it->second.first = std::min(it->second.first, i), it->second.second = std::max(it->second.second, i);
  };
  for (const auto& op : a.ops)
    if (IsCommOp(op)) widen(op.function, op.index);
  for (const auto& e : a.edges) {
    // Calls of helpers (the analysis's `call` ops) stay out: the skeleton is built from the
    // function that issues the communication itself.
    if (a.ops[e.from].kind == "call" || a.ops[e.to].kind == "call") continue;
    widen(a.ops[e.from].function, e.from);
    widen(a.ops[e.to].function, e.to);
  }
  std::vector<int> out;
  for (const auto& op : a.ops) {
    auto it = span.find(op.function);
    if (it != span.end() && op.index >= it->second.first && op.index <= it->second.second && IsDataOp(op))
      out.push_back(op.index);
  }
  return out;
}

bool OutputReadOnlyForBeta(const AnalyzedOp& op) {
  return op.kind == "gemm" && op.api.find("axpy") == std::string::npos;
}

bool GemmAccumulates(const AnalyzedOp& op, const std::string& code) {
  static const std::map<std::string, int> beta_arg = {
      {"cublasSgemm", 11}, {"cublasDgemm", 11}, {"cublasHgemm", 11}, {"cublasGemmEx", 13},
      {"cublasSgemmStridedBatched", 13}, {"cublasDgemmStridedBatched", 13}, {"cublasHgemmStridedBatched", 13},
      {"cublasGemmStridedBatchedEx", 15}};
  const auto at = beta_arg.find(op.api);
  if (at == beta_arg.end() || at->second >= static_cast<int>(op.args.size())) return false;
  static const std::regex address(R"(^\s*&\s*([A-Za-z_]\w*)\s*$)");
  std::smatch m;
  if (!std::regex_match(op.args[at->second], m, address)) return false;
  // Every `name = <number>` (or `name{<number>}`, `name(<number>)`) in the file.
  const std::regex set(R"(\b)" + m[1].str() + R"(\s*(=|\{|\()\s*([^,;)}]*))");
  static const std::regex number(R"(^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?[fFlL]?\s*$)");
  bool nonzero = false;
  for (auto it = std::sregex_iterator(code.begin(), code.end(), set); it != std::sregex_iterator(); ++it) {
    const std::string value = (*it)[2].str();
    if ((*it)[1].str() == "=" && value.rfind("=", 0) == 0) continue;  // `beta == 0`: a comparison
    if (!std::regex_match(value, number)) return false;                  // set to what cannot be known here
    nonzero |= std::stod(value) != 0.0;
  }
  return nonzero;
}

IoGuess GuessIo(const Analysis& a, const std::vector<int>& ops) {
  std::vector<std::string> order;
  std::map<std::string, char> first, last;
  auto touch = [&](const std::string& b, char how) {
    if (!first.count(b)) first[b] = how, order.push_back(b);
    last[b] = how;
  };
  for (int i : ops) {
    const AnalyzedOp& op = a.ops[i];
    auto writes = [&](const std::string& b) { return std::find(op.writes.begin(), op.writes.end(), b) != op.writes.end(); };
    for (const auto& b : op.reads)
      if (!(OutputReadOnlyForBeta(op) && writes(b))) touch(b, 'r');
    for (const auto& b : op.writes) touch(b, 'w');
  }
  IoGuess g;
  for (const auto& b : order) {
    const bool in = first[b] == 'r', out = last[b] == 'w';
    if (in) g.inputs.push_back(b);
    if (out) g.outputs.push_back(b);
    if (!in && !out) g.scratch.push_back(b);
  }
  return g;
}

std::string IoName(const std::string& base) {
  std::string b = base;
  for (const char* sep : {"->", "."}) {
    const size_t p = b.rfind(sep);
    if (p != std::string::npos) b = b.substr(p + std::strlen(sep));
  }
  std::string out;
  for (char c : b)
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '_') out += c;
  if (out.empty()) out = "buf";
  return out.substr(0, 40);
}

const char* DTypeFor(const std::string& nccl_type) {
  static const std::map<std::string, const char*> m = {
      {"ncclBfloat16", "kBF16"}, {"ncclHalf", "kF16"},   {"ncclFloat16", "kF16"}, {"ncclFloat", "kF32"},
      {"ncclFloat32", "kF32"},   {"ncclDouble", "kF64"}, {"ncclFloat64", "kF64"}, {"ncclInt", "kI32"},
      {"ncclInt32", "kI32"},     {"ncclInt64", "kI64"},  {"ncclUint8", "kU8"},    {"ncclInt8", "kU8"},
      {"ncclChar", "kU8"}};
  auto it = m.find(nccl_type);
  return it == m.end() ? nullptr : it->second;
}

}  // namespace cuco::scaffold_internal
