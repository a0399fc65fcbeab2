#include "scaffold/constants.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <iterator>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <utility>

#include "util/int_expr.h"
#include "scaffold/program_text.h"

namespace cuco::scaffold_internal {
namespace {

// Where a constant may start: a #define, the type of a const declaration, an option's default.
enum HitKind {
  kDefine,          // #define N 4096
  kConstDecl,       // const int M = ..., K = ...;
  kOptionDefault,   // get_arg(argc, argv, "--m", 4096)
  kOptionCompared,  // if (strcmp(argv[i], "--m") == 0) M = atoi(argv[++i]);   (default: M's last `= value` before it)
  kArgvTernary,     // M = argc > 1 ? atoi(argv[1]) : 4096
  kArgvIf,          // if (argc > 1) M = atoi(argv[1]);   (default: M's last `= value` before it)
  kArgvTemporary,   // long t = strtol(argv[1], &e, 10); ... M = (int)t;   (M's default as kArgvIf's)
  kEnvTernary,      // S = getenv("SEQ") ? atoi(getenv("SEQ")) : 2048
  kEnvHelper,       // env_int("SEQ", 2048)
  kEnvVariable,     // const char* s = getenv("SEQ");   (default: a later `S = s ? ... : 2048`)
};

struct Hit {
  size_t offset;
  HitKind kind;
  std::smatch m;
};

// A call that reads a number from a string: atoi(, std::stoi(, static_cast<int>(strtol(, ...
const std::string& NumberFrom() {
  static const std::string pattern = R"((?:static_cast\s*<[\w:\s]+>\s*\(\s*)?(?:\(\s*[\w:]+\s*\)\s*)?(?:std\s*::\s*)?(?:)" +
                                     IntegerParserAlternation() + R"()\s*\(\s*)";
  return pattern;
}
// The variable or member assigned: M, cfg.M, cfg->M (group 1).
constexpr const char* kAssigned = R"(([A-Za-z_]\w*(?:(?:\.|->)[A-Za-z_]\w*)*)\s*=\s*)";

std::vector<Hit> ConstantHits(const std::string& code) {
  std::vector<Hit> hits;
  static const std::regex define_re(R"((^|\n)[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)[ \t]+([^\n]+))");
  static const std::regex const_re(
      R"(\b(?:static\s+|inline\s+)*(?:constexpr|const)\s+(?:static\s+)?(?:(?:unsigned|signed)\s+)?(?:long\s+long|long|int|short|unsigned|auto|(?:std::)?size_t|(?:std::)?u?int(?:8|16|32|64)_t)(?:\s+int)?\s+(?=[A-Za-z_]))");
  static const std::regex option_re(R"xx("(-{1,2}[A-Za-z][\w-]*)"\s*,\s*([^,()";]+?)\s*\))xx");
  // An option loop comparing the argument with the option's name, then parsing the next one into a
  // variable: `strcmp(argv[i], "--m") == 0) M = atoi(argv[++i])`, `arg == "--tp") tp = std::stoi(next(...))`.
  static const std::regex option_compared_re(
      std::string(R"xx((?:\b(?:std\s*::\s*)?strn?cmp\s*\(\s*argv\s*\[\s*\w+\s*\]\s*,\s*|\b[A-Za-z_]\w*\s*==\s*)")xx") +
      R"xx((-{1,2}[A-Za-z][\w-]*)"[^;{}"]*?\)\s*\{?\s*)xx" + kAssigned + NumberFrom());
  static const std::regex argv_ternary_re(std::string(kAssigned) + R"(\(?\s*argc\s*>=?\s*\d+\s*\)?\s*\?\s*)" + NumberFrom() +
                                          R"(argv\s*\[\s*(\d+)\s*\](?:::|[^:;])*:(?!:)\s*([^;,)}]+))");
  static const std::regex argv_if_re(std::string(R"(\bif\s*\(\s*argc\s*>=?\s*\d+\s*\)\s*\{?\s*)") + kAssigned + NumberFrom() +
                                     R"(argv\s*\[\s*(\d+)\s*\])");
  static const std::regex argv_temporary_re(std::string(kAssigned) + NumberFrom() + R"(argv\s*\[\s*(\d+)\s*\])");
  static const std::regex env_ternary_re(
      std::string(kAssigned) + R"xx(\(?\s*(?:std\s*::\s*)?getenv\s*\(\s*"([A-Za-z_]\w*)"\s*\)\s*(?:!=\s*(?:nullptr|NULL|0)\s*)?\)?\s*\?(?:::|[^:;])*:(?!:)\s*([^;,)}]+))xx");
  static const std::regex env_helper_re(
      R"xx(\b[A-Za-z_]*(?:env|Env|ENV)\w*\s*(?:<\s*[\w:]+\s*>\s*)?\(\s*"([A-Za-z_]\w*)"\s*,\s*([^,()";]+?)\s*\))xx");
  static const std::regex env_variable_re(
      R"xx(\bchar\s*(?:const\s*)?\*\s*([A-Za-z_]\w*)\s*=\s*(?:std\s*::\s*)?getenv\s*\(\s*"([A-Za-z_]\w*)"\s*\))xx");
  for (auto [re, kind] : {std::pair{&define_re, kDefine}, std::pair{&const_re, kConstDecl}, std::pair{&option_re, kOptionDefault},
                          std::pair{&option_compared_re, kOptionCompared},
                          std::pair{&argv_ternary_re, kArgvTernary}, std::pair{&argv_if_re, kArgvIf},
                          std::pair{&argv_temporary_re, kArgvTemporary},
                          std::pair{&env_ternary_re, kEnvTernary}, std::pair{&env_helper_re, kEnvHelper},
                          std::pair{&env_variable_re, kEnvVariable}})
    for (auto it = std::sregex_iterator(code.begin(), code.end(), *re); it != std::sregex_iterator(); ++it)
      hits.push_back({static_cast<size_t>(it->position(0)), kind, *it});
  std::sort(hits.begin(), hits.end(), [](const Hit& a, const Hit& b) { return a.offset < b.offset; });
  return hits;
}

