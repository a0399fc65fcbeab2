// What a candidate's static initialisers and destructors run (object_check.h): the translation
// unit's dynamic initialisation (`_GLOBAL__sub_I_...`, an .init_array entry) and every destructor
// it registers, followed through the object's code (objdump -dr) to what they call and refer to.
//
// Allowed: constructing and registering the destruction of namespace-scope objects of the standard
// library's types and of cuco's runtime (namespaces cuco and cuco_program, which a candidate may not
// open: generation 0's `cuco_dc`, a program harness's knobs), and computation inlined into the
// initialiser itself (it reaches no function); the program's frozen code (ProgramOwn: its headers'
// functions, and code the candidate's line table places in its file's frozen text only, FrozenLines),
// followed like a library's, which may call any library function that does not reach past the
// process. Refused, each named: any function of the candidate's own (its classes' constructors and destructors, its helpers, its lambdas; the
// standard library's templates instantiated on them are followed into), any library function but
// operator new/delete, the C++ ABI's (__cxa_atexit, guards, exceptions), memcpy/memset/memmove/
// memcmp/strlen and the standard library's own (std::thread, call_once, set_terminate, atexit and
// the like excepted), and any indirect call.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "evaluate/object_check.h"
#include "evaluate/object_elf.h"

namespace cuco {

// `entries`: the functions the init/fini arrays run (mangled names), nvcc's registration left out.
std::vector<ObjectFinding> CheckStaticInitialisers(const std::vector<std::string>& entries,
                                                   const std::vector<object_elf::Symbol>& symbols,
                                                   const std::map<std::string, std::string>& sections,
                                                   const std::map<std::string, object_elf::FunctionCode>& code,
                                                   const ProgramOwn& own = {});

}  // namespace cuco
