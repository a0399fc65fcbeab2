#include "evaluate/object_check.h"

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>

#include "evaluate/object_elf.h"
#include "evaluate/object_init_check.h"
#include "launch/subprocess.h"
#include "util/files.h"
#include "workload/evolve_blocks.h"

namespace cuco {
namespace {

namespace fs = std::filesystem;

using object_elf::Demangle;
using object_elf::Symbol;
using object_elf::Tool;
using object_elf::Words;

constexpr double kToolTimeoutS = 60;

// Defined with a binding other objects see.
bool SymbolExported(const Symbol& s) { return s.bind == "GLOBAL" || s.bind == "WEAK" || s.bind == "UNIQUE"; }
// ProgramOwnNames' key: the kind (function or object) and the name.
std::string OwnNameKey(const Symbol& s) { return (s.type == "FUNC" ? "FUNC " : "OBJECT ") + s.name; }

bool IsInitSection(const std::string& name) {
  for (const char* p : {".init_array", ".fini_array", ".preinit_array", ".ctors", ".dtors"}) {
    std::string s(p);
    if (name == s || name.rfind(s + ".", 0) == 0) return true;
  }
  return false;
}

// Names through which code finds functions and data at run time, past every name the deny-list
// and these checks see: the dynamic loader's own lists (r_debug and its link_map chain, the dynamic
// section, the program headers, the auxiliary vector) and its lookup calls.
bool RunTimeLookup(const std::string& name) {
  static const std::set<std::string> kNames = {
      "_r_debug", "_r_debug_extended", "_dl_debug_state", "_DYNAMIC", "__ehdr_start", "__executable_start",
      "dl_iterate_phdr", "dlopen", "dlmopen", "dlsym", "dlvsym", "dladdr", "dladdr1", "dlinfo", "_dl_find_object",
      "__libc_dlopen_mode", "__libc_dlsym", "__libc_dlvsym", "getauxval", "__getauxval", "__libc_stack_end", "_dl_argv",
      "_dl_phdr", "cuGetProcAddress", "cuGetProcAddress_v2", "cudaGetDriverEntryPoint",
      "cudaGetDriverEntryPointByVersion"};
  return kNames.count(name) > 0;
}

// What the object's symbols define or refer to that a candidate may not: the run-time lookups it
// refers to, the indirect functions, C-linkage and unmangled globals it defines, the global
// allocation functions it replaces, and symbols in reserved namespaces (a kernel's stub excepted).
void SymbolFindings(const std::vector<Symbol>& syms, const std::set<std::string>& program_names,
                    std::vector<ObjectFinding>* out) {
  std::vector<ObjectFinding>& found = *out;
  std::set<std::string> defined;
  for (const auto& s : syms)
    if (s.ndx != "UND") defined.insert(s.name);
  auto has_stub = [&](const std::string& kernel) {
    for (const auto& d : defined)
      if (d.find("__device_stub__" + kernel.substr(1)) != std::string::npos) return true;
    return false;
  };
  for (const auto& s : syms)
    if (s.ndx == "UND" && RunTimeLookup(s.name))
      found.push_back({s.name, "refers to the dynamic loader's run-time lookup", ""});
  for (const auto& s : syms) {
    if (!SymbolExported(s) || s.ndx == "UND" || s.ndx == "ABS" || s.type == "SECTION" || s.type == "FILE" || s.name.empty())
      continue;
    if (s.type == "IFUNC") {
      found.push_back({Demangle(s.name), "defines the indirect function (ifunc)", ""});
      continue;
    }
    if (s.name.rfind("_Z", 0) != 0) {
      if (s.name.rfind("DW.ref.", 0) == 0) continue;  // the compiler's personality reference
      if (program_names.count(OwnNameKey(s)) > 0) continue;  // the user's own
      found.push_back({s.name, s.type == "FUNC" ? "defines the C-linkage function" : "defines the unmangled global",
                       ""});
      continue;
    }
    if (s.name.rfind("_Znw", 0) == 0 || s.name.rfind("_Zna", 0) == 0 || s.name.rfind("_Zdl", 0) == 0 ||
        s.name.rfind("_Zda", 0) == 0) {
      found.push_back({Demangle(s.name), "replaces the global", ""});
      continue;
    }
    std::string ns = object_elf::FirstNamespace(s.name);
    if (s.bind == "GLOBAL" && object_elf::ReservedNamespace(ns) && !(s.type == "FUNC" && has_stub(s.name)))
      found.push_back({Demangle(s.name), "defines a symbol in namespace " + ns + ":", ""});
  }
}

}  // namespace

Result<std::vector<ObjectFinding>> InspectCandidateObject(const std::string& object_path, const std::string& language,
                                                          const ProgramOwn& own) {
  auto sym_out = Tool({"readelf", "-sW", object_path});
  if (!sym_out.ok()) return sym_out.status();
  auto sec_out = Tool({"readelf", "-SW", object_path});
  if (!sec_out.ok()) return sec_out.status();
  auto rel_out = Tool({"readelf", "-rW", object_path});
  if (!rel_out.ok()) return rel_out.status();
  std::vector<Symbol> syms = object_elf::ParseSymbols(*sym_out);
  std::map<std::string, std::string> sections = object_elf::ParseSections(*sec_out);
  std::vector<ObjectFinding> found;

  SymbolFindings(syms, own.names, &found);

  // Load- and exit-time entries: each relocation of an init/fini section names what runs.
  for (const auto& [idx, name] : sections)
    if (name == ".init" || name == ".fini") found.push_back({name, "has the legacy load/exit section", ""});
  std::istringstream in(*rel_out);
  std::string current;
  std::vector<std::string> initialisers;
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
    // `static cuco::codesign::DeviceCollectives cuco_dc;` in every generation 0 has one): followed
    // below, through the object's code, to what it runs (object_init_check.h).
    if (target.rfind("_GLOBAL__sub_I_", 0) == 0 && current.rfind(".init_array", 0) == 0) {
      initialisers.push_back(target);
      continue;
    }
    std::string shown = Demangle(target);
    found.push_back({shown, "runs at load or exit (" + current + " entry)", ""});
  }
  if (!initialisers.empty()) {
    // With lines (-l) where the candidate's frozen lines may decide (FrozenLines).
    auto dis = Tool({"objdump", own.candidate_lines.file.empty() ? "-dr" : "-drl", "--no-show-raw-insn", object_path});
    if (!dis.ok()) return dis.status();
    for (ObjectFinding& f : CheckStaticInitialisers(initialisers, syms, sections, object_elf::ParseDisassembly(*dis), own))
      found.push_back(std::move(f));
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
                            const std::string& display_path, const ProgramOwn& own) {
  auto found = InspectCandidateObject(object_path, language, own);
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

bool FrozenLines::Frozen(const std::vector<std::pair<std::string, int>>& lines) const {
  if (file.empty()) return false;
  std::error_code ec;
  const fs::path mine = fs::weakly_canonical(file, ec);
  bool here = false;
  for (const auto& [f, line] : lines) {
    if (fs::weakly_canonical(f, ec) != mine) continue;  // a header's: frozen too (no candidate writes one)
    if (line <= 0) return false;                         // code the line table places nowhere
    here = true;
    for (const auto& [first, last] : evolve)
      if (line >= first && line <= last) return false;
  }
  return here;
}

FrozenLines FrozenLinesOf(const std::string& source) {
  FrozenLines out;
  auto text = ReadFile(source);
  if (!text.ok()) return out;
  auto split = SplitEvolveBlocks(*text, source, /*require_blocks=*/false);
  if (!split.ok() || split->blocks.empty()) return out;  // no blocks: no text is every candidate's
  out.file = source;
  for (const EvolveBlock& b : split->blocks) out.evolve.push_back({b.start_line, b.end_line});
  return out;
}

Result<ProgramOwn> ProgramOwnOf(const std::string& reference_object, const std::string& reference_source) {
  auto sym_out = Tool({"readelf", "-sW", reference_object});
  if (!sym_out.ok()) return sym_out.status();
  ProgramOwn own;
  std::map<std::string, std::string> place;  // a mangled function -> "section value", shared by its aliases
  for (const Symbol& s : object_elf::ParseSymbols(*sym_out)) {
    if (!SymbolExported(s) || s.ndx == "UND" || s.ndx == "ABS" || s.name.empty()) continue;
    if (s.type == "FUNC" && s.name.rfind("_Z", 0) == 0) place[s.name] = s.ndx + " " + std::to_string(s.value);
    if (s.name[0] == '_') continue;
    if (s.type != "FUNC" && s.type != "OBJECT") continue;
    if (s.name.rfind("DW.ref.", 0) == 0 || s.name.rfind("cuco", 0) == 0) continue;
    own.names.insert(OwnNameKey(s));
  }
  // Each function's file, from the line table: "ADDRESS TYPE NAME\tFILE:LINE". Aliases (a
  // destructor's D1 and D2) share their code, so one placed in a frozen header places them all.
  auto nm = Tool({"nm", "-l", "--defined-only", reference_object});
  if (!nm.ok()) return nm.status();
  std::error_code ec;
  const fs::path source = fs::weakly_canonical(reference_source, ec);
  const std::string folder = source.parent_path().string() + "/";
  std::set<std::string> frozen_places;
  std::istringstream lines(*nm);
  for (std::string line; std::getline(lines, line);) {
    const size_t tab = line.find('\t'), colon = line.rfind(':');
    if (tab == std::string::npos || colon == std::string::npos || colon < tab) continue;
    const std::vector<std::string> w = Words(line.substr(0, tab));
    if (w.size() != 3 || !place.count(w[2])) continue;
    const fs::path file = fs::weakly_canonical(line.substr(tab + 1, colon - tab - 1), ec);
    if (ec || file == source || !file.string().starts_with(folder)) continue;
    frozen_places.insert(place[w[2]]);
  }
  for (const auto& [name, at] : place) {
    const std::string shown = Demangle(name);
    const bool instance = shown.substr(0, shown.find('(')).find('<') != std::string::npos;  // a template's
    if (frozen_places.count(at) && !instance) own.frozen_functions.insert(name);
  }
  return own;
}

}  // namespace cuco
