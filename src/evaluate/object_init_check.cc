#include "evaluate/object_init_check.h"

#include <deque>
#include <set>

#include "workload/deny_list.h"

namespace cuco {
namespace {

using object_elf::Demangle;
using object_elf::FirstNamespace;

enum class Kind { kInitHelper, kTrusted, kLibrary, kCandidate };

// A mangled name without its clone suffix (foo.constprop.0, foo.cold): mangled names hold no '.'.
std::string Unclone(const std::string& name) {
  if (name.rfind("_Z", 0) != 0) return name;
  return name.substr(0, name.find('.'));
}

Kind Classify(const std::string& name) {
  for (const char* p : {"_GLOBAL__sub_I_", "_GLOBAL__sub_D_", "_GLOBAL__I_", "_GLOBAL__D_", "__tcf_",
                        "__cxx_global_var_init", "__cxx_global_array_dtor", "_Z41__static_initialization_and_destruction_0"})
    if (name.rfind(p, 0) == 0) return Kind::kInitHelper;
  const std::string base = Unclone(name);
  const std::string ns = FirstNamespace(base);
  const bool on_candidate_types = base.find("_GLOBAL__N_") != std::string::npos;  // an anonymous namespace's
  const bool runtime = ns == "cuco" || ns == "cuco_program";  // cuco's runtime headers (a candidate may not open them)
  if (runtime && !on_candidate_types) return Kind::kTrusted;
  if (runtime || ns == "std" || ns == "__gnu_cxx" || ns == "__cxxabiv1" || ns == "__gnu_debug" || ns == "cub" ||
      ns == "thrust")
    return Kind::kLibrary;
  return Kind::kCandidate;
}

bool AllowedUndefined(const std::string& name) {
  static const std::set<std::string> kExact = {
      "__cxa_atexit", "__cxa_guard_acquire", "__cxa_guard_release", "__cxa_guard_abort", "__dso_handle",
      "_GLOBAL_OFFSET_TABLE_", "_Unwind_Resume", "__gxx_personality_v0", "__stack_chk_fail", "memcpy", "memmove",
      "memset", "memcmp", "strlen", "__cxa_begin_catch", "__cxa_end_catch", "__cxa_rethrow",
      "__cxa_allocate_exception", "__cxa_free_exception", "__cxa_throw", "__cxa_pure_virtual", "__cxa_call_terminate",
      "__cxa_bad_cast", "__cxa_bad_typeid", "__cxa_throw_bad_array_new_length"};
  if (kExact.count(name)) return true;
  for (const char* p : {"_Znw", "_Zna", "_Zdl", "_Zda"})  // operator new / delete
    if (name.rfind(p, 0) == 0) return true;
  const std::string ns = FirstNamespace(name);
  if (ns == "cuco" || ns == "cuco_program") return true;
  if (ns != "std" && ns != "__gnu_cxx" && ns != "__cxxabiv1") return false;
  const std::string shown = Demangle(name);
  for (const char* denied : {"thread", "call_once", "set_terminate", "set_unexpected", "set_new_handler", "atexit",
                             "quick_exit", "std::async", "signal"})
    if (shown.find(denied) != std::string::npos) return false;
  return true;
}

// What the program's frozen code may call beyond AllowedUndefined: a library function (C linkage)
// that does not reach past the process.
bool AllowedFromTheProgram(const std::string& name) {
  return AllowedUndefined(name) || (name.rfind("_Z", 0) != 0 && !ReachesPastTheProcess(name));
}

const char* kWhen = "in a static initialiser or destructor (before main or at exit)";

}  // namespace

std::vector<ObjectFinding> CheckStaticInitialisers(const std::vector<std::string>& entries,
                                                   const std::vector<object_elf::Symbol>& symbols,
                                                   const std::map<std::string, std::string>& sections,
                                                   const std::map<std::string, object_elf::FunctionCode>& code,
                                                   const ProgramOwn& own) {
  std::map<std::string, const object_elf::Symbol*> defined;
  for (const auto& s : symbols)
    if (s.ndx != "UND" && !s.name.empty()) defined.emplace(s.name, &s);
  std::map<std::string, std::string> section_index;
  for (const auto& [idx, name] : sections) section_index.emplace(name, idx);
  // The function at `offset` of section `name` (a text section), or "".
  auto function_at = [&](const std::string& name, int64_t offset) -> std::string {
    auto idx = section_index.find(name);
    if (idx == section_index.end()) return "";
    for (const auto& s : symbols)
      if (s.ndx == idx->second && s.type == "FUNC" && static_cast<int64_t>(s.value) <= offset &&
          offset < static_cast<int64_t>(s.value + std::max<uint64_t>(s.size, 1)))
        return s.name;
    return "";
  };

  std::vector<ObjectFinding> found;
  std::set<std::string> seen, named;
  auto find = [&](const std::string& symbol, const std::string& what) {
    if (named.insert(symbol).second) found.push_back({Demangle(symbol), what, ""});
  };
  std::deque<std::string> todo(entries.begin(), entries.end());
  while (!todo.empty()) {
    const std::string fn = todo.front();
    todo.pop_front();
    if (!seen.insert(fn).second) continue;
    const Kind kind = Classify(fn);
    if (kind == Kind::kTrusted) continue;
    auto it = code.find(fn);
    if (it == code.end()) {  // an alias (D1/D2, C1/C2 at one address): objdump lists the code under one
      auto sym = defined.find(fn);
      if (sym != defined.end())
        for (const auto& s : symbols)
          if (s.ndx == sym->second->ndx && s.value == sym->second->value && s.type == "FUNC" && code.count(s.name))
            it = code.find(s.name);
    }
    // The program's frozen code: its headers' functions (frozen_functions), or the candidate file's
    // own frozen text (FrozenLines).
    // own frozen text (FrozenLines), which the compiler's exit helpers inline (`__tcf_0` of a global
    // array of a class main's file defines, destroying each element).
    const bool frozen_text = it != code.end() && own.candidate_lines.Frozen(it->second.lines);
    const bool program = (kind == Kind::kCandidate && own.frozen_functions.count(Unclone(fn)) > 0) ||
                         ((kind == Kind::kCandidate || kind == Kind::kInitHelper) && frozen_text);
    if (kind == Kind::kCandidate && !program) {
      find(fn, std::string("runs, ") + kWhen + ", its own function");
      continue;
    }
    if (it == code.end()) continue;
    if (!it->second.indirect_calls.empty())
      find(fn, std::string("makes an indirect call (") + it->second.indirect_calls.front() + ") " + kWhen + " in");
    for (const object_elf::CodeRef& r : it->second.refs) {
      if (!r.symbol.empty() && r.symbol[0] == '.') {  // a section: code at an offset, or data
        if (r.symbol.rfind(".text", 0) != 0) continue;
        const std::string target = function_at(r.symbol, r.offset);
        if (!target.empty()) todo.push_back(target);
        continue;
      }
      auto d = defined.find(r.symbol);
      if (d != defined.end()) {
        if (d->second->type == "FUNC" || d->second->type == "IFUNC") todo.push_back(r.symbol);
        continue;  // the object's own data
      }
      if (!(program ? AllowedFromTheProgram(r.symbol) : AllowedUndefined(r.symbol)))
        find(r.symbol, std::string("calls or refers to, ") + kWhen + ",");
    }
  }
  return found;
}

}  // namespace cuco