// The declarators of a const declaration whose type ends at `from`, up to the ';' at depth 0,
// each with its offset. nullopt when it is no declaration: a ')' closing an outer list means a
// parameter; a '{' after a declarator that is neither `name` nor `name = ...` a function body.
std::optional<std::vector<std::pair<std::string, size_t>>> Declarators(const std::string& code, size_t from) {
  size_t i = from;
  int depth = 0;
  std::vector<std::pair<std::string, size_t>> decls;
  size_t start = i;
  for (; i < code.size(); ++i) {
    const char c = code[i];
    if (c == '"' || c == '\'') {
      i = SkipLiteral(code, i) - 1;
      continue;
    }
    if (c == '{' && depth == 0) {
      const std::string so_far = Trim(code.substr(start, i - start));
      const bool plain_name = std::regex_match(so_far, std::regex("[A-Za-z_]\\w*"));
      if (!plain_name && !Contains(so_far, "=")) break;
    }
    if (c == '(' || c == '[' || c == '{') {
      ++depth;
    } else if (c == ')' || c == ']' || c == '}') {
      if (--depth < 0) break;
    } else if ((c == ',' || c == ';') && depth == 0) {
      decls.push_back({code.substr(start, i - start), start});
      start = i + 1;
      if (c == ';') return decls;
    }
  }
  return std::nullopt;
}

}  // namespace

std::string LastComponent(const std::string& expr) {
  const size_t dot = expr.find_last_of(".>");
  return dot == std::string::npos ? expr : expr.substr(dot + 1);
}

