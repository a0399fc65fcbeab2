#include "scaffold/host_buffers.h"

#include <fmt/format.h>

#include <algorithm>
#include <regex>

#include "scaffold/loop_accesses.h"
#include "util/source_text.h"

namespace cuco::scaffold_internal {
namespace {

// The copy's host end: its destination copying to the host, else its source (cudaMemcpy2D's third
// argument, cudaMemcpy's second).
std::string HostEnd(const AnalyzedOp& op, bool to_host) {
  const size_t k = to_host ? 0 : op.api.find("2D") != std::string::npos ? 2 : 1;
  return k < op.args.size() ? op.args[k] : "";
}

// `base`, a variable of function `fn`, followed up through parameters to the loop function's
// variable a call in its loop hands on (*line: that call's); "" where the chain breaks.
std::string UpToTheLoop(const Analysis& a, std::string fn, std::string base, const std::string& loop_fn,
                        const std::string& loop_file, int loop_line, int loop_end_line, int* line) {
  static const std::regex identifier(R"(^[A-Za-z_]\w*$)");
  for (int depth = 0; depth < 8; ++depth) {
    const AnalyzedFunction* def = FindFunction(a, fn);
    const auto param = def == nullptr ? std::vector<std::string>::const_iterator{}
                                      : std::find(def->params.begin(), def->params.end(), base);
    if (def == nullptr || param == def->params.end()) return "";
    const size_t k = static_cast<size_t>(param - def->params.begin());
    // The call in the loop, else the function's one caller, followed on up.
    const AnalyzedOp* caller = nullptr;
    const AnalyzedOp* in_loop = nullptr;
    int callers = 0;
    for (const AnalyzedOp& op : a.ops) {
      if (op.kind != "call" || op.api != fn || op.args.size() <= k) continue;
      callers += 1, caller = &op;
      if (op.function == loop_fn && SourceFileName(op.file) == loop_file && op.line >= loop_line && op.line <= loop_end_line)
        in_loop = &op;
    }
    if (in_loop == nullptr && (callers != 1 || caller->function == loop_fn)) return "";
    if (in_loop != nullptr) caller = in_loop;
    base = BufferBase(caller->args[k]);
    if (!std::regex_match(base, identifier)) return "";
    if (in_loop != nullptr) {
      *line = caller->line;
      return base;
    }
    fn = caller->function;
  }
  return "";
}

// Whether `text` declares `name` a std::vector: one of the declarators of `std::vector<T> a(n), b;`.
bool DeclaredVector(const std::string& name, const std::string& text) {
  static const std::regex vector(R"(\b(?:std::)?vector\s*<)");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), vector); it != std::sregex_iterator(); ++it) {
    size_t p = static_cast<size_t>(it->position() + it->length());
    for (int angle = 1; p < text.size() && angle > 0; ++p) angle += text[p] == '<' ? 1 : text[p] == '>' ? -1 : 0;
    int depth = 0;
    bool start = true;  // at a declarator's start
    for (; p < text.size() && !(depth == 0 && (text[p] == ';' || (text[p] == '{' && start))); ++p) {
      const char ch = text[p];
      if (start && IsCIdentStart(ch)) {
        if (IdentifierAt(text, p) == name) return true;
        start = false;
      }
      if (ch == '(' || ch == '[' || ch == '{') ++depth;
      if (ch == ')' || ch == ']' || ch == '}') --depth;
      if (ch == ',' && depth == 0) start = true;
      if (depth < 0) break;
    }
  }
  return false;
}

}  // namespace

std::vector<HostCopy> HostCopiesOfIteration(const Analysis& a, const std::string& loop_fn, const std::string& loop_file,
                                            int loop_line, int loop_end_line) {
  std::vector<HostCopy> out;
  for (const AnalyzedOp& copy : a.ops) {
    const bool to_host = CopiesToHost(copy);
    if ((!to_host && !CopiesFromHost(copy)) || copy.function == loop_fn) continue;
    HostCopy c;
    c.to_host = to_host;
    c.copy = &copy;
    c.name = UpToTheLoop(a, copy.function, BufferBase(HostEnd(copy, to_host)), loop_fn, loop_file, loop_line,
                         loop_end_line, &c.line);
    if (!c.name.empty()) out.push_back(c);
  }
  return out;
}

