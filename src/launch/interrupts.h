// Interrupts cuco received: Ctrl-C (SIGINT), SIGTERM (a Slurm cancel, a shutdown), SIGHUP. The
// command's signal handler notes each one (src/search/stop_signals.cc); an evaluation that was under
// way when one arrived is not judged on what it saw (Cascade::Evaluate: it stays pending and is
// evaluated again), because the same signal may have reached the processes it ran.
// Async-signal-safe and thread-safe.
#pragma once

#include <cstdint>

namespace cuco {

// From a signal handler: counts the interrupt and remembers its signal.
void NoteInterrupt(int sig);
// How many interrupts were noted so far in this process (an evaluation compares its start's count).
uint64_t InterruptCount();
// The signal of the latest interrupt, 0 when none.
int LastInterruptSignal();
// A signal that ends processes from outside (Ctrl-C's SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGKILL):
// a tool, a compile or the supervisor ended by one was stopped, not failed. Nothing a candidate
// runs can send one to them (it is sandboxed, in another pid namespace).
bool InterruptSignal(int sig);

}  // namespace cuco