namespace {

// The value of the last `name = <value>` (a declaration's or member's default) in code[0, before),
// when it is a constant expression of `known`.
std::optional<int64_t> LastAssignedBefore(const std::string& code, size_t before, const std::string& name,
                                          const std::map<std::string, int64_t>& known) {
  const std::regex re("(^|[^\\w.>])" + name + R"(\s*=\s*([^;,(){}=]+?)\s*[;,])");
  std::optional<int64_t> value;
  const auto end = code.begin() + static_cast<std::ptrdiff_t>(before);
  for (auto it = std::sregex_iterator(code.begin(), end, re); it != std::sregex_iterator(); ++it)
    if (auto v = EvalIntExpr(Trim((*it)[2].str()), known)) value = v;
  return value;
}

// What the program does to the number it reads from argv[i] before assigning it, from `after` (just
// past `argv[i]`): the parser call's other arguments and its closing parentheses skipped, then the
// rest of the assigned expression (up to `;`, or a ternary's `:`): nothing is a scale of 1, `* K` or
// `<< K` of constants the scale (the variable holds the argument times it: `size = atoi(argv[1]) *
// 1024`); anything else nullopt (the argument is not the variable's value in any one unit).
std::optional<int64_t> ArgumentScale(const std::string& code, size_t after, const std::map<std::string, int64_t>& known) {
  size_t i = after;
  int depth = 0;
  for (; i < code.size(); ++i) {  // to the parser call's `)`
    const char c = code[i];
    if (c == '(' || c == '[') ++depth;
    else if ((c == ')' || c == ']') && depth-- == 0) break;
    else if (c == ';') return std::nullopt;
  }
  while (i < code.size() && (code[i] == ')' || std::isspace(static_cast<unsigned char>(code[i])))) ++i;
  size_t end = i;
  for (depth = 0; end < code.size(); ++end) {
    const char c = code[end];
    if (c == '(' || c == '[') ++depth;
    else if (c == ')' || c == ']') { if (depth-- == 0) break; }
    else if (depth == 0 && (c == ';' || c == ',' || c == '}' || (c == ':' && code.compare(end, 2, "::") != 0 &&
                                                                  (end == 0 || code[end - 1] != ':')))) break;
  }
  const std::string tail = Trim(code.substr(i, end - i));
  if (tail.empty()) return 1;
  std::optional<int64_t> k;
  if (tail.rfind("<<", 0) == 0) {
    if (auto sh = EvalIntExpr(Trim(tail.substr(2)), known); sh && *sh >= 0 && *sh < 62) k = int64_t{1} << *sh;
  } else if (tail[0] == '*') {
    k = EvalIntExpr(Trim(tail.substr(1)), known);
  }
  if (k && *k > 0) return k;
  return std::nullopt;
}

}  // namespace

bool Passed(const FoundConstant& c) { return c.option || c.argv_index > 0 || !c.env.empty(); }

namespace {

// The call whose argument list holds byte `at` of `code` compares strings (strncmp, memcmp, ...).
bool ComparesStrings(const std::string& code, size_t at) {
  int depth = 0;
  size_t open = std::string::npos;
  for (size_t i = at; i-- > 0;) {
    if (code[i] == ')') ++depth;
    else if (code[i] == '(' && depth-- == 0) { open = i; break; }
    else if (code[i] == ';' || code[i] == '{' || code[i] == '}') break;
  }
  if (open == std::string::npos) return false;
  size_t e = open;
  while (e > 0 && std::isspace(static_cast<unsigned char>(code[e - 1]))) --e;
  size_t b = e;
  while (b > 0 && (std::isalnum(static_cast<unsigned char>(code[b - 1])) || code[b - 1] == '_')) --b;
  static const std::set<std::string> compares = {"strcmp", "strncmp", "strcasecmp", "strncasecmp", "memcmp",
                                                 "compare", "starts_with", "rfind", "find"};
  return compares.count(code.substr(b, e - b)) > 0;
}

// The first `X = t;` (a cast allowed: `X = (int) t;`, `X = static_cast<int>(t);`) from byte `from` of
// `code` to the end of the block holding it: X and the assignment's offset; nullopt when none.
std::optional<std::pair<std::string, size_t>> CopiedInto(const std::string& code, size_t from, const std::string& t) {
  int depth = 0;
  size_t end = from;
  for (; end < code.size() && depth >= 0; ++end) depth += code[end] == '{' ? 1 : code[end] == '}' ? -1 : 0;
  const std::regex copy(std::string(kAssigned) + R"((?:\(\s*[\w:\s]+\)\s*|static_cast\s*<[\w:\s]+>\s*\(\s*)?)" + t +
                        R"(\s*\)?\s*;)");
  std::smatch m;
  if (!std::regex_search(code.begin() + static_cast<std::ptrdiff_t>(from), code.begin() + static_cast<std::ptrdiff_t>(end),
                         m, copy) ||
      LastComponent(m[1].str()) == t)
    return std::nullopt;
  return std::make_pair(m[1].str(), from + static_cast<size_t>(m.position(0)));
}

}  // namespace

