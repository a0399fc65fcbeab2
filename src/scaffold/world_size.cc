#include "scaffold/world_size.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <functional>
#include <iterator>
#include <regex>

#include "scaffold/generated_text.h"
#include "scaffold/program_defaults.h"
#include "util/int_expr.h"
#include "scaffold/program_text.h"
#include "util/source_text.h"

namespace cuco::scaffold_internal {
namespace {

// A run of digits as a number, or -1 when it has more than 6 (no world size; std::stoi would throw).
int SmallNumber(const std::string& digits) { return digits.size() > 6 ? -1 : std::stoi(digits); }

// The comparison at [begin, end) of `code` stands alone: no arithmetic or operand runs into it on
// either side (`argc - 3 != nDev`, `world != 2 * k` are comparisons of something else).
bool WholeComparison(const std::string& code, size_t begin, size_t end) {
  size_t b = begin;
  while (b > 0 && (code[b - 1] == ' ' || code[b - 1] == '\t')) --b;
  if (b > 0 && std::string("+-*/%").find(code[b - 1]) != std::string::npos) return false;
  size_t e = end;
  while (e < code.size() && (code[e] == ' ' || code[e] == '\t')) ++e;
  return e >= code.size() || std::string("+-*/%[(").find(code[e]) == std::string::npos;
}

// Each variable `text` sets (not in `known`), with the numbers it is set to, each valued through
// `known`: nullopt for a name set otherwise too (`root = rank - 1`, `root += 2`, `root++`, `++p`).
// String literals are not code (`printf("EP=%d", EP)` sets nothing).
std::map<std::string, std::optional<std::vector<int64_t>>> ValuesSet(const std::string& text,
                                                                      const std::map<std::string, int64_t>& known) {
  const std::string code = BlankCommentsAndLiterals(text);
  static const std::regex set_re(R"(\b([A-Za-z_]\w*)\s*(=(?!=)|[-+*/%&|^]=|<<=|>>=|\+\+|--)\s*([^;]*);)");
  std::map<std::string, std::optional<std::vector<int64_t>>> sets;
  for (auto it = std::sregex_iterator(code.begin(), code.end(), set_re); it != std::sregex_iterator(); ++it) {
    const auto at = sets.try_emplace((*it)[1].str(), std::vector<int64_t>{}).first;
    const auto v = (*it)[2].str() == "=" ? EvalIntExpr(Trim((*it)[3].str()), known) : std::nullopt;
    if (v && at->second) at->second->push_back(*v); else at->second.reset();
  }
  static const std::regex stepped_re(R"((?:\+\+|--)\s*([A-Za-z_]\w*)\b)");  // `++p`: a loop's variable, set again
  for (auto it = std::sregex_iterator(code.begin(), code.end(), stepped_re); it != std::sregex_iterator(); ++it)
    sets[(*it)[1].str()].reset();
  for (auto it = sets.begin(); it != sets.end();) it = known.count(it->first) ? sets.erase(it) : std::next(it);
  return sets;
}

// `known` and the variables set to a number exactly once in `code` (`int root = 4;`), each valued
// through `known`: any other assignment (`root = rank - 1`, `root++`) and the name is not one number.
std::map<std::string, int64_t> WithValuesSetOnce(const std::string& code, std::map<std::string, int64_t> known) {
  for (const auto& [name, values] : ValuesSet(code, known))
    if (values && values->size() == 1 && values->front() >= 0) known[name] = values->front();
  return known;
}

// WithValuesSetOnce, members read by their name alone (`nRanks = args->num_threads;` after
// `data.num_threads = num_dev;`, a thread per GPU handed its count in a struct) and names set from
// names valued so (`constexpr int num_dev = 8;`), each round valuing what the last one found.
std::map<std::string, int64_t> ValuesSetOnceThroughMembers(const std::string& code) {
  static const std::regex member(R"(\b[A-Za-z_]\w*\s*(?:->|\.)\s*([A-Za-z_]\w*)\b(?!\s*\())");
  const std::string flat = std::regex_replace(code, member, "$1");
  std::map<std::string, int64_t> known;
  for (int round = 0; round < 4; ++round) {
    std::map<std::string, int64_t> more = WithValuesSetOnce(flat, known);
    if (more.size() == known.size()) break;
    known = std::move(more);
  }
  return known;
}

// `known` and the variables set only to numbers in `code`, each valued as the largest of them: a
// peer set in each branch by rank (`int peer = PEER1;` ... `int peer = PEER0;`) names each in turn.
std::map<std::string, int64_t> WithLargestValueSet(const std::string& code, std::map<std::string, int64_t> known) {
  for (const auto& [name, values] : ValuesSet(code, known)) {
    if (!values || values->empty()) continue;
    const int64_t largest = *std::max_element(values->begin(), values->end());
    if (largest >= 0) known[name] = largest;
  }
  return known;
}

// The variables the calls `call_re` matches write through their `&x` argument (its group 1;
// members: the last name).
std::set<std::string> WrittenThrough(const std::string& code, const std::regex& call_re) {
  std::set<std::string> vars;
  for (auto it = std::sregex_iterator(code.begin(), code.end(), call_re); it != std::sregex_iterator(); ++it)
    vars.insert(LastComponent((*it)[1].str()));
  return vars;
}

// The rank count a program gives NCCL: `ncclCommInitAll(comms, N, devs)` or ncclCommInitRank's second
// argument, a number or a name (group 1); the first argument may call (`&comms.at(i)`).
const std::regex& NcclRankCountRe() {
  static const std::regex re(R"(\bncclCommInit(?:All|Rank)\s*\([^,()]*(?:\([^()]*\)[^,()]*)*,\s*([A-Za-z_]\w*|\d+)\s*,)");
  return re;
}

// The number `name` is declared with (`int tp_rows = 2;`, `size_t cols{2};` not: only `= N`), nullopt when
// none; a variable an option may set later still declares its default so.
std::optional<int> DeclaredNumber(const std::string& code, const std::string& name) {
  const std::regex declared("\\b(?:int|long|unsigned|size_t|int32_t|int64_t|auto)\\s+(?:[A-Za-z_]\\w*\\s*=\\s*\\d+\\s*,\\s*)*" +
                            name + "\\s*=\\s*(\\d+)\\s*[;,]");
  std::smatch m;
  if (!std::regex_search(code, m, declared)) return std::nullopt;
  return SmallNumber(m[1].str());
}

// The first check of the rank count against a product of two names (`if (a * b != world)`, either
// side), each valued by `value_of` within [1, 4096] and neither a rank count itself: their product,
// at least `least`, fixed, said with the names' values and `how` they were found.
std::optional<WorldGuess> ProductChecked(const std::string& code, const std::string& file,
                                         const std::set<std::string>& world_vars,
                                         const std::function<std::optional<int64_t>(const std::string&)>& value_of,
                                         int64_t least, const char* how) {
  static const std::regex product_re(
      R"(\b([A-Za-z_]\w*)\s*\*\s*([A-Za-z_]\w*)\s*(?:==|!=)\s*([A-Za-z_][\w.]*(?:->\w+)?)\b|\b([A-Za-z_][\w.]*(?:->\w+)?)\s*(?:==|!=)\s*([A-Za-z_]\w*)\s*\*\s*([A-Za-z_]\w*)\b)");
  for (auto it = std::sregex_iterator(code.begin(), code.end(), product_re); it != std::sregex_iterator(); ++it) {
    const auto& m = *it;
    const bool left = m[1].matched;
    const std::string world = left ? m[3].str() : m[4].str(), a = left ? m[1].str() : m[5].str(), b = left ? m[2].str() : m[6].str();
    if (!IsWorldName(LastComponent(world), world_vars) || IsWorldName(a, world_vars) || IsWorldName(b, world_vars)) continue;
    const auto va = value_of(a), vb = value_of(b);
    if (!va || !vb || *va < 1 || *vb < 1 || *va > 4096 || *vb > 4096 || *va * *vb < least || *va * *vb > 4096) continue;
    return WorldGuess{static_cast<int>(*va * *vb),
                      fmt::format("{}:{}: `{}` ({} = {}, {} = {}, {})", file,
                                  LineOf(code, static_cast<size_t>(m.position(0))), CommentText(m.str(0)), a, *va, b, *vb, how),
                      true};
  }
  return std::nullopt;
}

std::optional<WorldGuess> MeshProduct(const std::string& code, const std::string& file, const std::set<std::string>& world_vars) {
  auto declared = [&](const std::string& name) -> std::optional<int64_t> { return DeclaredNumber(code, name); };
  return ProductChecked(code, file, world_vars, declared, 2, "as declared");
}

}  // namespace

std::set<std::string> WorldSizeVariables(const std::string& code) {
  static const std::regex size_var_re(R"(\b(?:MPI_Comm_size|ncclCommCount)\s*\([^,()]*,\s*&\s*([A-Za-z_][\w.]*))");
  std::set<std::string> vars = WrittenThrough(code, size_var_re);
  for (auto it = std::sregex_iterator(code.begin(), code.end(), NcclRankCountRe()); it != std::sregex_iterator(); ++it)
    if (it->str(0).find("ncclCommInitAll") != std::string::npos && !std::isdigit(static_cast<unsigned char>((*it)[1].str()[0])))
      vars.insert((*it)[1].str());
  return vars;
}

std::set<std::string> DeviceCountVariables(const std::string& code) {
  static const std::regex count_re(R"(\bcudaGetDeviceCount\s*\(\s*&\s*([A-Za-z_][\w.]*))");
  return WrittenThrough(code, count_re);
}

WorldGuess GuessWorldSize(const std::string& raw, const std::string& code, const std::string& file,
                          const std::vector<FoundConstant>& constants, const std::set<std::string>& world_vars) {
  // 1. A check such as `world_size != 2` or `2 == nranks`.
  static const std::regex check_re(R"(\b([A-Za-z_][\w.]*(?:->\w+)?)\s*(==|!=)\s*(\d+)\b|\b(\d+)\s*(==|!=)\s*([A-Za-z_][\w.]*(?:->\w+)?)\b)");
  for (auto it = std::sregex_iterator(code.begin(), code.end(), check_re); it != std::sregex_iterator(); ++it) {
    const auto& m = *it;
    std::string var = m[1].matched ? m[1].str() : m[6].str();
    const int value = SmallNumber(m[1].matched ? m[3].str() : m[4].str());
    const std::string last = LastComponent(var);
    if (value < 2 || value > 4096 || !IsWorldName(last, world_vars)) continue;
    // Both sides whole operands: `argc - 3 != nDev` and `world != 2 * k` compare something else.
    if (!WholeComparison(code, static_cast<size_t>(m.position(0)), static_cast<size_t>(m.position(0) + m.length(0)))) continue;
    return {value, fmt::format("{}:{}: `{}`", file, LineOf(code, static_cast<size_t>(m.position(0))), CommentText(m.str(0)))};
  }
  // 1b. A check of the rank count against a product of two variables each declared with a number (a
  // process mesh: `if (tp_rows * tp_cols != world_size)`, options with defaults): their product, fixed.
  if (auto mesh = MeshProduct(code, file, world_vars)) return *mesh;
  // 2. A constant named like a world size.
  for (const auto& c : constants)
    if (!Passed(c) && NamesTheWorld(c, world_vars) && c.value >= 1 && c.value <= 4096)
      return {static_cast<int>(c.value), fmt::format("{}:{}: {} {} = {}", file, c.line, c.how, c.name, c.value), true};
  // 2b. The rank count NCCL is given (`ncclCommInitAll(comms, nGPUs, devs)`, ncclCommInitRank's
  // second argument): a number, or a variable set once to one whose address is never taken (not
  // MPI_Comm_size's `&nranks`).
  // A communicator of one rank beside another
  // (`ncclCommInitRank(&self, 1, own_id, 0)`: each process its own) is not the world's.
  const std::regex& init_re = NcclRankCountRe();
  const auto inits = std::distance(std::sregex_iterator(code.begin(), code.end(), init_re), std::sregex_iterator());
  std::optional<std::map<std::string, int64_t>> once;  // WithValuesSetOnce, when a call names a variable
  std::optional<ProgramDefaults> defaults;  // DefaultsOf, when none of those values it
  for (auto it = std::sregex_iterator(code.begin(), code.end(), init_re); it != std::sregex_iterator(); ++it) {
    const std::string n = (*it)[1].str();
    std::optional<int64_t> v;
    std::string started;  // how the value depends on the program's arguments, where it does
    if (std::isdigit(static_cast<unsigned char>(n[0]))) {
      v = SmallNumber(n);
    } else if (!std::regex_search(code, std::regex("&\\s*" + n + "\\b"))) {  // (MPI_Comm_size(c, &n) takes it)
      if (!once) once = ValuesSetOnceThroughMembers(code);
      if (auto f = once->find(n); f != once->end()) v = f->second;
      // Set again only while the program reads its command line (`int num_gpus = 1; if (argc > 1)
      // { ... num_gpus = atoi(argv[2]); }`): what it is started without arguments with. Given
      // arguments (cuco init --args), the one read from them counts (ReadRankArguments).
      if (!v) {
        if (!defaults) defaults = DefaultsOf(code, {});
        if (auto f = defaults->values.find(n); f != defaults->values.end()) v = f->second;
        if (v) started = fmt::format(" ({} = {} when it is started without arguments)", n, *v);
      }
    }
    if (v && *v == 1 && inits > 1) continue;
    if (v && *v >= 1 && *v <= 4096)
      return {static_cast<int>(*v), fmt::format("{}:{}: `{}` ranks for NCCL{}", file, LineOf(code, static_cast<size_t>(it->position(0))),
                                                CommentText(it->str(0) + "...)", 60), started),
              true};
  }
  // 3. A launch line the program prints or runs (a string, never a comment): `mpirun -np 4`.
  static const std::regex np_re(R"(\b(mpirun|mpiexec|srun)\b[^\n]*?\s(?:-np|-n|--ntasks(?:=|\s+))\s*(\d+))");
  std::smatch m;
  if (std::regex_search(code, m, np_re)) {
    const int v = SmallNumber(m[2].str());
    if (v >= 1 && v <= 4096)
      return {v, fmt::format("{}:{}: `{}`", file, LineOf(code, static_cast<size_t>(m.position(0))), CommentText(m.str(0), 60))};
  }
  (void)raw;
  return {};
}

namespace {

// Whether `peer` is the last rank: `W - 1` for W one of `world_vars`, or a variable `code` sets only to that.
bool NamesTheLastRank(const std::string& code, const std::string& peer, const std::set<std::string>& world_vars) {
  auto last = [&](const std::string& text) {
    for (const std::string& w : world_vars)
      if (std::regex_match(text, std::regex("\\s*\\(?\\s*" + w + "\\s*-\\s*1\\s*\\)?\\s*"))) return true;
    return false;
  };
  if (last(peer)) return true;
  static const std::regex identifier(R"(^[A-Za-z_]\w*$)");
  if (!std::regex_match(peer, identifier)) return false;
  const std::regex set("\\b" + peer + "\\s*=(?!=)\\s*([^;,]+)[;,]");
  bool any = false;
  for (auto it = std::sregex_iterator(code.begin(), code.end(), set); it != std::sregex_iterator(); ++it) {
    if (!last((*it)[1].str())) return false;
    any = true;
  }
  return any;
}

}  // namespace

WorldGuess LeastWorldForNamedRanks(const std::string& code, const std::string& file, const std::vector<FoundConstant>& constants,
                                   const std::vector<NamedRank>& ranks, const std::set<std::string>& world_vars) {
  std::map<std::string, int64_t> constant_values;
  for (const auto& c : constants)
    if (!Passed(c)) constant_values[c.name] = c.value;
  const std::map<std::string, int64_t> known = WithLargestValueSet(code, std::move(constant_values));
  WorldGuess best;
  for (const NamedRank& r : ranks) {
    const std::optional<int64_t> v = EvalIntExpr(Trim(r.text), known);
    if (!v && NamesTheLastRank(code, Trim(r.text), world_vars)) best.least = std::max(best.least, 2);
    if (!v || *v + 1 > 4096) continue;
    best.least = std::max(best.least, static_cast<int>(*v + 1));  // a ping to rank 1: not at one rank
    if (*v + 1 <= best.size) continue;
    best = {static_cast<int>(*v + 1),
            fmt::format("{}:{}: {} names rank {} (`{}`): at least {} ranks", file, r.line, r.call, *v, Trim(r.text), *v + 1),
            false, static_cast<int>(*v + 1)};
  }
  return best;
}

ArgumentWorld WorldFromArguments(const std::string& code, const std::string& file, const std::vector<std::string>& args,
                                 const std::set<std::string>& world_vars) {
  static const std::regex whole(R"([0-9]+)");
  for (const ArgvInteger& read : ArgvIntegers(code)) {
    const std::string& var = read.variable;
    const int k = read.index;
    if ((!IsWorldName(var, world_vars) && !GivenToNcclAsTheRankCount(code, var)) || k < 1 ||
        k > static_cast<int>(args.size()) || !std::regex_match(args[k - 1], whole))
      continue;
    const int v = SmallNumber(args[k - 1]);
    if (v < 1 || v > 4096) continue;
    ArgumentWorld w;
    w.position = k;
    w.variable = var;
    w.guess = {v, fmt::format("{}:{}: `{}` from argv[{}], given {}", file, LineOf(code, read.at),
                              var, k, v)};
    return w;
  }
  return {};
}

WorldGuess WorldFromArgumentMesh(const std::string& code, const std::string& file, const std::vector<std::string>& args,
                                 const std::set<std::string>& world_vars) {
  static const std::regex whole(R"([0-9]+)");
  std::map<std::string, int64_t> given;  // each variable read from a numeric argument, its value
  for (const ArgvInteger& read : ArgvIntegers(code))
    if (read.index >= 1 && read.index <= static_cast<int>(args.size()) && std::regex_match(args[read.index - 1], whole))
      given.emplace(read.variable, SmallNumber(args[read.index - 1]));
  auto as_given = [&](const std::string& name) -> std::optional<int64_t> {
    const auto it = given.find(name);
    return it == given.end() ? std::nullopt : std::optional<int64_t>(it->second);
  };
  return ProductChecked(code, file, world_vars, as_given, 1, "as given").value_or(WorldGuess{});
}

bool ComparedWithTheRankCount(const std::string& code, const std::string& variable, const std::set<std::string>& world_vars) {
  for (const std::string& w : world_vars) {
    const std::regex either("\\b" + variable + "\\s*[!=]=\\s*" + w + "\\b|\\b" + w + "\\s*[!=]=\\s*" + variable + "\\b");
    if (w != variable && std::regex_search(code, either)) return true;
  }
  return false;
}

bool GivenToNcclAsTheRankCount(const std::string& code, const std::string& variable) {
  if (variable.empty()) return false;
  // The count stored in a member (`gInfo.nDev = nThreads;`, the struct a thread is started with) is
  // given as that member of whichever object holds it there.
  static const std::regex stored(R"(\b[A-Za-z_]\w*\s*(?:\.|->)\s*([A-Za-z_]\w*)\s*=\s*([A-Za-z_]\w*)\s*;)");
  std::set<std::string> members;
  for (auto it = std::sregex_iterator(code.begin(), code.end(), stored); it != std::sregex_iterator(); ++it)
    if ((*it)[2].str() == variable) members.insert((*it)[1].str());
  static const std::regex member_count(
      R"(\bncclCommInitRank\s*\([^,()]*(?:\([^()]*\)[^,()]*)*,\s*[A-Za-z_]\w*\s*(?:\.|->)\s*([A-Za-z_]\w*)\s*,)");
  for (auto it = std::sregex_iterator(code.begin(), code.end(), member_count); it != std::sregex_iterator(); ++it)
    if (members.count((*it)[1].str())) return true;
  for (auto it = std::sregex_iterator(code.begin(), code.end(), NcclRankCountRe()); it != std::sregex_iterator(); ++it)
    if ((*it)[1].str() == variable && it->str(0).find("ncclCommInitRank") != std::string::npos) return true;
  return false;
}

ArgumentWorld WorldFromOption(const std::vector<FoundConstant>& constants, const std::string& file,
                              const std::vector<std::string>& args, const std::set<std::string>& world_vars) {
  static const std::regex whole(R"([0-9]+)");
  for (const FoundConstant& c : constants) {
    if (!c.option || !NamesTheWorld(c, world_vars) || c.value < 1 || c.value > 4096) continue;
    ArgumentWorld w;
    for (size_t i = 0; i + 1 < args.size(); ++i)
      if (args[i] == c.name && std::regex_match(args[i + 1], whole) && SmallNumber(args[i + 1]) >= 1 &&
          SmallNumber(args[i + 1]) <= 4096) {
        w.position = static_cast<int>(i) + 2;
        w.guess = {SmallNumber(args[i + 1]), fmt::format("{}:{}: `{} {}`, given", file, c.line, c.name, args[i + 1])};
        return w;
      }
    w.flag = c.name;
    w.guess = {static_cast<int>(c.value), fmt::format("{}:{}: {} = {}", file, c.line, c.how, c.value)};
    return w;
  }
  return {};
}

WorldGuess WorldSizeInOtherFiles(const std::string& main_code, const std::vector<std::pair<std::string, std::string>>& files,
                                 const std::set<std::string>& world_vars) {
  // Named somewhere besides its definition: a header's constant the program never reads is no guess.
  auto used = [&](const std::string& constant) {
    const std::regex word("\\b" + constant + "\\b");
    size_t n = std::distance(std::sregex_iterator(main_code.begin(), main_code.end(), word), std::sregex_iterator());
    for (const auto& [name, code] : files)
      n += std::distance(std::sregex_iterator(code.begin(), code.end(), word), std::sregex_iterator());
    return n >= 2;
  };
  for (const auto& [name, code] : files)
    for (const auto& c : FindConstants(code))
      if (!Passed(c) && IsWorldName(c.name, world_vars) && c.value >= 1 && c.value <= 4096 && used(c.name))
        return {static_cast<int>(c.value), fmt::format("{}:{}: {} {} = {}", name, c.line, c.how, c.name, c.value), true};
  return {};
}

namespace {

// `cond` for a world size of `w`: true, false, or nullopt when that is not known. Its parts joined
// by `||` are read alone: a part that is a comparison over the world-size variables and literals is
// true or false at `w`; a part naming anything else (`min_msg_size <= 0`) is not known. True when a
// part read is true (the whole is then true, whatever the others), false when every part is read.
std::optional<bool> RefusesAt(const std::string& cond, int w, const std::set<std::string>& world_vars) {
  static const std::regex ident(R"([A-Za-z_][\w.]*(?:->\w+)?)");
  bool unknown = false;
  size_t from = 0;
  while (from <= cond.size()) {
    const size_t bar = cond.find("||", from);
    const std::string part = Trim(cond.substr(from, bar == std::string::npos ? std::string::npos : bar - from));
    from = bar == std::string::npos ? cond.size() + 1 : bar + 2;
    std::map<std::string, int64_t> names;
    bool other = false;
    for (auto it = std::sregex_iterator(part.begin(), part.end(), ident); it != std::sregex_iterator(); ++it)
      if (IsWorldName(LastComponent(it->str()), world_vars)) names[it->str()] = w;
      else other = true;
    if (other || names.empty()) {
      unknown = true;
      continue;
    }
    static const std::regex cmp(R"(^\(?\s*([^<>=!]+?)\s*(==|!=|<=|>=|<|>)\s*([^<>=!]+?)\s*\)?$)");
    std::smatch m;
    std::optional<int64_t> a, b;
    std::string op = "!=";
    if (std::regex_match(part, m, cmp)) {
      a = EvalIntExpr(m[1].str(), names), b = EvalIntExpr(m[3].str(), names), op = m[2].str();
    } else {
      a = EvalIntExpr(part, names), b = 0;  // `world % 2`: refused when non-zero
    }
    if (!a || !b) {
      unknown = true;
      continue;
    }
    if (op == "==" ? *a == *b : op == "!=" ? *a != *b : op == "<" ? *a < *b : op == ">" ? *a > *b
        : op == "<=" ? *a <= *b : *a >= *b)
      return true;
  }
  if (unknown) return std::nullopt;
  return false;
}

// The condition in the parentheses `m` (`if (`, `assert(`) opens in `blank`: *open and *close its
// parentheses, *cond its text; false where they do not close or it joins parts with `&&`.
bool ConditionOf(const std::string& blank, const std::smatch& m, size_t* open, size_t* close, std::string* cond) {
  *open = static_cast<size_t>(m.position(0) + m.length(0)) - 1;
  *close = MatchParen(blank, *open);
  if (*close == std::string::npos || *close >= blank.size()) return false;
  *cond = blank.substr(*open + 1, *close - *open - 1);
  return cond->find("&&") == std::string::npos;
}

}  // namespace

std::map<int, std::string> RefusedWorldSizes(const std::string& code, const std::string& file,
                                             const std::set<std::string>& world_vars, const std::vector<int>& candidates) {
  const std::string blank = BlankCommentsAndLiterals(code);
  std::map<int, std::string> out;
  static const std::regex if_re(R"(\bif\s*\()");
  for (auto it = std::sregex_iterator(blank.begin(), blank.end(), if_re); it != std::sregex_iterator(); ++it) {
    size_t open = 0, close = 0;
    std::string cond;
    if (!ConditionOf(blank, *it, &open, &close, &cond)) continue;
    // The statement it guards: to its `;`, or its block.
    size_t end = close + 1;
    while (end < blank.size() && std::isspace(static_cast<unsigned char>(blank[end]))) ++end;
    size_t stmt_end = blank.find(';', end);
    if (end < blank.size() && blank[end] == '{') {
      int depth = 0;
      for (stmt_end = end; stmt_end < blank.size(); ++stmt_end) {
        if (blank[stmt_end] == '{') ++depth;
        if (blank[stmt_end] == '}' && --depth == 0) break;
      }
    }
    if (stmt_end >= blank.size()) continue;
    static const std::regex ends(R"(\b(exit|abort|MPI_Abort|return|throw)\b)");
    if (!std::regex_search(blank.begin() + static_cast<std::ptrdiff_t>(end), blank.begin() + static_cast<std::ptrdiff_t>(stmt_end),
                           ends))
      continue;
    for (int w : candidates)
      if (!out.count(w) && RefusesAt(cond, w, world_vars).value_or(false))
        out[w] = fmt::format("{}:{}: `{}`", file, LineOf(code, open), CommentText(Trim(code.substr(open + 1, close - open - 1))));
  }
  // `assert(world_size == 2)`: refused where its condition does not hold.
  static const std::regex assert_re(R"(\bassert\s*\()");
  for (auto it = std::sregex_iterator(blank.begin(), blank.end(), assert_re); it != std::sregex_iterator(); ++it) {
    size_t open = 0, close = 0;
    std::string cond;
    if (!ConditionOf(blank, *it, &open, &close, &cond)) continue;
    for (int w : candidates)
      if (const std::optional<bool> holds = RefusesAt(cond, w, world_vars); !out.count(w) && holds && !*holds)
        out[w] = fmt::format("{}:{}: `assert({})`", file, LineOf(code, open), CommentText(Trim(code.substr(open + 1, close - open - 1))));
  }
  return out;
}

WorldGuess FewestNotRefused(const std::string& code, const std::string& file, const std::set<std::string>& world_vars,
                            const WorldGuess& guess) {
  if (!guess.source.empty()) return guess;
  const std::map<int, std::string> refused = RefusedWorldSizes(code, file, world_vars, {guess.size, 4, 8});
  if (!refused.count(guess.size)) return guess;
  for (int w : {4, 8})
    if (w > guess.size && !refused.count(w)) {
      WorldGuess g = guess;
      g.size = w;
      g.source = fmt::format("{}, which refuses {} ranks: the fewer of 4 and 8 it runs at", refused.at(guess.size), guess.size);
      return g;
    }
  return guess;
}

}  // namespace cuco::scaffold_internal
