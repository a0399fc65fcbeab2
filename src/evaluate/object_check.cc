#include "evaluate/object_check.h"

#include <cxxabi.h>

#include <cctype>
#include <cstdlib>
#include <map>
#include <set>
#include <sstream>

#include "launch/subprocess.h"

namespace cuco {
namespace {

constexpr double kToolTimeoutS = 60;

struct Symbol {
  uint64_t value = 0;
  std::string type, bind, ndx, name;
};

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

Result<std::string> Tool(const std::vector<std::string>& argv) {
  CapturedRun r = RunCapture(argv, kToolTimeoutS, {{"LC_ALL", "C"}});
  if (!r.outcome.ok())
    return Status::Unavailable(argv[0] + " " + argv[1] + " " + argv.back() + ": " + r.outcome.Describe() + ": " +
                               r.output.substr(0, 300));
  return r.output;
}

// `readelf -sW`: the .symtab entries.
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
    s.type = w[3];
    s.bind = w[4];
    s.ndx = w[6];
    s.name = w[7];
    syms.push_back(s);
  }
  return syms;
}

// `readelf -SW`: section index -> name.
std::map<std::string, std::string> ParseSections(const std::string& out) {
  std::map<std::string, std::string> sec;
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);) {
    size_t open = line.find('['), close = line.find(']');
    if (open == std::string::npos || close == std::string::npos || close < open) continue;
    std::string idx = Words(line.substr(open + 1, close - open - 1)).empty()
                          ? ""
                          : Words(line.substr(open + 1, close - open - 1))[0];
    auto rest = Words(line.substr(close + 1));
    if (!idx.empty() && std::isdigit(static_cast<unsigned char>(idx[0])) && !rest.empty()) sec[idx] = rest[0];
  }
  return sec;
}

bool IsInitSection(const std::string& name) {
  for (const char* p : {".init_array", ".fini_array", ".preinit_array", ".ctors", ".dtors"}) {
    std::string s(p);
    if (name == s || name.rfind(s + ".", 0) == 0) return true;
  }
  return false;
}

// The first namespace of a mangled name (_ZN4cuco... -> "cuco", _ZSt... -> "std"), or "" for the
// global namespace. Special names (vtables, typeinfo, guards, thunks) are looked through.
std::string FirstNamespace(const std::string& mangled) {
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
  static const std::set<std::string> kNames = {"std", "__gnu_cxx", "__cxxabiv1", "__gnu_debug", "cuco", "cuco_frozen",
                                               "cuco_harness", "cub", "thrust"};
  return kNames.count(ns) > 0;
}

}  // namespace

