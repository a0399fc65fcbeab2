#include "workload/deny_list.h"

#include <algorithm>
#include <cctype>
#include <map>

#include "workload/evolve_blocks.h"

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
                    "cuFileRead", "cuFileWrite"}));
  add(Make(kEnv, {"getenv", "secure_getenv", "setenv", "unsetenv", "putenv", "clearenv", "environ", "__environ"}));
  add(Make(kProcess, {"exit", "_exit", "_Exit", "quick_exit", "abort", "terminate", "atexit", "at_quick_exit", "fork",
                      "vfork", "execv", "execve", "execvp", "execl", "execlp", "execle", "system", "popen", "kill",
                      "raise", "signal", "sigaction", "ptrace", "dlopen", "dlsym", "dlmopen", "syscall", "setjmp",
                      "longjmp", "pthread_create", "thread", "jthread", "async", "main", "constructor", "destructor",
                      "cudaGetDriverEntryPoint", "cudaGetDriverEntryPointByVersion", "cuGetProcAddress"}));
  add(Make(kTiming, {"cudaEventCreate", "cudaEventCreateWithFlags", "cudaEventRecord", "cudaEventRecordWithFlags",
                     "cudaEventElapsedTime", "cudaEventElapsedTime_v2", "cudaEventSynchronize", "cudaEventQuery",
                     "cudaEventDestroy", "cuEventCreate", "cuEventRecord", "cuEventRecordWithFlags",
                     "cuEventElapsedTime", "cuEventSynchronize", "cuEventQuery", "cuEventDestroy", "clock",
                     "clock64", "clock_gettime", "gettimeofday", "time", "chrono", "__rdtsc", "rdtsc",
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
  auto pre = Make(kPreproc, {"##", "#include", "#undef", "push_macro", "pop_macro", "#line"});
  v.insert(v.end(), pre.begin(), pre.end());
  return v;
}

// Ordinary words that are only an API when called (signal(...), std::thread):
// a variable named `signal` or `time` is fine.
bool CallOnly(const std::string& ident) {
  static const char* kWords[] = {"open", "remove", "rename", "pipe", "dup", "connect", "truncate", "exit", "abort",
                                 "terminate", "system", "kill", "raise", "signal", "thread", "jthread", "async",
                                 "main", "time", "clock", "mkdir", "socket", "creat"};
  for (const char* w : kWords)
    if (ident == w) return true;
  return false;
}

bool IsIdentStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool IsIdentChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Replaces comments with spaces (keeping newlines) and records which bytes are
// inside string or character literals.
void StripComments(const std::string& in, std::string* code, std::vector<bool>* in_literal) {
  code->assign(in);
  in_literal->assign(in.size(), false);
  enum { kCode, kLine, kBlock, kString, kChar } st = kCode;
  for (size_t i = 0; i < in.size(); ++i) {
    char c = in[i], n = i + 1 < in.size() ? in[i + 1] : '\0';
    switch (st) {
      case kCode:
        if (c == '/' && n == '/') { st = kLine; (*code)[i] = ' '; }
        else if (c == '/' && n == '*') { st = kBlock; (*code)[i] = ' '; (*code)[i + 1] = ' '; ++i; }
        else if (c == '"') st = kString;
        else if (c == '\'' && !(i > 0 && std::isxdigit(static_cast<unsigned char>(in[i - 1])))) st = kChar;
        break;
      case kLine:
        if (c == '\n') st = kCode; else (*code)[i] = ' ';
        break;
      case kBlock:
        if (c == '*' && n == '/') { (*code)[i] = ' '; (*code)[i + 1] = ' '; ++i; st = kCode; }
        else if (c != '\n') (*code)[i] = ' ';
        break;
      case kString:
      case kChar:
        (*in_literal)[i] = true;
        if (c == '\\') { if (i + 1 < in.size()) (*in_literal)[i + 1] = true; ++i; }
        else if ((st == kString && c == '"') || (st == kChar && c == '\'')) { (*in_literal)[i] = false; st = kCode; }
        break;
    }
  }
}

void ScanBody(const std::string& body, int first_line, std::vector<DenyHit>* hits) {
  static const std::map<std::string, std::string> kIdents = [] {
    std::map<std::string, std::string> m;
    for (const auto& e : DeniedIdentifiers()) m[e.token] = e.category;
    return m;
  }();
  std::string code;
  std::vector<bool> lit;
  StripComments(body, &code, &lit);
  auto line_of = [&](size_t pos) {
    int line = first_line;
    for (size_t k = 0; k < pos; ++k) line += (body[k] == '\n');
    return line;
  };
  for (const auto& e : DeniedSubstrings()) {
    for (size_t pos = code.find(e.token); pos != std::string::npos; pos = code.find(e.token, pos + 1))
      hits->push_back({line_of(pos), e.token, e.category});
  }
  for (size_t i = 0; i < code.size();) {
    if (lit[i] || !IsIdentStart(code[i]) || (i > 0 && IsIdentChar(code[i - 1]))) { ++i; continue; }
    size_t j = i;
    while (j < code.size() && IsIdentChar(code[j])) ++j;
    std::string ident = code.substr(i, j - i);
    auto it = kIdents.find(ident);
    if (it != kIdents.end()) {
      // Skip member accesses (x.time, p->open): they name fields, not the API.
      size_t k = i;
      while (k > 0 && (code[k - 1] == ' ' || code[k - 1] == '\t')) --k;
      bool member = (k >= 1 && code[k - 1] == '.') || (k >= 2 && code[k - 2] == '-' && code[k - 1] == '>');
      bool qualified = k >= 2 && code[k - 2] == ':' && code[k - 1] == ':';
      size_t n = j;
      while (n < code.size() && (code[n] == ' ' || code[n] == '\t' || code[n] == '\n')) ++n;
      bool called = n < code.size() && code[n] == '(';
      bool denied = !member && (!CallOnly(ident) || called || qualified);
      if (denied) hits->push_back({line_of(i), ident, it->second});
    }
    i = j;
  }
}

}  // namespace

const std::vector<DenyEntry>& DeniedIdentifiers() {
  static const std::vector<DenyEntry> v = BuildIdentifiers();
  return v;
}

const std::vector<DenyEntry>& DeniedSubstrings() {
  static const std::vector<DenyEntry> v = BuildSubstrings();
  return v;
}

Result<std::vector<DenyHit>> ScanEvolveBlocks(const std::string& candidate, const std::string& path) {
  auto split = SplitEvolveBlocks(candidate, path);
  if (!split.ok()) return split.status();
  std::vector<DenyHit> hits;
  for (const auto& b : split->blocks) ScanBody(b.body, b.start_line + 1, &hits);
  std::stable_sort(hits.begin(), hits.end(), [](const DenyHit& a, const DenyHit& b) { return a.line < b.line; });
  return hits;
}

Status CheckDenyList(const std::string& candidate, const std::string& path) {
  auto hits = ScanEvolveBlocks(candidate, path);
  if (!hits.ok()) return hits.status();
  if (hits->empty()) return Status::Ok();
  const DenyHit& h = hits->front();
  std::string msg = "uses '" + h.token + "' (" + h.category + "), which candidates may not use inside EVOLVE blocks";
  if (hits->size() > 1) msg += " (" + std::to_string(hits->size() - 1) + " more)";
  return Status::AtLine(path, h.line, msg);
}

std::string MaskCommentsAndLiterals(const std::string& text) {
  std::string code;
  std::vector<bool> in_literal;
  StripComments(text, &code, &in_literal);
  for (size_t i = 0; i < code.size(); ++i)
    if (in_literal[i] && code[i] != '\n') code[i] = ' ';
  return code;
}

}  // namespace cuco
