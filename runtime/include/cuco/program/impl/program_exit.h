// cuco/program/impl/program_exit.h: exit() as the program's code sees it on both sides. The
// program's error macros end in exit(EXIT_FAILURE); here that throws cuco_program::ProgramExit,
// which ends the program's thread (or the iteration) with "the program called exit(N)" instead of
// ending the process the harness (or the supervisor) runs in. Included last: `exit` is a macro
// from here on.
#pragma once

#include <cstdlib>

#include <cuco/program/program.h>

[[noreturn]] inline void cuco_program_exit(int code) { throw cuco_program::ProgramExit{code}; }
namespace std {
using ::cuco_program_exit;
}
#define exit cuco_program_exit