std::vector<FoundConstant> FindConstants(const std::string& code) {
  std::vector<FoundConstant> found;
  std::map<std::string, int64_t> known;
  auto add = [&](FoundConstant c) {
    if (!Passed(c)) known[c.name] = c.value;
    found.push_back(std::move(c));
  };
  // `v` the variable's default; `index_end` just past `argv[i`: the argument's default is v over the
  // scale the program applies (none passed where it is not a whole number of the argument's units).
  auto add_argv = [&](const std::string& assigned, const std::string& index, std::optional<int64_t> v, size_t at,
                      size_t index_end) {
    const int i = std::atoi(index.c_str());
    const size_t close = code.find(']', index_end);
    const std::optional<int64_t> scale = close == std::string::npos ? std::nullopt : ArgumentScale(code, close + 1, known);
    if (!scale || (v && *v % *scale != 0)) return;
    if (v) v = *v / *scale;
    if (v && i > 0 && i < 64)
      add({LastComponent(assigned), *v, LineOf(code, at), "default of argv[" + index + "] (" + LastComponent(assigned) + ")", false, i,
           ""});
  };
  auto add_env = [&](const std::string& env, std::optional<int64_t> v, size_t at) {
    if (v) add({env, *v, LineOf(code, at), "default of $" + env, false, 0, env});
  };
  static const std::regex declarator_re(R"(^\s*([A-Za-z_]\w*)\s*(?:=\s*([\s\S]+?)|\{([\s\S]+?)\})\s*$)");
  for (const Hit& h : ConstantHits(code)) {
    switch (h.kind) {
      case kDefine: {
        const std::string name = h.m[2].str();
        auto v = EvalIntExpr(Trim(h.m[3].str()), known);
        if (v) add({name, *v, LineOf(code, h.offset + h.m[1].length()), "#define", false, 0, ""});
        break;
      }
      case kOptionDefault: {
        std::string opt = h.m[1].str();
        if (ComparesStrings(code, h.offset)) break;  // `strncmp(argv[i], "--help", 6)`: a length, no default
        auto v = EvalIntExpr(h.m[2].str(), known);
        if (v) add({opt, *v, LineOf(code, h.offset), "default of " + opt, true, 0, ""});
        break;
      }
      case kOptionCompared: {
        const std::string opt = h.m[1].str();
        bool seen = false;
        for (const FoundConstant& c : found) seen = seen || (c.option && c.name == opt);
        const std::optional<int64_t> v = LastAssignedBefore(code, h.offset, LastComponent(h.m[2].str()), known);
        if (!seen && v) add({opt, *v, LineOf(code, h.offset), "default of " + opt, true, 0, "", LastComponent(h.m[2].str())});
        break;
      }
      case kArgvTernary:
        add_argv(h.m[1].str(), h.m[2].str(), EvalIntExpr(Trim(h.m[3].str()), known), h.offset,
                 static_cast<size_t>(h.m.position(2) + h.m.length(2)));
        break;
      case kArgvIf:
        add_argv(h.m[1].str(), h.m[2].str(), LastAssignedBefore(code, h.offset, LastComponent(h.m[1].str()), known),
                 static_cast<size_t>(h.m.position(1)), static_cast<size_t>(h.m.position(2) + h.m.length(2)));
        break;
      case kArgvTemporary: {  // the variable the parsed number is then copied into, in the same block
        const size_t after = h.offset + static_cast<size_t>(h.m.length(0));
        const std::optional<std::pair<std::string, size_t>> copy = CopiedInto(code, after, LastComponent(h.m[1].str()));
        const int index = std::atoi(h.m[2].str().c_str());
        const bool read = std::any_of(found.begin(), found.end(), [&](const FoundConstant& c) { return c.argv_index == index; });
        if (copy && !read)
          add_argv(copy->first, h.m[2].str(), LastAssignedBefore(code, h.offset, LastComponent(copy->first), known),
                   copy->second, static_cast<size_t>(h.m.position(2) + h.m.length(2)));
        break;
      }
      case kEnvTernary: add_env(h.m[2].str(), EvalIntExpr(Trim(h.m[3].str()), known), h.offset); break;
      case kEnvHelper: add_env(h.m[1].str(), EvalIntExpr(Trim(h.m[2].str()), known), h.offset); break;
      case kEnvVariable: {  // the first `X = var ? ... : default` after it
        const std::string var = h.m[1].str();
        const std::regex use(std::string(kAssigned) + R"(\(?\s*)" + var +
                             R"(\s*(?:!=\s*(?:nullptr|NULL|0)\s*)?\)?\s*\?(?:::|[^:;])*:(?!:)\s*([^;,)}]+))");
        std::smatch um;
        const auto from = code.begin() + static_cast<std::ptrdiff_t>(h.offset + h.m.length(0));
        if (std::regex_search(from, code.end(), um, use))
          add_env(h.m[2].str(), EvalIntExpr(Trim(um[2].str()), known), h.offset);
        break;
      }
      case kConstDecl: {
        auto decls = Declarators(code, h.offset + h.m[0].length());
        if (!decls) break;
        for (const auto& [text, at] : *decls) {
          std::smatch dm;
          if (!std::regex_match(text, dm, declarator_re)) continue;
          const std::string expr = dm[2].matched ? dm[2].str() : dm[3].str();
          auto v = EvalIntExpr(Trim(expr), known);
          if (v) add({dm[1].str(), *v, LineOf(code, at + dm.position(1)), "const", false, 0, ""});
        }
        break;
      }
    }
  }
  return found;
}

