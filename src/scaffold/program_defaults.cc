#include "scaffold/program_defaults.h"

#include <strings.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <regex>

#include "analyze/analysis.h"
#include "scaffold/constants.h"
#include "util/source_text.h"

namespace cuco::scaffold_internal {
namespace {

// --- A three-valued evaluator of the program's integer and boolean expressions. ---

struct Value {
  enum Kind { kKnown, kUnknown, kPerRank, kString } kind = kUnknown;
  int64_t v = 0;
  std::string str;  // kString: a string's characters (compared with == and !=, strcmp; nothing else)
};
Value Known(int64_t v) { return {Value::kKnown, v, {}}; }
Value Unknown() { return {}; }
Value Join(const Value& a, const Value& b) {  // neither known: per-rank wins
  return {a.kind == Value::kPerRank || b.kind == Value::kPerRank ? Value::kPerRank : Value::kUnknown, 0, {}};
}

struct ETok {
  std::string s;
  bool ident = false, number = false, string = false;
};

std::vector<ETok> Lex(const std::string& x) {
  std::vector<ETok> out;
  static const char* ops[] = {"&&", "||", "==", "!=", "<=", ">=", "<<", ">>", "->", "::"};
  for (size_t i = 0; i < x.size();) {
    const char c = x[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
    } else if (IsCIdentStart(c)) {
      size_t k = i;
      while (k < x.size() && IsCIdentChar(x[k])) ++k;
      out.push_back({x.substr(i, k - i), true});
      i = k;
    } else if (std::isdigit(static_cast<unsigned char>(c))) {
      size_t k = i;
      while (k < x.size() && (std::isalnum(static_cast<unsigned char>(x[k])) || x[k] == '.' || x[k] == '\'')) ++k;
      out.push_back({x.substr(i, k - i), false, true});
      i = k;
    } else if (c == '"' || c == '\'') {
      size_t k = i + 1;
      while (k < x.size() && x[k] != c) k += x[k] == '\\' ? 2 : 1;
      out.push_back({x.substr(i, k + 1 - i), false, false, true});
      i = k + 1;
    } else {
      std::string op(1, c);
      for (const char* o : ops)
        if (x.compare(i, 2, o) == 0) op = o;
      out.push_back({op});
      i += op.size();
    }
  }
  return out;
}

class Eval {
 public:
  Eval(std::vector<ETok> t, const ProgramDefaults& d) : t_(std::move(t)), d_(d) {}
  // The whole expression's value; unknown when it does not parse to the end.
  Value All() {
    Value v = Ternary();
    return pos_ == t_.size() ? v : Unknown();
  }

