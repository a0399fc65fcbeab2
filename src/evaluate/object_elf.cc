#include "evaluate/object_elf.h"

#include <cxxabi.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <sstream>

#include "launch/subprocess.h"
#include "util/files.h"

namespace cuco::object_elf {
namespace {

constexpr double kToolTimeoutS = 60;

bool IsHex(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!std::isxdigit(static_cast<unsigned char>(c))) return false;
  return true;
}

// "sym-0x4" / ".bss+0x2c" / "sym" -> the symbol and the signed addend.
void SplitAddend(const std::string& text, std::string* symbol, int64_t* addend) {
  *symbol = text;
  *addend = 0;
  const size_t at = text.find_last_of("+-");
  if (at == std::string::npos || at == 0 || text.compare(at + 1, 2, "0x") != 0 || !IsHex(text.substr(at + 3))) return;
  *symbol = text.substr(0, at);
  const int64_t v = static_cast<int64_t>(std::strtoull(text.c_str() + at + 3, nullptr, 16));
  *addend = text[at] == '-' ? -v : v;
}

// The target symbol of a direct branch's operand ("28 <foo+0x28>" -> "foo"), or "".
std::string BranchTarget(const std::string& operands) {
  const size_t open = operands.find('<'), close = operands.rfind('>');
  if (open == std::string::npos || close == std::string::npos || close < open) return "";
  std::string sym;
  int64_t addend = 0;
  SplitAddend(operands.substr(open + 1, close - open - 1), &sym, &addend);
  return sym;
}

}  // namespace

Result<std::string> Tool(const std::vector<std::string>& argv) {
  // The output goes through a file: a large object's symbols or disassembly pass any capture limit.
  std::string out = (std::filesystem::temp_directory_path() / "cuco-objtool-XXXXXX").string();
  const int fd = ::mkstemp(out.data());
  if (fd < 0) return Status::Unavailable("cannot create a temporary file for " + argv[0] + "'s output");
  ::close(fd);
  ProcessSpec spec;
  spec.argv = argv;
  spec.env_set = {{"LC_ALL", "C"}};
  spec.stdout_path = out;
  spec.stderr_path = out + ".err";
  const ProcessOutcome o = RunProcess(spec, kToolTimeoutS);
  auto text = ReadFile(out), err = ReadFile(out + ".err");
  std::error_code ec;
  std::filesystem::remove(out, ec);
  std::filesystem::remove(out + ".err", ec);
  if (!o.ok() || !text.ok())
    return Status::Unavailable(argv[0] + " " + argv[1] + " " + argv.back() + ": " + o.Describe() + ": " +
                               (err.ok() ? err->substr(0, 300) : std::string()));
  return *text;
}

std::vector<std::string> Words(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> w;
  for (std::string s; in >> s;) w.push_back(s);
  return w;
}

std::string Demangle(const std::string& name) {
  int status = 0;
  char* d = abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status);
  std::string out = status == 0 && d ? d : name;
  std::free(d);
  return out;
}

std::vector<Symbol> ParseSymbols(const std::string& out) {
  std::vector<Symbol> syms;
  bool in_symtab = false;
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("Symbol table", 0) == 0) in_symtab = line.find("'.symtab'") != std::string::npos;
    if (!in_symtab) continue;
    auto w = Words(line);
    if (w.size() < 8 || w[0].empty() || w[0].back() != ':' || !std::isdigit(static_cast<unsigned char>(w[0][0])))
      continue;
    Symbol s;
    s.value = std::strtoull(w[1].c_str(), nullptr, 16);
    s.size = std::strtoull(w[2].c_str(), nullptr, 0);
    s.type = w[3];
    s.bind = w[4];
    s.ndx = w[6];
    s.name = w[7];
    syms.push_back(s);
  }
  return syms;
}

std::map<std::string, std::string> ParseSections(const std::string& out) {
  std::map<std::string, std::string> sec;
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);) {
    size_t open = line.find('['), close = line.find(']');
    if (open == std::string::npos || close == std::string::npos || close < open) continue;
    auto inside = Words(line.substr(open + 1, close - open - 1));
    auto rest = Words(line.substr(close + 1));
    if (!inside.empty() && std::isdigit(static_cast<unsigned char>(inside[0][0])) && !rest.empty()) sec[inside[0]] = rest[0];
  }
  return sec;
}