std::string SizeName(const FoundConstant& c) {
  std::string n = c.name;
  if (c.option) {
    n.erase(0, n.find_first_not_of('-'));
    if (n.size() == 1) n = std::string(1, static_cast<char>(std::toupper(static_cast<unsigned char>(n[0]))));
  }
  for (char& ch : n)
    if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '_') ch = '_';
  if (n.empty() || std::isdigit(static_cast<unsigned char>(n[0]))) n = "s_" + n;
  return n.substr(0, 40);
}

bool IsWorldName(const std::string& name, const std::set<std::string>& world_vars) {
  std::string l = Lower(name);
  std::replace(l.begin(), l.end(), '-', '_');  // an option's name: `--num-gpus`
  // A tensor-parallel degree (`--tp`, `tp_size`): the rank count of a program that is tensor-parallel only.
  const std::string bare = l.substr(std::min(l.find_first_not_of('_'), l.size()));
  if (bare == "tp" || bare == "tp_size" || bare == "tp_degree" || bare == "tp_world_size" || bare == "tensor_parallel_size")
    return true;
  if (world_vars.count(name)) return true;
  // A bound on the count (`kMinNranks` a check of the GPUs given compares with, `MAX_GPUS`), not it.
  std::string word;
  for (size_t i = 0; i <= name.size(); ++i) {
    const bool boundary = i == name.size() || name[i] == '_' || name[i] == '-' ||
                          (i > 0 && std::isupper(static_cast<unsigned char>(name[i])) &&
                           std::islower(static_cast<unsigned char>(name[i - 1])));
    if (boundary) {
      if (word == "min" || word == "max" || word == "minimum" || word == "maximum") return false;
      word.clear();
    }
    if (i < name.size() && name[i] != '_' && name[i] != '-') word += static_cast<char>(std::tolower(static_cast<unsigned char>(name[i])));
  }
  // A rank of the world (`worldRank`, `world_rank`), never a count of ranks (`nranks`, `world_ranks`).
  if (Contains(l, "rank") && !Contains(l, "ranks")) return false;
  for (const char* w : {"world", "nranks", "n_ranks", "num_ranks", "numranks", "nprocs", "n_procs", "num_procs",
                        "ngpu", "n_gpu", "num_gpu", "numgpu", "gpu_count", "gpucount", "ndev", "num_devices",
                        "comm_size"})
    if (Contains(l, w)) return true;
  return false;
}

