#include "scaffold/projection.h"

#include <fmt/format.h>

#include <cctype>
#include <regex>
#include <vector>

#include "analyze/analysis.h"
#include "scaffold/main_rewrite.h"
#include "scaffold/loop_accesses.h"
#include "scaffold/program_text.h"
#include "scaffold/tokens.h"
#include "util/source_text.h"

namespace cuco::scaffold_internal {
namespace {

bool IdentChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// The offset of the last non-space byte of `code` before `at`, or npos.
size_t PrevCode(const std::string& code, size_t at) {
  while (at > 0) {
    --at;
    if (!std::isspace(static_cast<unsigned char>(code[at]))) return at;
  }
  return std::string::npos;
}

// Calls the harness's stand-ins answer, or that only touch the host: never guarded.
bool Unguarded(const std::string& name) {
  static const std::set<std::string> names = {
      "cudaSetDevice",           "cudaGetDevice",          "cudaGetDeviceCount",   "cudaGetErrorString",
      "cudaGetErrorName",        "cudaGetLastError",       "cudaPeekAtLastError",  "cudaMallocHost",
      "cudaHostAlloc",           "cudaFreeHost",           "cudaHostRegister",     "cudaHostUnregister",
      "cudaGetDeviceProperties", "cudaDeviceGetAttribute", "cudaDriverGetVersion", "cudaRuntimeGetVersion",
      "cudaEventElapsedTime",    "cudaStreamDestroy",      "cudaEventDestroy",     "cublasGetStatusString",
      "cublasGetStatusName",     "cublasLtGetVersion",     "cublasGetVersion",     "cudnnGetErrorString",
      "cudnnGetVersion",         "ncclGetErrorString",     "ncclGetLastError",     "ncclGetVersion",
      "ncclGroupStart",          "ncclGroupEnd",           "ncclGetUniqueId",      "ncclCommInitRank",
      "ncclCommInitRankConfig",  "ncclCommInitAll",        "ncclCommDestroy",      "ncclCommFinalize",
      "ncclCommAbort",           "ncclCommCount",          "ncclCommUserRank",     "ncclCommCuDevice"};
  return names.count(name) > 0 || name.rfind("cudaOccupancy", 0) == 0 || name.rfind("cudaFuncGet", 0) == 0;
}

// The candidate's stand-ins for these guard themselves (cuco/program/impl/candidate_shims.h); on the
// reference side they are CUDA's own and get a guard.
bool StreamOrEvent(const std::string& name) {
  return name.rfind("cudaStreamCreate", 0) == 0 || name.rfind("cudaEventCreate", 0) == 0 ||
         name.rfind("cudaEventRecord", 0) == 0 || name == "cudaStreamWaitEvent" || name == "cudaEventSynchronize" ||
         name == "cudaEventQuery";
}

// The GEMMs the candidate side stands in for (candidate_shims.h: chunk_overlap.h's stand-ins, which
// do nothing while another GPU is selected): guarded by themselves there.
bool StandInGemm(const std::string& name) {
  return name == "cublasSgemm" || name == "cublasHgemm" || name == "cublasGemmEx" || name == "cublasLtMatmul";
}

// Calls whose GPU is that of the memory they touch (CUCO_PROGRAM_GUARD_MEM), and allocations
// (CUCO_PROGRAM_GUARD_ALLOC: another GPU's is a foreign handle): cuco/program/impl/projection.h.
bool MemoryCall(const std::string& name) {
  static const std::set<std::string> names = {"cudaMemcpy",      "cudaMemcpyAsync", "cudaMemcpy2D", "cudaMemcpy2DAsync",
                                              "cudaMemset",      "cudaMemsetAsync", "cudaMemset2D", "cudaMemset2DAsync",
                                              "cudaFree",        "cudaFreeAsync",   "ncclMemFree"};
  return names.count(name) > 0;
}
bool AllocationCall(const std::string& name) {
  return name == "cudaMalloc" || name == "cudaMallocAsync" || name == "cudaMallocManaged" || name == "ncclMemAlloc";
}

bool NcclCommCall(const std::string& name) {
  static const std::set<std::string> names = {"ncclAllReduce", "ncclBroadcast",     "ncclBcast",  "ncclReduce",
                                              "ncclAllGather", "ncclReduceScatter", "ncclSend",   "ncclRecv",
                                              "ncclAlltoAll",  "ncclGather",        "ncclScatter"};
  return names.count(name) > 0;
}

// `code` (comments and literals blanked) with the bodies of its device functions (`__global__`,
// `__device__`) blanked, newlines kept: a kernel's `x[i]` indexes its own parameter, never a host
// array of the program's.
std::string WithoutDeviceBodies(std::string code) {
  static const std::regex device(R"(\b__(?:global|device)__\b)");
  for (auto it = std::sregex_iterator(code.begin(), code.end(), device); it != std::sregex_iterator(); ++it) {
    const size_t open = code.find_first_of("{;", static_cast<size_t>(it->position(0)));
    if (open == std::string::npos || code[open] != '{') continue;  // a declaration
    int depth = 0;
    for (size_t i = open; i < code.size(); ++i) {
      if (code[i] == '{') ++depth;
      else if (code[i] == '}' && --depth == 0) break;
      if (code[i] != '\n' && depth > 0) code[i] = ' ';
    }
  }
  return code;
}

}  // namespace

Result<std::string> GuardLaunches(const std::string& file, const std::string& text) {
  const std::string code = BlankCommentsAndLiterals(text);
  std::vector<size_t> starts;
  for (size_t at = code.find("<<<"); at != std::string::npos; at = code.find("<<<", at + 3)) {
    size_t p = PrevCode(code, at);
    if (p != std::string::npos && code[p] == '>') {  // k<T, 4><<<: skip the template arguments
      int depth = 0;
      for (;; --p) {
        if (code[p] == '>')
          ++depth;
        else if (code[p] == '<' && --depth == 0)
          break;
        if (p == 0) break;
      }
      p = PrevCode(code, p);
    }
    if (p == std::string::npos || !IdentChar(code[p])) continue;  // a shift, not a launch
    size_t begin = p + 1;
    for (;;) {  // the launched name, qualified names included (ns::k)
      while (begin > 0 && IdentChar(code[begin - 1])) --begin;
      if (begin >= 2 && code[begin - 1] == ':' && code[begin - 2] == ':')
        begin -= 2;
      else
        break;
    }
    const size_t before = PrevCode(code, begin);
    bool statement = before == std::string::npos || code[before] == ';' || code[before] == '{' || code[before] == '}' ||
                     (code[before] == ':' && (before == 0 || code[before - 1] != ':'));
    if (!statement && code[before] == ')') {  // `if (c) k<<<`, `for (...) k<<<`, not `(void)k<<<`
      const size_t open = code.rfind('(', before);
      const std::string inside = Trim(code.substr(open + 1, before - open - 1));
      statement = inside != "void";
    }
    if (!statement && before >= 3 && code.compare(before - 3, 4, "else") == 0 &&
        (before < 4 || !IdentChar(code[before - 4])))
      statement = true;
    if (!statement)
      return Status::InvalidArgument(
          fmt::format("{}:{}: this kernel launch is part of an expression (a macro's argument?); a program driving "
                      "every GPU from one "
                      "process runs one GPU's part per rank, and only a launch written as a statement of its own can "
                      "be skipped for the "
                      "other GPUs: write it as `{}<<<...>>>(...);` and check the error after it",
                      file, LineOf(text, begin), code.substr(begin, p + 1 - begin)));
    starts.push_back(begin);
  }
  std::string out;
  size_t at = 0;
  for (size_t s : starts) {
    out += text.substr(at, s - at) + "if (!cuco_program::proj::Own()) {} else ";
    at = s;
  }
  return out + text.substr(at);
}

std::set<std::string> GuardedNames(const std::string& code_in, bool reference) {
  const std::string code = BlankCommentsAndLiterals(code_in);
  // A library's functions are named prefix + capital (cudaMalloc, cublasLtMatmul, ncclSend); the
  // program's own helpers named like them (cuda_check, a macro cudaCheck) are not guarded.
  static const std::regex call(R"(\b((?:cuda|cublas|cudnn|curand|cusparse|cufft|nccl)[A-Z][A-Za-z0-9_]*)\s*\()");
  static const std::regex defined(
      R"((?:#\s*define\s+([A-Za-z_]\w*))|(?:\b([A-Za-z_]\w*)\s*\([^;{}()]*(?:\([^;{}()]*\)[^;{}()]*)*\)\s*(?:const\s*)?\{))");
  std::set<std::string> own;
  for (auto it = std::sregex_iterator(code.begin(), code.end(), defined); it != std::sregex_iterator(); ++it)
    own.insert((*it)[1].matched ? (*it)[1].str() : (*it)[2].str());
  std::set<std::string> names;
  for (auto it = std::sregex_iterator(code.begin(), code.end(), call); it != std::sregex_iterator(); ++it) {
    const std::string n = (*it)[1].str();
    if (own.count(n) || Unguarded(n) || ((StreamOrEvent(n) || StandInGemm(n)) && !reference) ||
        n.find("_v2") != std::string::npos)
      continue;
    if (n.rfind("nccl", 0) == 0 && !NcclCommCall(n) && n != "ncclMemAlloc" && n != "ncclMemFree" &&
        n != "ncclCommRegister" && n != "ncclCommDeregister")
      continue;
    names.insert(n);
  }
  return names;
}

std::string QualifiedGuardedCall(const std::string& file, const std::string& text, const std::set<std::string>& names) {
  const std::string code = BlankCommentsAndLiterals(text);
  static const std::regex qualified(R"(::\s*([A-Za-z_]\w*)\s*\()");
  for (auto it = std::sregex_iterator(code.begin(), code.end(), qualified); it != std::sregex_iterator(); ++it)
    if (names.count((*it)[1].str()))
      return fmt::format("{}:{}: ::{}", file, LineOf(text, static_cast<size_t>(it->position(0))), (*it)[1].str());
  return "";
}

std::string ProjectionGuards(const std::string& code_in, bool reference) {
  const std::set<std::string> names = GuardedNames(code_in, reference);
  std::set<std::string> headers;
  for (const auto& n : names) {
    if (n.rfind("cublasLt", 0) == 0)
      headers.insert("cublasLt.h");
    else if (n.rfind("cublas", 0) == 0)
      headers.insert("cublas_v2.h");
    else if (n.rfind("cudnn", 0) == 0)
      headers.insert("cudnn.h");
    else if (n.rfind("curand", 0) == 0)
      headers.insert("curand.h");
    else if (n.rfind("cusparse", 0) == 0)
      headers.insert("cusparse.h");
    else if (n.rfind("cufft", 0) == 0)
      headers.insert("cufft.h");
    else if (n.rfind("cudaProfiler", 0) == 0)  // not in cuda_runtime.h: declared after the guard, it breaks
      headers.insert("cuda_profiler_api.h");
  }
  std::string t =
      "// One process drives every GPU in this program: each rank does only its own GPU's part. While another\n"
      "// GPU is selected these calls do nothing (cuco/program/impl/projection.h).\n";
  for (const auto& h : headers) t += "#include <" + h + ">\n";
  for (const auto& n : names) {
    const char* guard = NcclCommCall(n)     ? "CUCO_PROGRAM_GUARD_COMM"
                        : MemoryCall(n)     ? "CUCO_PROGRAM_GUARD_MEM"
                        : AllocationCall(n) ? "CUCO_PROGRAM_GUARD_ALLOC"
                                            : "CUCO_PROGRAM_GUARD";
    const bool cublas = n.rfind("cublas", 0) == 0 && n.rfind("cublasLt", 0) != 0;
    if (cublas)  // cublas_v2.h names most of its calls by a macro: cublasSgemm -> cublasSgemm_v2
      t += fmt::format(
          "#ifdef {0}\n#define {0}_v2(...) {1}({0}_v2, __VA_ARGS__)\n#else\n#define {0}(...) {1}({0}, "
          "__VA_ARGS__)\n#endif\n",
          n, guard);
    else  // a name already a macro is a stand-in that guards itself
      t += fmt::format("#ifndef {0}\n#define {0}(...) {1}({0}, __VA_ARGS__)\n#endif\n", n, guard);
  }
  return t;
}

std::string CrossGpuCopy(const std::string& file, const std::string& text) {
  const std::string code = BlankCommentsAndLiterals(text);
  static const std::regex peer(
      R"(\b(cudaMemcpyPeer(?:Async)?|cudaMemcpy3DPeer(?:Async)?)\s*\()");  // enabling peer access: peer_access.h
  std::smatch m;
  if (!std::regex_search(code, m, peer)) return "";
  return fmt::format("{}:{}: {}", file, LineOf(text, static_cast<size_t>(m.position(0))), m[1].str());
}

std::string ForeignBufferCall(const Analysis& analysis) {
  static const std::regex per_gpu(R"(^\s*[A-Za-z_][\w.]*\s*\[\s*([A-Za-z_]\w*)\s*\]\s*$)");  // comms[i]
  static const std::regex fixed_entry(R"(^\s*\(?\s*([A-Za-z_][\w.]*)\s*\[\s*(\d+)\s*\])");      // device_a[1] + ...
  for (const AnalyzedOp& op : analysis.ops) {
    std::smatch gpu;
    if ((op.kind != "collective" && op.kind != "p2p") || !std::regex_match(op.comm, gpu, per_gpu)) continue;
    for (const std::string* buffer : {&op.send, &op.recv}) {
      std::smatch m;
      if (!std::regex_search(*buffer, m, fixed_entry)) continue;
      return fmt::format("{}:{}: {} on `{}` names `{}[{}]`, the entry of GPU {} alone, from every GPU's call (for the "
                         "GPU it is for: `{}[{}]`)", SourceFileName(op.file), op.line, op.api, Trim(op.comm), m[1].str(),
                         m[2].str(), m[2].str(), m[1].str(), gpu[1].str());
    }
  }
  return "";
}

DeviceIndexing::DeviceIndexing(const std::string& main_text, const std::string& count) {
  if (count.empty()) return;
  const std::string code = BlankCommentsAndLiterals(main_text);
  std::set<std::string> vars;
  std::string chain;  // `count`, a name or a member chain, as a pattern: `opt.gpus`, `o -> gpus`
  std::string spelled;
  for (char c : count)
    if (!std::isspace(static_cast<unsigned char>(c))) spelled += c;
  for (const ChainName& n : ChainNames(spelled)) chain += (chain.empty() ? "" : R"(\s*(?:\.|->)\s*)") + n.name;
  const std::regex loop(
      R"(\bfor\s*\(\s*(?:(?:int|unsigned|size_t|auto|long|int64_t)\s+)?([A-Za-z_]\w*)\s*=[^;]*;\s*\1\s*<\s*)" + chain +
      R"(\b)");
  for (auto it = std::sregex_iterator(code.begin(), code.end(), loop); it != std::sregex_iterator(); ++it)
    vars.insert((*it)[1].str());
  if (vars.empty()) return;
  std::string any;  // one of the loop variables, as a word (they are identifiers)
  for (const auto& v : vars) any += (any.empty() ? "" : "|") + v;
  const std::regex loop_var("\\b(" + any + ")\\b");
  // `name[i]`, or a container's checked element `name.at(i)`.
  static const std::regex indexed(R"(\b([A-Za-z_]\w*)\s*(?:\[([^\[\]]*)\]|\.\s*at\s*\(([^()]*)\)))");
  for (auto it = std::sregex_iterator(code.begin(), code.end(), indexed); it != std::sregex_iterator(); ++it) {
    const std::string index = (*it)[2].matched ? (*it)[2].str() : (*it)[3].str();
    if (std::regex_search(index, loop_var)) arrays_.insert((*it)[1].str());
  }
}

std::vector<ChainName> ChainNames(const std::string& expr) {
  static const std::regex part(R"((^|\.|->)([A-Za-z_]\w*))");
  std::vector<ChainName> out;
  for (auto it = std::sregex_iterator(expr.begin(), expr.end(), part); it != std::sregex_iterator(); ++it)
    out.push_back({(*it)[2].str(), static_cast<size_t>(it->position(0) + it->length(0)), it->position(0) == 0});
  return out;
}

std::string DeviceIndexing::Normalize(const std::string& base, const std::string& index) const {
  // The first name of the chain (`d_w`, or an object's member: `stressor.d_w`, `t->d_w`) that is a
  // per-GPU array and is not already subscripted.
  for (const ChainName& n : ChainNames(base)) {
    if (!arrays_.count(n.name) || (n.end < base.size() && base[n.end] == '[')) continue;
    return base.substr(0, n.end) + "[" + index + "]" + base.substr(n.end);
  }
  return base;
}

bool DeviceIndexing::NamesAnArray(const std::string& base, const std::string& code_in) const {
  const std::string code = WithoutDeviceBodies(BlankCommentsAndLiterals(code_in));
  for (const ChainName& n : ChainNames(base)) {
    if (arrays_.count(n.name) && (n.head || (n.end < base.size() && base[n.end] == '['))) continue;  // Normalize's
    const std::regex subscripted(n.head ? "\\b" + n.name + R"(\s*\[)" : R"((\.|->)\s*)" + n.name + R"(\s*\[)");
    if (std::regex_search(code, subscripted)) return true;
  }
  return false;
}

std::string PassedFunction(const std::string& main_text, const std::set<std::string>& functions) {
  const std::string code = BlankCommentsAndLiterals(main_text);
  static const std::regex arg(R"([(,]\s*&?\s*([A-Za-z_]\w*)\s*(?=[,)]))");
  for (auto it = std::sregex_iterator(code.begin(), code.end(), arg); it != std::sregex_iterator(); ++it)
    if (functions.count((*it)[1].str())) return (*it)[1].str();
  return "";
}

size_t ThreadLambdaBody(const std::string& main_text) {
  const std::string code = BlankCommentsAndLiterals(main_text);
  static const std::regex start(R"((?:\bstd\s*::\s*thread\b\s*(?:[A-Za-z_]\w*)?\s*[({]|\bemplace_back\s*\()\s*\[)");
  std::smatch m;
  if (!std::regex_search(code, m, start)) return std::string::npos;
  // Past the capture list, the parameters and `mutable` / `noexcept` / `-> T`, to the body's `{`.
  auto close_of = [&](size_t open, char o, char c) {
    int depth = 0;
    for (size_t i = open; i < code.size(); ++i) {
      if (code[i] == o)
        ++depth;
      else if (code[i] == c && --depth == 0)
        return i;
    }
    return std::string::npos;
  };
  size_t at = close_of(static_cast<size_t>(m.position(0) + m.length(0)) - 1, '[', ']');
  if (at == std::string::npos) return at;
  for (++at; at < code.size() && code[at] != '{'; ++at) {
    if (code[at] == '(') {
      at = close_of(at, '(', ')');
      if (at == std::string::npos) return at;
    } else if (code[at] == ';' || code[at] == ',') {
      return std::string::npos;  // not a lambda's body
    }
  }
  return at < code.size() ? at : std::string::npos;
}

std::string RenameStdThread(const std::string& text) {
  static const std::regex thread(R"(\bstd\s*::\s*thread\b)");
  return RenameTokens(std::regex_replace(text, thread, "cuco_program::rank_thread"),
                           {{"pthread_create", "cuco_program::rank_pthread_create"},
                            {"pthread_join", "cuco_program::rank_pthread_join"}});
}

std::map<std::string, std::string> LocalAliases(const std::string& text, const std::set<std::string>& per_gpu_arrays,
                                                std::map<std::string, std::string>* second) {
  const std::string code = BlankCommentsAndLiterals(text);
  // (A ternary's condition may compare: `(buf == 0) ? ping : pong`.)
  static const std::regex alias(R"(([&*]|\bauto)\s*(?:const\s+)?([A-Za-z_]\w*)\s*=\s*([^;=]+|[^;=]*[=!<>]=[^;]*\?[^;]*);)");
  static const std::regex entry(R"(^[A-Za-z_][\w.]*(?:->\w+)*(?:\s*\[[^\[\]]+\])+$)");
  std::map<std::string, std::string> out;
  for (auto it = std::sregex_iterator(code.begin(), code.end(), alias); it != std::sregex_iterator(); ++it) {
    const std::string name = (*it)[2].str(), init = Trim((*it)[3].str());
    const bool keeps_entry = (*it)[1].str() == "&" && std::regex_match(init, entry) && !per_gpu_arrays.count(BufferBase(init));
    const std::string base = keeps_entry ? init : BufferBase(init);
    // `float* p = nullptr;` stands for nothing yet: p is its own buffer (a cudaMalloc to come); so is
    // one made there (`int* counts = new int[n];`, `(double*)malloc(bytes)`), which aliases nothing.
    const bool null = IsNullPointerLiteral(base) || IsFreshAllocation(base);
    if (base.empty() || null || base == name || out.count(name)) continue;
    out[name] = base;
    const std::string other = keeps_entry ? "" : BufferBase(SecondAlternative(init));
    if (second != nullptr && !other.empty()) (*second)[name] = other;
  }
  // An alias of an alias (`const T* panel = own;` after `const T* own = d_a.get() + off;`) names
  // what the first stands for, and its other alternative where the first is one of two buffers.
  static const std::regex head_rest(R"(^([A-Za-z_]\w*)(.*)$)");
  for (auto& [name, base] : out)
    for (int hops = 0; hops < 8; ++hops) {
      std::smatch m;
      if (!std::regex_match(base, m, head_rest)) break;
      const auto it = out.find(m[1].str());
      if (it == out.end() || it->first == name || it->second == base) break;
      base = it->second + m[2].str();
      if (second == nullptr || second->count(name)) continue;
      if (const auto other = second->find(it->first); other != second->end())
        (*second)[name] = other->second + m[2].str();  // `c_cols = c_out + off` after `c_out = b ? ping : pong`
    }
  return out;
}

}  // namespace cuco::scaffold_internal