std::map<std::string, FunctionCode> ParseDisassembly(const std::string& out) {
  static const std::set<std::string> kPrefixes = {"notrack", "bnd", "lock", "rep", "repz", "repnz", "data16", "cs", "ds"};
  std::map<std::string, FunctionCode> code;
  FunctionCode* fn = nullptr;
  std::string current, pending;  // pending: a direct branch's target, unless a relocation follows
  auto commit = [&] {
    if (fn != nullptr && !pending.empty() && pending != current) fn->refs.push_back({pending, 0, false});
    pending.clear();
  };
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);) {
    const auto w = Words(line);
    if (w.size() == 2 && IsHex(w[0]) && w[1].size() > 3 && w[1].front() == '<' && w[1].substr(w[1].size() - 2) == ">:") {
      commit();
      current = w[1].substr(1, w[1].size() - 3);
      fn = &code[current];
      continue;
    }
    if (fn != nullptr && !line.empty() && line[0] != ' ' && line[0] != '\t') {  // -l: "FILE:LINE [(discriminator N)]"
      const std::string place = w.empty() ? "" : w[0];
      const size_t colon = place.rfind(':');
      if (colon != std::string::npos && colon + 1 < place.size() && place.size() - colon <= 9 &&
          place.find_first_not_of("0123456789", colon + 1) == std::string::npos) {
        const std::pair<std::string, int> at{place.substr(0, colon), std::stoi(place.substr(colon + 1))};
        if (std::find(fn->lines.begin(), fn->lines.end(), at) == fn->lines.end()) fn->lines.push_back(at);
        continue;
      }
    }
    if (fn == nullptr || w.size() < 2 || w[0].size() < 2 || w[0].back() != ':' || !IsHex(w[0].substr(0, w[0].size() - 1)))
      continue;
    if (w[1].rfind("R_", 0) == 0) {  // a relocation of the instruction above
      if (w.size() < 3) continue;
      pending.clear();
      CodeRef r;
      r.relocation = true;
      SplitAddend(w[2], &r.symbol, &r.offset);
      // x86 PC-relative fields sit 4 bytes before the next instruction: the addend says -4 more.
      if (w[1].find("PC32") != std::string::npos || w[1].find("PLT32") != std::string::npos ||
          w[1].find("GOTPCREL") != std::string::npos)
        r.offset += 4;
      fn->refs.push_back(r);
      continue;
    }
    commit();
    const size_t tab = line.find(":\t");
    if (tab == std::string::npos) continue;
    std::istringstream text(line.substr(tab + 2));
    std::string op;
    bool notrack = false;
    while (text >> op && kPrefixes.count(op)) notrack |= op == "notrack";
    if (op.empty() || kPrefixes.count(op)) continue;
    std::string operands;
    std::getline(text, operands);
    operands.erase(0, operands.find_first_not_of(" \t"));
    const bool x86_call = op.rfind("call", 0) == 0, x86_jump = op[0] == 'j';
    const bool arm_call = op == "bl", arm_jump = op == "b" || op.rfind("b.", 0) == 0 || op == "cbz" || op == "cbnz" ||
                                                op == "tbz" || op == "tbnz";
    if (op == "blr" || ((x86_call || (x86_jump && !notrack)) && !operands.empty() && operands[0] == '*')) {
      fn->indirect_calls.push_back(op + " " + operands);
      continue;
    }
    if (x86_call || x86_jump || arm_call || arm_jump) pending = BranchTarget(operands);
  }
  commit();
  return code;
}

std::string FirstNamespace(const std::string& mangled) {
  if (mangled.rfind("_Z", 0) != 0) return "";
  std::string s = mangled.substr(2);
  auto skip_offsets = [&](int n) {  // thunks: call offsets, each ending in '_'
    for (int i = 0; i < n; ++i) {
      size_t u = s.find('_');
      s = u == std::string::npos ? "" : s.substr(u + 1);
    }
  };
  if (s.size() >= 2 && s[0] == 'T' && std::string("VISTHW").find(s[1]) != std::string::npos) s = s.substr(2);
  else if (s.size() >= 2 && s[0] == 'G' && (s[1] == 'V' || s[1] == 'R')) s = s.substr(2);
  else if (s.size() >= 2 && s[0] == 'T' && s[1] == 'h') { s = s.substr(2); skip_offsets(1); }
  else if (s.size() >= 2 && s[0] == 'T' && s[1] == 'v') { s = s.substr(2); skip_offsets(2); }
  bool nested = !s.empty() && s[0] == 'N';
  if (nested) {
    s = s.substr(1);
    while (!s.empty() && std::string("rVKRO").find(s[0]) != std::string::npos) s = s.substr(1);
  }
  if (s.size() >= 2 && s[0] == 'S' && std::string("tabsiod").find(s[1]) != std::string::npos) return "std";
  if (!nested) return "";  // an unscoped name: the global namespace
  size_t k = 0;
  while (k < s.size() && std::isdigit(static_cast<unsigned char>(s[k]))) ++k;
  if (k == 0) return "";
  return s.substr(k, std::strtoul(s.substr(0, k).c_str(), nullptr, 10));
}

bool ReservedNamespace(const std::string& ns) {
  static const std::set<std::string> kNames = {"std",         "__gnu_cxx",    "__cxxabiv1",   "__gnu_debug", "cuco",
                                               "cuco_frozen", "cuco_harness", "cuco_program", "cub",         "thrust"};
  return kNames.count(ns) > 0;
}

}  // namespace cuco::object_elf