bool NamesTheWorld(const FoundConstant& c, const std::set<std::string>& world_vars) {
  return IsWorldName(c.name, world_vars) || (!c.variable.empty() && IsWorldName(c.variable, world_vars));
}

ConstRole ClassifyConstant(const FoundConstant& c, const std::set<std::string>& world_vars) {
  const std::string l = Lower(SizeName(c));
  if (NamesTheWorld(c, world_vars)) return ConstRole::kWorld;
  if (Contains(l, "warm")) return ConstRole::kWarmup;
  if (Contains(l, "iter") || l == "reps" || l == "nreps" || l == "repeat" || l == "repeats" || l == "trials" ||
      l == "runs" || l == "nruns" || l == "steps" || l == "nsteps" || l == "num_steps")
    return ConstRole::kIters;
  if (Contains(l, "seed") || Contains(l, "verbose") || Contains(l, "debug") || Contains(l, "rank") ||
      Contains(l, "device") || Contains(l, "gpu") || Contains(l, "root") || Contains(l, "port"))
    return ConstRole::kIgnored;
  for (const char* p : {"OMPI_", "MPICH_", "MPI_", "CUDA", "NCCL", "CUBLAS", "_"})
    if (c.name.rfind(p, 0) == 0) return ConstRole::kIgnored;
  if (c.value < 2) return ConstRole::kIgnored;
  for (const char* t : {"workspace", "thread", "block", "warp", "tile", "cta", "chunk", "stage", "unroll", "align",
                        "priority", "mib", "kib"})
    if (Contains(l, t)) return ConstRole::kTuning;
  return ConstRole::kSize;
}

namespace {
constexpr const char* kIntegerParsers[] = {"atoi", "atol",  "atoll", "stoi",    "stol",     "stoll",
                                           "stoul", "stoull", "strtol", "strtoll", "strtoul", "strtoull"};
}  // namespace

bool IsIntegerParser(const std::string& name) {
  return std::find(std::begin(kIntegerParsers), std::end(kIntegerParsers), name) != std::end(kIntegerParsers);
}

const std::string& IntegerParserAlternation() {
  static const std::string alternation = [] {
    std::string out;
    for (const char* name : kIntegerParsers) out += (out.empty() ? "" : "|") + std::string(name);
    return out;
  }();
  return alternation;
}

std::vector<ArgvInteger> ArgvIntegers(const std::string& code) {
  static const std::regex assigned(R"(\b([A-Za-z_]\w*)\s*=\s*[^;=]*?\b(?:std\s*::\s*)?(?:)" + IntegerParserAlternation() +
                                   R"()\s*\(\s*argv\s*\[\s*(\d+)\s*\][^;]*;)");
  std::vector<ArgvInteger> out;
  for (auto it = std::sregex_iterator(code.begin(), code.end(), assigned); it != std::sregex_iterator(); ++it) {
    const std::string digits = (*it)[2].str();
    if (digits.size() <= 4) out.push_back({(*it)[1].str(), std::stoi(digits), static_cast<size_t>(it->position(0))});
  }
  return out;
}

}  // namespace cuco::scaffold_internal