Result<std::vector<ObjectFinding>> InspectCandidateObject(const std::string& object_path, const std::string& language) {
  auto sym_out = Tool({"readelf", "-sW", object_path});
  if (!sym_out.ok()) return sym_out.status();
  auto sec_out = Tool({"readelf", "-SW", object_path});
  if (!sec_out.ok()) return sec_out.status();
  auto rel_out = Tool({"readelf", "-rW", object_path});
  if (!rel_out.ok()) return rel_out.status();
  std::vector<Symbol> syms = ParseSymbols(*sym_out);
  std::map<std::string, std::string> sections = ParseSections(*sec_out);
  std::vector<ObjectFinding> found;

  std::set<std::string> defined;
  for (const auto& s : syms)
    if (s.ndx != "UND") defined.insert(s.name);
  auto has_stub = [&](const std::string& kernel) {
    for (const auto& d : defined)
      if (d.find("__device_stub__" + kernel.substr(1)) != std::string::npos) return true;
    return false;
  };
  for (const auto& s : syms) {
    bool exported = s.bind == "GLOBAL" || s.bind == "WEAK" || s.bind == "UNIQUE";
    if (!exported || s.ndx == "UND" || s.ndx == "ABS" || s.type == "SECTION" || s.type == "FILE" || s.name.empty())
      continue;
    if (s.type == "IFUNC") {
      found.push_back({Demangle(s.name), "defines the indirect function (ifunc)", ""});
      continue;
    }
    if (s.name.rfind("_Z", 0) != 0) {
      if (s.name.rfind("DW.ref.", 0) == 0) continue;  // the compiler's personality reference
      found.push_back({s.name, s.type == "FUNC" ? "defines the C-linkage function" : "defines the unmangled global",
                       ""});
      continue;
    }
    if (s.name.rfind("_Znw", 0) == 0 || s.name.rfind("_Zna", 0) == 0 || s.name.rfind("_Zdl", 0) == 0 ||
        s.name.rfind("_Zda", 0) == 0) {
      found.push_back({Demangle(s.name), "replaces the global", ""});
      continue;
    }
    std::string ns = FirstNamespace(s.name);
    if (s.bind == "GLOBAL" && ReservedNamespace(ns) && !(s.type == "FUNC" && has_stub(s.name)))
      found.push_back({Demangle(s.name), "defines a symbol in namespace " + ns + ":", ""});
  }

  // Load- and exit-time entries: each relocation of an init/fini section names what runs.
  for (const auto& [idx, name] : sections)
    if (name == ".init" || name == ".fini") found.push_back({name, "has the legacy load/exit section", ""});
  std::istringstream in(*rel_out);
  std::string current;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("Relocation section '", 0) == 0) {
      size_t b = line.find('\'') + 1, e = line.find('\'', b);
      current = line.substr(b, e - b);
      if (current.rfind(".rela", 0) == 0) current = current.substr(5);
      else if (current.rfind(".rel", 0) == 0) current = current.substr(4);
      continue;
    }
    if (!IsInitSection(current)) continue;
    auto w = Words(line);
    if (w.size() < 5 || !std::isxdigit(static_cast<unsigned char>(w[0][0])) || w[0].size() < 8) continue;
    std::string target = w[4];
    uint64_t at = std::strtoull(w[3].c_str(), nullptr, 16);
    if (w.size() >= 7 && (w[5] == "+" || w[5] == "-")) {
      uint64_t addend = std::strtoull(w[6].c_str(), nullptr, 16);
      at = w[5] == "+" ? at + addend : at - addend;
    }
    // A section-relative entry: the function defined at that offset of that section.
    std::string section_idx;
    for (const auto& [idx, name] : sections)
      if (name == target) section_idx = idx;
    if (!section_idx.empty()) {
      for (const auto& s : syms)
        if (s.ndx == section_idx && s.value == at && s.type == "FUNC") target = s.name;
    }
    if (language == "cuda" && target == "_ZL24__sti____cudaRegisterAllv") continue;
    // A translation unit's dynamic initialisation of namespace-scope objects (cuco's own
    // `static cuco::codesign::DeviceCollectives cuco_dc;` in every generation 0 has one): it runs in
    // the candidate's sandboxed process, before it talks to the supervisor, and can reach nothing the
    // verdict rests on. What the deny-list refuses in it (getenv, files...) is refused there.
    if (target.rfind("_GLOBAL__sub_I_", 0) == 0) continue;
    std::string shown = Demangle(target);
    found.push_back({shown, "runs at load or exit (" + current + " entry)", ""});
  }

  if (!found.empty()) {
    // Lines, where the object has debug info.
    CapturedRun nm = RunCapture({"nm", "-lC", "--defined-only", object_path}, kToolTimeoutS, {{"LC_ALL", "C"}});
    std::istringstream lines(nm.output);
    for (std::string line; std::getline(lines, line);) {
      size_t tab = line.rfind('\t');
      if (tab == std::string::npos || line.size() < 20) continue;
      std::string name = line.substr(19, tab - 19);
      for (auto& f : found)
        if (f.where.empty() && f.symbol == name) f.where = line.substr(tab + 1);
    }
  }
  return found;
}

Status CheckCandidateObject(const std::string& object_path, const std::string& language,
                            const std::string& display_path) {
  auto found = InspectCandidateObject(object_path, language);
  if (!found.ok()) return found.status();
  if (found->empty()) return Status::Ok();
  const ObjectFinding& f = found->front();
  std::string where = display_path;
  if (!f.where.empty()) {
    size_t colon = f.where.rfind(':');
    where += ":" + (colon == std::string::npos ? f.where : f.where.substr(colon + 1));
  }
  std::string msg = where + ": the compiled candidate " + f.what + " '" + f.symbol + "', which candidates may not do";
  if (found->size() > 1) msg += " (" + std::to_string(found->size() - 1) + " more)";
  return Status::InvalidArgument(msg);
}

}  // namespace cuco