bool HostMemoryOf(const std::string& name, const std::string& before_loop) {
  static const std::regex identifier(R"(^[A-Za-z_]\w*$)");
  if (!std::regex_match(name, identifier)) return false;
  if (DeclaredVector(name, before_loop)) return true;
  const std::regex made("\\b" + name +
                        R"(\s*=\s*(?:\([^()]*\)\s*|(?:static|reinterpret)_cast\s*<[^;]*?>\s*\(\s*)?)"
                        R"((?:new\b|(?:std::)?(?:malloc|calloc|aligned_alloc|realloc)\s*\())");
  // Pinned host memory: `cudaMallocHost(&name, bytes)`, `cudaHostAlloc((void**)&name, ...)`.
  const std::regex pinned(R"(\bcuda(?:MallocHost|HostAlloc)\s*\(\s*(?:\([^()]*\)\s*|reinterpret_cast\s*<[^;]*?>\s*\(\s*)?&\s*)" +
                          name + "\\b");
  return std::regex_search(before_loop, made) || std::regex_search(before_loop, pinned);
}

std::string HostBindArguments(const std::string& name, const std::string& before_loop) {
  static const std::regex identifier(R"(^[A-Za-z_]\w*$)");
  if (!std::regex_match(name, identifier)) return "";
  std::smatch m;
  if (DeclaredVector(name, before_loop)) return name;
  // `name = new T[n]`, `name = (T*)malloc(bytes)`, `name = (T*)calloc(n, size)`: the last one before the loop.
  const std::regex made("\\b" + name +
                        R"(\s*=\s*(?:\([^()]*\)\s*)?(?:new\s+[\w:<>\s]+\[([^\];]+)\]|(?:std::)?malloc\s*\(([^;]+)\)\s*;|(?:std::)?calloc\s*\(([^,;]+),([^;]+)\)\s*;))");
  std::string count;
  for (auto it = std::sregex_iterator(before_loop.begin(), before_loop.end(), made); it != std::sregex_iterator(); ++it) {
    const std::smatch& x = *it;
    count = x[1].matched   ? x[1].str()
            : x[2].matched ? "(" + x[2].str() + ") / sizeof(*" + name + ")"
                           : "(" + x[3].str() + ") * (" + x[4].str() + ") / sizeof(*" + name + ")";
  }
  if (!count.empty()) return name + ", " + count;
  if (std::regex_search(before_loop, m, std::regex(R"(\b[A-Za-z_][\w:]*\s+)" + name + R"(\s*\[[^\]]+\]\s*[;=])")))
    return name + ", sizeof(" + name + ") / sizeof(" + name + "[0])";
  return "";
}

std::vector<HostBind> HostBinds(const Analysis& a, const std::string& loop_fn, const std::string& loop_file,
                                int loop_line, int loop_end_line, const std::string& before_loop) {
  std::vector<HostBind> binds;
  std::vector<std::string> arguments;
  bool any_output = false;
  for (const HostCopy& c : HostCopiesOfIteration(a, loop_fn, loop_file, loop_line, loop_end_line)) {
    const std::string args = HostBindArguments(c.name, before_loop);
    if (args.empty()) continue;
    auto b = std::find_if(binds.begin(), binds.end(), [&](const HostBind& x) { return x.name == c.name; });
    if (b == binds.end()) {
      binds.push_back({"", c.name, false, false, ""});
      arguments.push_back(args);
      b = binds.end() - 1;
    }
    (c.to_host ? b->out : b->in) = true;
    any_output = any_output || c.to_host;
    b->guess += fmt::format("{}{} in {} ({}:{}) copies {} it", b->guess.empty() ? "" : "; ", c.copy->api,
                            c.copy->function, SourceFileName(c.copy->file), c.copy->line, c.to_host ? "into" : "from");
  }
  if (!any_output) return {};
  for (size_t i = 0; i < binds.size(); ++i) {
    HostBind& b = binds[i];
    const char* how = b.in && b.out ? "inout" : b.in ? "input" : "output";
    b.statement = fmt::format("cuco_bind.host_{}(\"{}\", {});", how, b.name, arguments[i]);
    b.guess = fmt::format("`{}`: host memory {} hands the iteration's helpers ({}): the iteration's {}, bound by copy "
                          "(host_{}): the harness's buffer is copied {}",
                          b.name, loop_fn, b.guess, b.out ? (b.in ? "input and result" : "result") : "input", how,
                          b.in && b.out ? "into it before each iteration and out of it after"
                          : b.in        ? "into it before each iteration"
                                        : "out of it after each iteration");
  }
  return binds;
}

}  // namespace cuco::scaffold_internal
