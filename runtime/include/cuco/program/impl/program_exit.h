// cuco/program/impl/program_exit.h: exit() and abort() as the program's code sees them on both
// sides. The program's error macros end in exit(EXIT_FAILURE) or abort(); here that throws
// cuco_program::ProgramExit, which ends the program's thread (or the iteration) with "the program
// called exit(N)" instead of ending the process the harness (or the supervisor) runs in. Included
// last: `exit` and `abort` are macros from here on.
#pragma once

#include <cstdlib>

#include <cuco/program/program.h>

[[noreturn]] inline void cuco_program_exit(int code) { cuco_program::EndProgram({code}); }
[[noreturn]] inline void cuco_program_abort() { cuco_program::EndProgram({134, true}); }
namespace std {
using ::cuco_program_abort;
using ::cuco_program_exit;
}
#define exit cuco_program_exit
#define abort cuco_program_abort