 private:
  bool Is(const char* s) const { return pos_ < t_.size() && t_[pos_].s == s && !t_[pos_].string; }
  bool Take(const char* s) {
    if (!Is(s)) return false;
    ++pos_;
    return true;
  }
  Value Ternary() {
    Value c = Or();
    if (!Take("?")) return c;
    Value a = Ternary();
    if (!Take(":")) return Unknown();
    Value b = Ternary();
    if (c.kind == Value::kKnown) return c.v ? a : b;
    return Join(c, a.kind == Value::kPerRank ? a : b);
  }
  Value Or() {
    Value a = And();
    while (Take("||")) {
      Value b = And();
      if ((a.kind == Value::kKnown && a.v) || (b.kind == Value::kKnown && b.v)) a = Known(1);
      else if (a.kind == Value::kKnown && b.kind == Value::kKnown) a = Known(0);
      else a = Join(a, b);
    }
    return a;
  }
  Value And() {
    Value a = Binary(0);
    while (Take("&&")) {
      Value b = Binary(0);
      if ((a.kind == Value::kKnown && !a.v) || (b.kind == Value::kKnown && !b.v)) a = Known(0);
      else if (a.kind == Value::kKnown && b.kind == Value::kKnown) a = Known(1);
      else a = Join(a, b);
    }
    return a;
  }
  // Binary operators by level: == != ; < > <= >= ; + - ; * / %.
  Value Binary(int level) {
    static const std::vector<std::vector<std::string>> levels = {{"==", "!="}, {"<", ">", "<=", ">="}, {"+", "-"},
                                                                  {"*", "/", "%"}};
    if (level == 4) return Unary();
    Value a = Binary(level + 1);
    for (;;) {
      std::string op;
      for (const auto& o : levels[level])
        if (Is(o.c_str())) op = o;
      if (op.empty()) return a;
      ++pos_;
      Value b = Binary(level + 1);
      if (level == 0 && a.kind == Value::kString && b.kind == Value::kString) {
        a = Known((a.str == b.str) == (op == "=="));
        continue;
      }
      if (a.kind != Value::kKnown || b.kind != Value::kKnown) {
        a = Join(a, b);
        continue;
      }
      const int64_t x = a.v, y = b.v;
      if (op == "==") a = Known(x == y);
      else if (op == "!=") a = Known(x != y);
      else if (op == "<") a = Known(x < y);
      else if (op == ">") a = Known(x > y);
      else if (op == "<=") a = Known(x <= y);
      else if (op == ">=") a = Known(x >= y);
      else if (op == "+") a = Known(x + y);
      else if (op == "-") a = Known(x - y);
      else if (op == "*") a = Known(x * y);
      else if (y == 0) a = Unknown();
      else a = Known(op == "/" ? x / y : x % y);
    }
  }
  Value Unary() {
    if (Take("!")) {
      Value v = Unary();
      return v.kind == Value::kKnown ? Known(!v.v) : v.kind == Value::kString ? Unknown() : v;
    }
    if (Take("-")) {
      Value v = Unary();
      return v.kind == Value::kKnown ? Known(-v.v) : v;
    }
    if (Take("+")) return Unary();
    return Primary();
  }
  // The arguments of a call: their tokens, split at top-level commas.
  std::vector<std::vector<ETok>> Args() {
    std::vector<std::vector<ETok>> args(1);
    int depth = 0;
    while (pos_ < t_.size()) {
      const ETok& x = t_[pos_++];
      if (!x.string && (x.s == "(" || x.s == "[" || x.s == "{")) ++depth;
      if (!x.string && (x.s == ")" || x.s == "]" || x.s == "}") && depth-- == 0) return args;
      if (!x.string && x.s == "," && depth == 0) {
        args.emplace_back();
        continue;
      }
      args.back().push_back(x);
    }
    return {};
  }
  // `atoi(argv[k])` (atol, stoi, strtol(argv[k], ...), ...) when the program is started with a
  // whole number as its k-th argument: that number.
  std::optional<int64_t> GivenArgument(const std::string& name, const std::vector<std::vector<ETok>>& args) const {
    if (d_.args.empty() || !IsIntegerParser(name) || args.empty()) return std::nullopt;
    const std::vector<ETok>& a = args[0];
    if (a.size() != 4 || a[0].s != "argv" || a[1].s != "[" || !a[2].number || a[3].s != "]") return std::nullopt;
    const size_t k = std::strtoul(a[2].s.c_str(), nullptr, 10);
    if (k < 1 || k > d_.args.size()) return std::nullopt;
    const std::string& given = d_.args[k - 1];
    static const std::regex whole(R"(-?[0-9]+)");
    if (!std::regex_match(given, whole)) return std::nullopt;
    try {
      return static_cast<int64_t>(std::stoll(given));
    } catch (...) {
      return std::nullopt;
    }
  }
  Value Call(const std::string& name) {
    const std::vector<std::vector<ETok>> args = Args();
    if (name == "getenv" || name == "secure_getenv") {  // the harness sets no other variable
      const std::string var = args.size() == 1 && args[0].size() == 1 ? args[0][0].s : "";
      return var.find("RANK") != std::string::npos ? Value{Value::kPerRank, 0, {}} : Known(0);
    }
    if (name == "static_cast" || name == "int" || name == "bool" || name == "size_t" || name == "long") {
      if (args.size() != 1) return Unknown();
      return Eval(args[0], d_).All();
    }
    if (auto given = GivenArgument(name, args)) return Known(*given);
    if ((name == "strcmp" || name == "strcasecmp") && args.size() == 2) {  // two known strings: their order
      const Value a = Eval(args[0], d_).All(), b = Eval(args[1], d_).All();
      if (a.kind != Value::kString || b.kind != Value::kString) return Unknown();
      const int c = name == "strcmp" ? a.str.compare(b.str) : strcasecmp(a.str.c_str(), b.str.c_str());
      return Known(c < 0 ? -1 : c > 0 ? 1 : 0);
    }
    bool argv = false;  // an option or flag read from the command line: absent, so its default
    for (const auto& a : args)
      for (const ETok& x : a) argv |= x.ident && (x.s == "argv" || x.s == "argc");
    static const std::set<std::string> opaque = {"strcmp", "strncmp", "strcasecmp", "atoi", "atol", "atoll", "atof",
                                                 "stoi", "stol", "stoll", "strtol", "strtoul", "strtoll", "sscanf"};
    if (!argv || opaque.count(name) || args.empty()) return Unknown();
    const std::vector<ETok>& last = args.back();
    if (last.size() == 1 && (last[0].number || last[0].s == "true" || last[0].s == "false")) return Eval(last, d_).All();
    if (last.size() == 1 && last[0].string && last[0].s.size() > 2 && last[0].s[1] == '-') return Known(0);  // a flag
    return Unknown();
  }
  Value Primary() {
    if (pos_ >= t_.size()) return Unknown();
    if (Take("(")) {
      Value v = Ternary();
      return Take(")") ? v : Unknown();
    }
    const ETok x = t_[pos_++];
    if (x.number) {
      std::string digits;
      for (char c : x.s)
        if (c != '\'') digits += c;
      if (digits.find('.') != std::string::npos) return Unknown();
      try {
        return Known(static_cast<int64_t>(std::stoll(digits, nullptr, 0)));
      } catch (...) {
        return Unknown();
      }
    }
    if (x.string)  // a string literal without escapes: its characters
      return x.s.size() >= 2 && x.s[0] == '"' && x.s.find('\\') == std::string::npos
                 ? Value{Value::kString, 0, x.s.substr(1, x.s.size() - 2)}
                 : Unknown();
    if (!x.ident) return Unknown();
    if (x.s == "true") return Known(1);
    if (x.s == "false" || IsNullPointerLiteral(x.s)) return Known(0);
    std::string name = x.s, scope;
    while (Is("::") && pos_ + 1 < t_.size()) {  // std::getenv -> getenv; Mode::Fast: scope Mode
      scope = name;
      pos_ += 2;
      name = t_[pos_ - 1].s;
    }
    if (Is("<")) {  // template arguments of a call (`get_argval<int>(...)`, `static_cast<T>(e)`), not a comparison
      size_t k = pos_;
      int depth = 0;
      for (; k < t_.size(); ++k) {
        const ETok& y = t_[k];
        if (y.s == "<") ++depth;
        else if (y.s == ">" && --depth == 0) break;
        else if (!(y.ident || y.number || y.s == "," || y.s == "::" || y.s == "*")) break;
      }
      if (k + 1 < t_.size() && depth == 0 && t_[k].s == ">" && t_[k + 1].s == "(") pos_ = k + 1;
    }
    if (Take("(")) return Call(name);
    while ((Is(".") || Is("->")) && pos_ + 1 < t_.size()) pos_ += 2, name = t_[pos_ - 1].s;  // cfg.mode: its name
    if (Is("[")) return Unknown();
    if (!scope.empty()) {  // an enumerator, scoped (`Mode::Fast`), or unscoped behind a namespace
      auto e = d_.enumerators.find(scope + "::" + name);
      if (e == d_.enumerators.end()) e = d_.enumerators.find(name);
      return e != d_.enumerators.end() ? Known(e->second) : Unknown();
    }
    if (name == "argc") return Known(static_cast<int64_t>(d_.args.size()) + 1);
    if (d_.rank_vars.count(name)) return {Value::kPerRank, 0, {}};
    if (auto it = d_.values.find(name); it != d_.values.end()) return Known(it->second);
    if (auto it = d_.strings.find(name); it != d_.strings.end()) return {Value::kString, 0, it->second};
    if (auto e = d_.enumerators.find(name); e != d_.enumerators.end()) return Known(e->second);
    return Unknown();
  }

