#include "workload/deny_list.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <tuple>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <future>

#include "launch/subprocess.h"
#include "util/files.h"
#include "workload/cpp_tokens.h"
#include "workload/evolve_blocks.h"
#include "util/source_text.h"

namespace cuco {
namespace {

const char* kFiles = "file and socket access";
const char* kEnv = "environment access";
const char* kProcess = "process control";
const char* kTiming = "timing and event APIs";
const char* kHarness = "the harness's own symbols";
const char* kStreams = "stream and device management owned by the harness";
const char* kPreproc = "preprocessor escapes";

std::vector<DenyEntry> Make(const char* category, std::initializer_list<const char*> tokens) {
  std::vector<DenyEntry> v;
  for (const char* t : tokens) v.push_back({t, category});
  return v;
}

std::vector<DenyEntry> BuildIdentifiers() {
  std::vector<DenyEntry> all;
  auto add = [&](std::vector<DenyEntry> v) { all.insert(all.end(), v.begin(), v.end()); };
  add(Make(kFiles, {"fopen", "fopen64", "freopen", "fdopen", "open", "open64", "openat", "creat", "fstream", "ofstream",
                    "ifstream", "filebuf", "filesystem", "mmap", "unlink", "remove", "rename", "mkdir", "rmdir",
                    "opendir", "dup", "dup2", "dup3", "pipe", "socket", "connect", "truncate", "ftruncate",
                    "cuFileRead", "cuFileWrite", "write", "writev", "pwrite", "pwrite64", "pwritev", "pwritev2", "read",
                    "readv", "pread", "pread64", "preadv", "sendfile", "splice", "vmsplice", "mprotect",
                    "pkey_mprotect", "pkey_alloc", "madvise", "mremap", "munmap", "memfd_create",
                    "process_vm_readv", "process_vm_writev", "dl_iterate_phdr", "dladdr", "dlinfo"}));
  add(Make(kEnv, {"getenv", "secure_getenv", "setenv", "unsetenv", "putenv", "clearenv", "environ", "__environ"}));
  add(Make(kProcess, {"exit", "_exit", "_Exit", "quick_exit", "abort", "terminate", "atexit", "at_quick_exit", "fork",
                      "vfork", "execv", "execve", "execvp", "execl", "execlp", "execle", "system", "popen", "kill",
                      "raise", "signal", "sigaction", "ptrace", "dlopen", "dlsym", "dlmopen", "syscall", "setjmp",
                      "longjmp", "_setjmp", "_longjmp", "sigsetjmp", "siglongjmp", "__sigsetjmp", "__builtin_setjmp",
                      "__builtin_longjmp", "sigset", "sigvec", "bsd_signal", "sysv_signal", "ssignal", "sigaltstack",
                      "sigprocmask", "pthread_sigmask", "prctl", "on_exit", "__cxa_atexit", "__cxa_thread_atexit",
                      "pthread_atfork", "set_terminate", "set_unexpected", "set_new_handler",
                      "__builtin_frame_address", "__builtin_return_address", "pthread_create", "thread", "jthread", "async", "main", "constructor", "destructor",
                      "cudaGetDriverEntryPoint", "cudaGetDriverEntryPointByVersion", "cuGetProcAddress"}));
  add(Make(kTiming, {"cudaEventCreate", "cudaEventCreateWithFlags", "cudaEventRecord", "cudaEventRecordWithFlags",
                     "cudaEventElapsedTime", "cudaEventElapsedTime_v2", "cudaEventSynchronize", "cudaEventQuery",
                     "cudaEventDestroy", "cuEventCreate", "cuEventRecord", "cuEventRecordWithFlags",
                     "cuEventElapsedTime", "cuEventSynchronize", "cuEventQuery", "cuEventDestroy", "clock",
                     "clock64", "clock_gettime", "gettimeofday", "time", "chrono", "__rdtsc", "rdtsc",
                     "__rdtscp", "_rdtsc", "__builtin_ia32_rdtsc", "__builtin_ia32_rdtscp", "__builtin_readcyclecounter",
                     "__builtin_readsteadycounter", "__builtin_ia32_rdpmc", "__rdpmc",
                     "cudaProfilerStart", "cudaProfilerStop"}));
  add(Make(kHarness, {"cuco_frozen", "cuco_harness", "impl"}));
  add(Make(kStreams, {"cudaStreamCreate", "cudaStreamCreateWithFlags", "cudaStreamCreateWithPriority",
                      "cudaStreamDestroy", "cuStreamCreate", "cuStreamCreateWithPriority", "cuStreamDestroy",
                      "cudaStreamPerThread", "cudaDeviceReset", "cudaSetDevice", "cuCtxCreate", "cuCtxSetCurrent",
                      "cuCtxPushCurrent", "cuCtxPopCurrent", "cudaDeviceSetLimit", "cuMulticastCreate"}));
  return all;
}

std::vector<DenyEntry> BuildSubstrings() {
  std::vector<DenyEntry> v = Make(kTiming, {"globaltimer", "%clock"});
  auto more = Make(kProcess, {"int $0x80", "sysenter"});
  v.insert(v.end(), more.begin(), more.end());
  more = Make(kFiles, {"/proc/", "/dev/", "/sys/"});
  v.insert(v.end(), more.begin(), more.end());
  auto pre = Make(kPreproc, {"##", "#include", "#undef", "push_macro", "pop_macro", "#line"});
  v.insert(v.end(), pre.begin(), pre.end());
  return v;
}

const char* kAsm = "inline assembly and asm labels";
const char* kLoad = "code or names outside the candidate's own namespace";

// Ordinary words that are only an API when called (signal(...), std::thread):
// a variable named `signal` or `time` is fine.
bool CallOnly(const std::string& ident) {
  static const char* kWords[] = {"open", "remove", "rename", "pipe", "dup", "connect", "truncate", "exit", "abort",
                                 "terminate", "system", "kill", "raise", "signal", "thread", "jthread", "async",
                                 "main", "time", "clock", "mkdir", "socket", "creat", "read", "write", "splice"};
  for (const char* w : kWords)
    if (ident == w) return true;
  return false;
}

// GNU attribute names (any __x__ spelling) that rename a symbol, place it, or run code at load or exit.
bool DeniedAttribute(std::string a) {
  if (a.size() > 4 && a.compare(0, 2, "__") == 0 && a.compare(a.size() - 2, 2, "__") == 0) a = a.substr(2, a.size() - 4);
  static const char* kNames[] = {"constructor", "destructor", "alias", "ifunc", "weak", "weakref", "section",
                                 "init_priority", "visibility", "used", "retain", "symver", "cleanup", "naked",
                                 "externally_visible", "no_reorder", "init_array", "target_clones"};
  for (const char* n : kNames)
    if (a == n) return true;
  return false;
}

// Namespaces a candidate may not open: the standard library's, the ABI's and cuco's own.
bool ReservedNamespace(const std::string& n) {
  static const char* kNames[] = {"std", "__gnu_cxx", "__cxxabiv1", "__gnu_debug", "cuco", "cuco_frozen",
                                 "cuco_harness", "cuco_program", "cub", "thrust", "cuda", "nvcuda"};
  for (const char* k : kNames)
    if (n == k) return true;
  return false;
}

// A token of the candidate file, with the 1-based line it counts for.
struct BlockToken {
  const CppToken* token;
  int line;
};

// The checks on the tokens of the EVOLVE blocks (in file order, from the raw text or from the
// preprocessed stream).
void ScanTokens(const std::vector<BlockToken>& toks, bool pragmas, std::vector<DenyHit>* hits) {
  static const std::map<std::string, std::string> kIdents = [] {
    std::map<std::string, std::string> m;
    for (const auto& e : DeniedIdentifiers()) m[e.token] = e.category;
    return m;
  }();
  auto text = [&](size_t k) -> const std::string& {
    static const std::string kNone;
    return k < toks.size() ? toks[k].token->text : kNone;
  };
  auto kind = [&](size_t k) { return k < toks.size() ? toks[k].token->kind : CppTokenKind::kOther; };
  auto hit = [&](size_t k, const std::string& tok, const char* category) {
    hits->push_back({toks[k].line, tok, category});
  };
  std::string strings;  // adjacent string literals, concatenated and decoded (phase 6)
  size_t strings_at = 0;
  auto flush_strings = [&] {
    for (const auto& e : DeniedSubstrings())
      if (e.category != kPreproc && strings.find(e.token) != std::string::npos) hit(strings_at, e.token, e.category.c_str());
    strings.clear();
  };
  for (size_t k = 0; k < toks.size(); ++k) {
    const CppToken& t = *toks[k].token;
    if (t.kind == CppTokenKind::kString) {
      if (strings.empty()) strings_at = k;
      strings += StringLiteralValue(t);
      if (kind(k + 1) != CppTokenKind::kString) flush_strings();
      continue;
    }
    // #pragma lines of preprocessed output (from _Pragma too): only `#pragma unroll`.
    if (pragmas && t.first_on_line && t.text == "#" && text(k + 1) == "pragma" && text(k + 2) != "unroll")
      hit(k, "#pragma " + text(k + 2), kPreproc);
    if (t.kind != CppTokenKind::kIdentifier) continue;
    const std::string& id = t.text;
    if (id == "asm" || id == "__asm" || id == "__asm__") {
      hit(k, id, kAsm);
      continue;
    }
    if (id == "__attribute__" || id == "__attribute") {
      // __attribute__((a, b(args), ...)): every identifier inside the parentheses.
      int depth = 0;
      size_t m = k + 1;
      for (; m < toks.size(); ++m) {
        if (text(m) == "(") ++depth;
        else if (text(m) == ")" && --depth <= 0) break;
        else if (depth > 0 && kind(m) == CppTokenKind::kIdentifier && DeniedAttribute(text(m)))
          hit(m, "__attribute__((" + text(m) + "))", kLoad);
      }
      k = m;
      continue;
    }
    if (id == "namespace" && k + 1 < toks.size() && text(k > 0 ? k - 1 : k) != "using") {
      size_t m = k + 1;
      if (text(m) == "::") ++m;
      if (kind(m) == CppTokenKind::kIdentifier && ReservedNamespace(text(m))) hit(m, "namespace " + text(m), kLoad);
      continue;
    }
    if (id == "extern" && kind(k + 1) == CppTokenKind::kString) {
      std::string linkage = StringLiteralValue(*toks[k + 1].token);
      if (linkage != "C++") hit(k, "extern \"" + linkage + "\"", kLoad);
      ++k;
      continue;
    }
    auto it = kIdents.find(id);
    if (it == kIdents.end()) continue;
    // Skip member accesses (x.time, p->open): they name fields, not the API.
    const std::string& prev = k > 0 ? text(k - 1) : text(toks.size());
    bool member = prev == "." || prev == "->";
    bool qualified = prev == "::";
    bool called = text(k + 1) == "(";
    if (!member && (!CallOnly(id) || called || qualified)) hit(k, id, it->second.c_str());
  }
  // [[...]] attributes: [[gnu::constructor]], [[using gnu: weak]], [[__gnu__::__used__]].
  for (size_t k = 0; k + 1 < toks.size(); ++k) {
    if (text(k) != "[" || text(k + 1) != "[") continue;
    for (size_t m = k + 2; m + 1 < toks.size() && !(text(m) == "]" && text(m + 1) == "]"); ++m)
      if (kind(m) == CppTokenKind::kIdentifier && DeniedAttribute(text(m)) && text(m + 1) != "::")
        hit(m, "[[" + text(m) + "]]", kLoad);
  }
}

// Preprocessor directives in the blocks of the raw text (splices joined, digraphs mapped, comments
// gone): only #define, #if, #ifdef, #ifndef, #elif, #else, #endif and #pragma unroll, conditionals
// balanced within each block; no `##` or `_Pragma`; no macro that frozen code after the block uses.
void ScanDirectives(const std::vector<CppToken>& toks, const SplitSource& split, std::vector<DenyHit>* hits) {
  const size_t nb = split.blocks.size();
  auto block_of = [&](int line) -> int {
    for (size_t i = 0; i < nb; ++i)
      if (line > split.blocks[i].start_line && line < split.blocks[i].end_line) return static_cast<int>(i);
    return -1;
  };
  std::vector<std::set<std::string>> frozen_after(nb);  // identifiers of the frozen text after each block
  for (const auto& t : toks)
    if (t.kind == CppTokenKind::kIdentifier && block_of(t.line) < 0)
      for (size_t i = 0; i < nb; ++i)
        if (t.line >= split.blocks[i].end_line) frozen_after[i].insert(t.text);
  std::vector<int> depth(nb, 0), open_line(nb, 0);
  for (size_t k = 0; k < toks.size(); ++k) {
    const CppToken& t = toks[k];
    int blk = block_of(t.line);
    if (blk < 0) continue;
    if (t.text == "##") hits->push_back({t.line, "##", kPreproc});
    if (t.kind == CppTokenKind::kIdentifier && (t.text == "_Pragma" || t.text == "__pragma"))
      hits->push_back({t.line, t.text, kPreproc});
    if (!(t.first_on_line && t.text == "#")) continue;
    auto word = [&](size_t m) { return m < toks.size() && !toks[m].first_on_line ? toks[m].text : std::string(); };
    const std::string name = word(k + 1), arg = name.empty() ? "" : word(k + 2);
    if (name.empty()) continue;  // the null directive
    if (name == "if" || name == "ifdef" || name == "ifndef") {
      if (depth[blk]++ == 0) open_line[blk] = t.line;
    } else if ((name == "endif" || name == "elif" || name == "else") && depth[blk] == 0) {
      hits->push_back({t.line, "#" + name, "a conditional that spans frozen code"});
    } else if (name == "endif") {
      --depth[blk];
    }
    if (name == "define" && frozen_after[blk].count(arg))
      hits->push_back({t.line, "#define " + arg, "a macro that changes frozen code"});
    bool allowed = name == "define" || name == "if" || name == "ifdef" || name == "ifndef" || name == "elif" ||
                   name == "else" || name == "endif" || (name == "pragma" && arg == "unroll");
    if (!allowed) hits->push_back({t.line, "#" + name + (name == "pragma" ? " " + arg : ""), kPreproc});
  }
  for (size_t i = 0; i < nb; ++i)
    if (depth[i] > 0) hits->push_back({open_line[i], "#if", "a conditional that spans frozen code"});
  // Each block must end where it started: outside comments and literals, with no line splice
  // running into the END marker (else the frozen text after it is swallowed).
  for (const auto& b : split.blocks) {
    for (const auto& t : LexCpp(b.body))
      if (t.kind == CppTokenKind::kOther && (t.text == "/*" || t.text.find_first_of("\"'") != std::string::npos))
        hits->push_back({b.start_line + t.line, t.text.substr(0, 8), "a comment or literal that spans frozen code"});
    size_t end = b.body.find_last_not_of(" \t\r\n");
    if (end != std::string::npos && b.body[end] == '\\') {
      int line = b.start_line + 1 + static_cast<int>(std::count(b.body.begin(), b.body.begin() + end, '\n'));
      hits->push_back({line, "\\", "a line splice into frozen code"});
    }
  }
}

// The blocks' tokens of the raw text.
std::vector<BlockToken> RawBlockTokens(const std::vector<CppToken>& toks, const SplitSource& split) {
  std::vector<BlockToken> out;
  for (const auto& t : toks)
    for (const auto& b : split.blocks)
      if (t.line > b.start_line && t.line < b.end_line) out.push_back({&t, t.line});
  return out;
}

Status HitsToStatus(const std::vector<DenyHit>& hits, const std::string& path) {
  if (hits.empty()) return Status::Ok();
  const DenyHit& h = hits.front();
  std::string msg = "uses '" + h.token + "' (" + h.category + "), which candidates may not use inside EVOLVE blocks";
  if (hits.size() > 1) msg += " (" + std::to_string(hits.size() - 1) + " more)";
  return Status::AtLine(path, h.line, msg);
}

// Runs a preprocessor command; its standard output, or why there is none.
Result<std::string> RunPreprocessor(const std::vector<std::string>& argv, double timeout_s) {
  std::string tmpl = (std::filesystem::temp_directory_path() / "cuco-pp-XXXXXX").string();
  int fd = mkstemp(tmpl.data());
  if (fd < 0) return Status::IOError("cannot create a temporary file for the preprocessor's output");
  close(fd);
  ProcessSpec spec;
  spec.argv = argv;
  spec.stdout_path = tmpl;
  ProcessOutcome o = RunProcess(spec, timeout_s);
  auto text = ReadFile(tmpl);
  std::error_code ec;
  std::filesystem::remove(tmpl, ec);
  if (!o.ok()) return Status::Unavailable("the preprocessor " + o.Describe());
  return text;
}

// For nvcc: the host pass of the same command. `nvcc -E` preprocesses for the device only (with
// __CUDA_ARCH__ and its kin defined); the host compiler sees the file without them.
std::vector<std::string> NvccHostPass(const std::vector<std::string>& argv, double timeout_s) {
  std::vector<std::string> dry = argv;
  dry.push_back("--dryrun");
  CapturedRun r = RunCapture(dry, timeout_s);
  std::string undef;
  std::vector<std::string> words;
  for (size_t b = 0, e; b < r.output.size(); b = e + 1) {
    e = r.output.find_first_of(" \t\n\"", b);
    if (e == std::string::npos) e = r.output.size();
    words.push_back(r.output.substr(b, e - b));
  }
  for (const std::string& word : words) {
    if (word.rfind("-D", 0) != 0) continue;
    std::string name = word.substr(2, word.find('=') == std::string::npos ? std::string::npos : word.find('=') - 2);
    bool device_only = (name.rfind("__CUDA_ARCH", 0) == 0 && name != "__CUDA_ARCH_LIST__") ||
                       name == "CUDA_DOUBLE_MATH_FUNCTIONS";
    if (device_only && undef.find("-U" + name + ",") == std::string::npos) undef += "-U" + name + ",";
  }
  std::vector<std::string> host = argv;
  if (undef.empty()) undef = "-U__CUDA_ARCH__,";
  host.push_back("-Xcompiler=" + undef.substr(0, undef.size() - 1));
  return host;
}

// The file named by the first linemarker of `cc -E` output: the main source file.
std::string MainFile(const std::string& pp) {
  auto toks = LexCpp(pp.substr(0, pp.find('\n')));
  for (const auto& t : toks)
    if (t.kind == CppTokenKind::kString) return StringLiteralValue(t);
  return "";
}

void SortAndDedupe(std::vector<DenyHit>* hits) {
  std::stable_sort(hits->begin(), hits->end(), [](const DenyHit& a, const DenyHit& b) {
    return std::tie(a.line, a.token) < std::tie(b.line, b.token);
  });
  hits->erase(std::unique(hits->begin(), hits->end(),
                          [](const DenyHit& a, const DenyHit& b) { return a.line == b.line && a.token == b.token; }),
              hits->end());
}

}  // namespace

const std::vector<DenyEntry>& DeniedIdentifiers() {
  static const std::vector<DenyEntry> v = BuildIdentifiers();
  return v;
}

bool ReachesPastTheProcess(const std::string& identifier) {
  for (const DenyEntry& e : DeniedIdentifiers())
    if (e.token == identifier && (e.category == kFiles || e.category == kEnv || e.category == kProcess)) return true;
  return false;
}

const std::vector<DenyEntry>& DeniedSubstrings() {
  static const std::vector<DenyEntry> v = BuildSubstrings();
  return v;
}

Result<std::vector<DenyHit>> ScanEvolveBlocks(const std::string& candidate, const std::string& path) {
  auto split = SplitEvolveBlocks(candidate, path);
  if (!split.ok()) return split.status();
  std::vector<CppToken> toks = LexCpp(candidate);
  std::vector<DenyHit> hits;
  ScanDirectives(toks, *split, &hits);
  ScanTokens(RawBlockTokens(toks, *split), /*pragmas=*/false, &hits);
  SortAndDedupe(&hits);
  return hits;
}

Status CheckDenyList(const std::string& candidate, const std::string& path) {
  auto hits = ScanEvolveBlocks(candidate, path);
  if (!hits.ok()) return hits.status();
  return HitsToStatus(*hits, path);
}

Result<std::vector<DenyHit>> ScanEvolveBlocksPreprocessed(const std::string& candidate_text,
                                                          const std::string& candidate_path,
                                                          const std::vector<std::string>& preprocess_argv,
                                                          double timeout_s) {
  auto split = SplitEvolveBlocks(candidate_text, candidate_path);
  if (!split.ok()) return split.status();
  std::vector<CppToken> raw = LexCpp(candidate_text);
  std::vector<DenyHit> hits;
  ScanDirectives(raw, *split, &hits);
  // nvcc: the device pass runs while the host pass's command is worked out and run.
  auto run = [timeout_s](const std::vector<std::string>& argv) {
    return argv.empty() ? Result<std::string>(Status::Unavailable("no preprocessor command"))
                        : RunPreprocessor(argv, timeout_s);
  };
  auto device = std::async(std::launch::async, run, preprocess_argv);
  std::vector<Result<std::string>> outputs;
  if (!preprocess_argv.empty() && std::filesystem::path(preprocess_argv[0]).filename() == "nvcc")
    outputs.push_back(run(NvccHostPass(preprocess_argv, timeout_s)));
  outputs.push_back(device.get());
  for (const auto& pp : outputs) {
    if (!pp.ok()) {
      // No compiler, or a file it cannot preprocess (its compile fails the same way): the raw scan.
      ScanTokens(RawBlockTokens(raw, *split), /*pragmas=*/false, &hits);
      break;
    }
    const std::string main_file = MainFile(*pp);
    std::vector<MappedToken> mapped = LexPreprocessed(*pp);
    std::vector<BlockToken> toks;
    for (const auto& m : mapped) {
      if (m.file != main_file) continue;
      for (const auto& b : split->blocks)
        if (m.file_line > b.start_line && m.file_line < b.end_line) toks.push_back({&m.token, m.file_line});
    }
    ScanTokens(toks, /*pragmas=*/true, &hits);
  }
  SortAndDedupe(&hits);
  return hits;
}

Status CheckDenyListPreprocessed(const std::string& candidate_text, const std::string& candidate_path,
                                 const std::vector<std::string>& preprocess_argv, double timeout_s) {
  auto hits = ScanEvolveBlocksPreprocessed(candidate_text, candidate_path, preprocess_argv, timeout_s);
  if (!hits.ok()) return hits.status();
  return HitsToStatus(*hits, candidate_path);
}

}  // namespace cuco
