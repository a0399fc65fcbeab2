// What the object checks read of an ELF relocatable object, through binutils (readelf, objdump):
// its symbol table, its section names and, per function, what its code references. Internal to
// object_check.cc and object_init_check.cc.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "util/status.h"

namespace cuco::object_elf {

struct Symbol {
  uint64_t value = 0, size = 0;
  std::string type, bind, ndx, name;  // as readelf -sW prints them (ndx "UND" when undefined)
};

// Runs a binutils tool under LC_ALL=C; its whole standard output, or Unavailable naming the tool and
// how it ended (a signal, a limit of 60 s, not found).
Result<std::string> Tool(const std::vector<std::string>& argv);
std::vector<std::string> Words(const std::string& line);
std::string Demangle(const std::string& name);

// `readelf -sW`: the .symtab entries.
std::vector<Symbol> ParseSymbols(const std::string& readelf_s);
// `readelf -SW`: section index -> name.
std::map<std::string, std::string> ParseSections(const std::string& readelf_S);

// One reference a function's code makes: a call or jump to, or a relocation against, `symbol`
// (a section name such as ".text" with `offset` into it, or a symbol).
struct CodeRef {
  std::string symbol;
  int64_t offset = 0;  // into the section or symbol: the addend, corrected for PC-relative kinds
  bool relocation = false;
};
struct FunctionCode {
  std::vector<CodeRef> refs;
  std::vector<std::string> indirect_calls;  // the instructions, as objdump prints them
  // With -l and a line table: the source lines its instructions come from (inlined code's too),
  // as (file, line), each once.
  std::vector<std::pair<std::string, int>> lines;
};
// `objdump -dr[l] --no-show-raw-insn`: per function (its symbol name), what it references. Direct
// branches the assembler resolved (no relocation) name their target symbol; branches inside the
// function itself are left out; x86 jump tables (notrack jmp) and aarch64 `br` are not calls.
std::map<std::string, FunctionCode> ParseDisassembly(const std::string& objdump_dr);

// The first namespace of a mangled name (_ZN4cuco... -> "cuco", _ZSt... -> "std"), or "" for the
// global namespace. Special names (vtables, typeinfo, guards, thunks) are looked through.
std::string FirstNamespace(const std::string& mangled);
// std, __gnu_cxx, __cxxabiv1, __gnu_debug, cuco, cuco_frozen, cuco_harness, cuco_program, cub, thrust.
bool ReservedNamespace(const std::string& ns);

}  // namespace cuco::object_elf