  std::vector<ETok> t_;
  size_t pos_ = 0;
  const ProgramDefaults& d_;
};

// The statement at `at` runs only while the program reads its command line: its own `if` or the
// header of the block holding it names argc or argv (`if (!strcmp(argv[i], "-x")) x = true;`,
// `for (int i = 1; i < argc; ++i) { ... }`), which a program started without arguments skips.
bool ReadingArguments(const std::string& code, size_t at) {
  auto names_args = [](const std::string& s) {
    return std::regex_search(s, std::regex(R"(\b(argc|argv)\b)"));
  };
  size_t b = at;
  while (b > 0 && code[b - 1] != ';' && code[b - 1] != '{' && code[b - 1] != '}') --b;
  if (names_args(code.substr(b, at - b))) return true;  // its own condition
  int depth = 0;
  for (size_t i = b; i-- > 0;) {  // the block holding it, and that block's header
    if (code[i] == '}') ++depth;
    if (code[i] != '{' || depth-- > 0) continue;
    size_t h = i;
    while (h > 0 && code[h - 1] != ';' && code[h - 1] != '{' && code[h - 1] != '}') --h;
    // A loop or branch over the arguments; a function's own header (`int main(int argc, ...)`) is
    // not: what main's body does, it does without arguments too.
    static const std::regex control(R"(^\s*(?:else\s+)?(?:if|for|while|switch)\b)");
    const std::string header = code.substr(h, i - h);
    return std::regex_search(header, control) && names_args(header);
  }
  return false;
}

// Whether the statement at `at`, which runs while the program reads its command line, runs with
// `args`: it names no option (`x = argv[1];`), or one of them (`if (!strcmp(argv[i], "--run")) run =
// argv[++i];` with "--run" given; an option written `--run=<v>` counts where it starts so).
bool RunsWithTheGivenArguments(const std::string& code, size_t at, const std::vector<std::string>& args) {
  size_t b = at;
  while (b > 0 && code[b - 1] != ';' && code[b - 1] != '{' && code[b - 1] != '}') --b;
  static const std::regex option(R"re("(-{1,2}[A-Za-z][\w-]*)=?")re");
  const std::string condition = code.substr(b, at - b);
  bool names_one = false;
  for (auto m = std::sregex_iterator(condition.begin(), condition.end(), option); m != std::sregex_iterator(); ++m) {
    names_one = true;
    const std::string name = (*m)[1].str();
    for (const std::string& a : args)
      if (a == name || a.rfind(name + "=", 0) == 0) return true;
  }
  return !names_one;
}

// The program's enumerations: each enumerator's value into d->enumerators (`Enum::Name`, and `Name`
// for an unscoped enum); the enum types' names are returned. An enumerator whose value is not a
// literal integer ends its enum's list (the values after it are not known).
std::set<std::string> Enumerations(const std::string& code, ProgramDefaults* d) {
  std::set<std::string> types;
  static const std::regex enum_re(R"(\benum\s+(class\s+|struct\s+)?([A-Za-z_]\w*)\s*(?::\s*[\w:\s]+)?\{([^{}]*)\})");
  static const std::regex item_re(R"(^\s*([A-Za-z_]\w*)\s*(?:=\s*(-?\s*(?:0[xX][0-9a-fA-F]+|\d+))[uUlL]*)?\s*$)");
  for (auto it = std::sregex_iterator(code.begin(), code.end(), enum_re); it != std::sregex_iterator(); ++it) {
    const bool scoped = (*it)[1].matched;
    const std::string type = (*it)[2].str(), body = (*it)[3].str();
    types.insert(type);
    int64_t next = 0;
    size_t from = 0;
    while (from <= body.size()) {
      size_t comma = body.find(',', from);
      if (comma == std::string::npos) comma = body.size();
      const std::string item = body.substr(from, comma - from);
      from = comma + 1;
      if (Trim(item).empty()) continue;  // a trailing comma
      std::smatch m;
      if (!std::regex_match(item, m, item_re)) break;
      if (m[2].matched) {
        std::string digits = m[2].str();
        digits.erase(std::remove_if(digits.begin(), digits.end(), [](char c) { return std::isspace(static_cast<unsigned char>(c)); }),
                     digits.end());
        errno = 0;
        const long long v = std::strtoll(digits.c_str(), nullptr, 0);
        if (errno == ERANGE) break;  // past int64 (a 64-bit mask): this value and the ones after it unknown
        next = v;
      }
      d->enumerators[type + "::" + m[1].str()] = next;
      if (!scoped) d->enumerators[m[1].str()] = next;
      ++next;
    }
  }
  return types;
}

// The type of a string variable's declaration: std::string, string_view or a char pointer.
const std::regex& StringDeclaration() {
  static const std::regex type(R"((?:\b(?:std::)?string(?:_view)?\s+|\bchar\s*\*\s*(?:const\s+)?))");
  return type;
}

// String variables initialised from a literal (`std::string op("allReduce");`, `const char* mode =
// "bw";`) into d->strings; a name declared twice has no one value.
void StringDefaults(const std::string& code, ProgramDefaults* d) {
  static const std::regex decl(
      R"re((?:\b(?:std::)?string(?:_view)?\s+|\bchar\s*\*\s*(?:const\s+)?)([A-Za-z_]\w*)\s*(?:=\s*|\(\s*|\{\s*)"([^"\\\n]*)"\s*[)}]?\s*;)re");
  std::map<std::string, int> seen;
  for (auto it = std::sregex_iterator(code.begin(), code.end(), decl); it != std::sregex_iterator(); ++it)
    if (++seen[(*it)[1].str()] == 1) d->strings[(*it)[1].str()] = (*it)[2].str();
  for (const auto& [name, count] : seen)
    if (count > 1) d->strings.erase(name);
}

// The members a program sets to one value outside reading its command line (an options parser's
// defaults before its loop over argv: `args.tp_mode = TpMode::Summa;` in parse_args), in `texts`
// (main's file and the others), into d->values (integers, enumerators) and d->strings (literals),
// by the member's name as conditions read it (`args.tp_mode` as `tp_mode`). A member set twice
// outside reading arguments, or named like a variable already known, is left out.
void MemberDefaults(const std::vector<const std::string*>& texts, ProgramDefaults* d) {
  static const std::regex member(R"((?:\.|->)\s*([A-Za-z_]\w*)\s*=\s*([^=;][^;]*);)");
  static const std::regex literal(R"re(^\s*"([^"\\\n]*)"\s*$)re");
  std::map<std::string, std::string> rhs_of;
  for (const std::string* text : texts)
    for (auto it = std::sregex_iterator(text->begin(), text->end(), member); it != std::sregex_iterator(); ++it)
      if (!ReadingArguments(*text, static_cast<size_t>(it->position(0)))) rhs_of.emplace((*it)[1].str(), (*it)[2].str());
  // Changed anywhere else outside reading arguments (`s.iter += 1`, `++p->n`, `n = 0;` in a method,
  // its address handed on): no one value.
  auto changes = [&](const std::string& name) {
    const std::regex changed("(?:^|[^\\w])" + name + R"(\s*(?:[-+*/%|&^]?=(?!=)|\+\+|--))" + "|(?:\\+\\+|--|(?:^|[(,=])\\s*&)\\s*(?:[A-Za-z_]\\w*\\s*(?:\\.|->)\\s*)*" + name + "\\b");
    int n = 0;
    for (const std::string* text : texts) {
      const std::string bare = BlankCommentsAndLiterals(*text);
      for (auto it = std::sregex_iterator(bare.begin(), bare.end(), changed); it != std::sregex_iterator(); ++it)
        n += ReadingArguments(*text, static_cast<size_t>(it->position(0))) ? 0 : 1;
    }
    return n;
  };
  for (const auto& [name, rhs] : rhs_of) {
    if (d->values.count(name) || d->strings.count(name) || changes(name) != 1) continue;
    std::smatch m;
    if (std::regex_match(rhs, m, literal)) {
      d->strings[name] = m[1].str();
      continue;
    }
    const Value v = Eval(Lex(rhs), *d).All();
    if (v.kind == Value::kKnown) d->values[name] = v.v;
  }
}

}  // namespace

ProgramDefaults DefaultsOf(const std::string& code, const std::set<std::string>& rank_vars,
                           const std::vector<std::string>& args, const std::string& elsewhere) {
  ProgramDefaults d;
  d.rank_vars = rank_vars;
  d.args = args;
  // The types a declaration of such a variable names: integers, booleans and the program's enums.
  std::string types = "(?:bool|int|long|unsigned|size_t|int64_t|int32_t|auto|char";
  for (const std::string& type : Enumerations(elsewhere.empty() ? code : code + "\n" + elsewhere, &d)) types += "|" + type;
  types += ")";
  const std::regex declared_type(R"(\b)" + types + R"(\b)");
  static const std::regex rank_re(R"(\b(?:MPI_Comm_rank|ncclCommUserRank)\s*\([^,()]*,\s*&\s*([A-Za-z_][\w.]*))");
  for (auto it = std::sregex_iterator(code.begin(), code.end(), rank_re); it != std::sregex_iterator(); ++it)
    d.rank_vars.insert(LastComponent((*it)[1].str()));
  // The rank a communicator is made with (`ncclCommInitRank(&comm, 2, uid, cfg.rank)`), whatever it
  // was initialised with.
  static const std::regex init_rank_re(
      R"(\bncclCommInitRank(?:Config)?\s*\([^,()]*,[^,()]*,[^,()]*,\s*([A-Za-z_][\w.]*(?:->[A-Za-z_]\w*)*)\s*[,)])");
  for (auto it = std::sregex_iterator(code.begin(), code.end(), init_rank_re); it != std::sregex_iterator(); ++it)
    d.rank_vars.insert(LastComponent((*it)[1].str()));
  const std::regex decl(R"(\b)" + types + R"((?:\s+long)?(?:\s*\*\s*|\s+)([A-Za-z_]\w*)\s*=\s*([^;{}]+);)");
  std::map<std::string, int> seen;
  // Nor has one whose address a call is handed (`MPI_Comm_size(MPI_COMM_WORLD, &world_size)` writes
  // it), nor what is computed from it.
  std::set<std::string> address_handed;
  static const std::regex address_re(R"((?:^|[(,])\s*&\s*([A-Za-z_]\w*)\s*[,)])");
  for (auto it = std::sregex_iterator(code.begin(), code.end(), address_re); it != std::sregex_iterator(); ++it)
    address_handed.insert((*it)[1].str());
  static const std::regex next_declarator(R"(^\s*([A-Za-z_]\w*)\s*=\s*([\s\S]+)$)");
  for (auto it = std::sregex_iterator(code.begin(), code.end(), decl); it != std::sregex_iterator(); ++it) {
    // `int a = 4, b = 2 * a;`: each declarator with an initialiser, in order.
    std::vector<std::pair<std::string, std::string>> declarators;
    const std::vector<std::string> parts = SplitArgs((*it)[2].str());
    if (parts.empty()) continue;
    declarators.push_back({(*it)[1].str(), parts[0]});
    for (size_t i = 1; i < parts.size(); ++i) {
      std::smatch m;
      if (std::regex_match(parts[i], m, next_declarator)) declarators.push_back({m[1].str(), m[2].str()});
    }
    for (const auto& [name, rhs] : declarators) {
      if (++seen[name] > 1) {  // declared twice: which one a condition means is not known
        d.values.erase(name);
        continue;
      }
      if (std::regex_search(rhs, std::regex(R"(getenv\s*\(\s*"[A-Z_]*RANK")"))) d.rank_vars.insert(name);
      const Value v = Eval(Lex(rhs), d).All();
      if (v.kind == Value::kKnown && !address_handed.count(name)) d.values[name] = v.v;
      if (v.kind == Value::kPerRank) d.rank_vars.insert(name);
    }
  }
  StringDefaults(code, &d);
  // A variable assigned again, other than while reading the command line, has no one value. A
  // string read there has none either where the program is given the option that sets it.
  const std::string bare = BlankCommentsAndLiterals(code);  // `"op=%s"` assigns nothing
  auto assigned_again = [&](const std::string& name, const std::regex& declaration, bool reading_counts,
                            bool members) {
    // With `members`, a member's assignment too (`c.run = argv[++i]`): conditions read `cfg.run` as
    // `run`. (An integer member set from a global of its name, `args.nGpus = nGpus;`, leaves the global.)
    const std::regex assigned(std::string(members ? "(^|->|[^=!<>+\\-*/%&|^\\w])" : "(^|[^=!<>+\\-*/%&|^\\w.])") + name + R"(\s*(?:[-+*/|&]?=(?!=)|\+\+|--))" +
                              "|(?:\\+\\+|--)\\s*" + name + "\\b");  // `++iter` too
    for (auto m = std::sregex_iterator(bare.begin(), bare.end(), assigned); m != std::sregex_iterator(); ++m) {
      const size_t at = static_cast<size_t>(m->position(0) + (*m)[1].length());  // the name (or the `++`)
      // Its statement up to the name (one line may hold several: `int n=0; for(...){ n+=c[p]; }`).
      const size_t boundary = code.find_last_of(";{}\n", at);
      const size_t statement_start = boundary == std::string::npos ? 0 : boundary + 1;
      const std::string before = code.substr(statement_start, at - statement_start);
      if (std::regex_search(before, declaration)) continue;  // its declaration
      if (!ReadingArguments(code, at)) return true;
      if (reading_counts && RunsWithTheGivenArguments(code, at, d.args)) return true;
    }
    return false;
  };
  std::erase_if(d.values, [&](const auto& v) { return assigned_again(v.first, declared_type, false, false); });
  std::erase_if(d.strings,
                [&](const auto& v) { return assigned_again(v.first, StringDeclaration(), !d.args.empty(), true); });
  // Members are not read where the user gives arguments: which option sets one is not followed.
  if (args.empty()) MemberDefaults({&code, &elsewhere}, &d);
  return d;
}

std::optional<int64_t> ValueUnder(const std::string& expr, const ProgramDefaults& d) {
  const Value v = Eval(Lex(expr), d).All();
  if (v.kind != Value::kKnown) return std::nullopt;
  return v.v;
}

Truth BranchTruth(const std::string& text, size_t begin, size_t end, const ProgramDefaults& d) {
  const Value v = Eval(Lex(text.substr(begin, end - begin)), d).All();
  if (v.kind == Value::kKnown) return v.v ? Truth::kTrue : Truth::kFalse;
  return v.kind == Value::kPerRank ? Truth::kPerRank : Truth::kUnknown;
}

}  // namespace cuco::scaffold_internal
