#include "launch/interrupts.h"

#include <signal.h>

#include <atomic>

namespace cuco {
namespace {

std::atomic<uint64_t> g_interrupts{0};
std::atomic<int> g_last_signal{0};
static_assert(std::atomic<uint64_t>::is_always_lock_free && std::atomic<int>::is_always_lock_free,
              "interrupts are noted from signal handlers");

}  // namespace

void NoteInterrupt(int sig) {
  g_last_signal.store(sig);
  g_interrupts.fetch_add(1);
}

uint64_t InterruptCount() { return g_interrupts.load(); }

int LastInterruptSignal() { return g_last_signal.load(); }

bool InterruptSignal(int sig) {
  return sig == SIGINT || sig == SIGTERM || sig == SIGHUP || sig == SIGQUIT || sig == SIGKILL;
}

}  // namespace cuco
