#include "search/stop_signals.h"

#include "launch/slurm_launcher.h"

#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>

#include "launch/interrupts.h"
#include "launch/subprocess.h"

namespace cuco {
namespace {

std::atomic<bool> g_stop{false};
std::atomic<bool> g_abort{false};
std::atomic<int> g_in_flight{0};
bool g_tty = false;
const char* g_prefix = "cuco evolve: ";  // a string literal (StopSignals' argument)

static_assert(std::atomic<bool>::is_always_lock_free && std::atomic<int>::is_always_lock_free,
              "the signal handler needs lock-free atomics");

// Async-signal-safe output: write(2) of literal pieces and a number.
void Say(const char* s) {
  ssize_t ignored = ::write(STDERR_FILENO, s, std::strlen(s));
  (void)ignored;
}

void SayNumber(int n) {
  char buf[16];
  int i = sizeof buf;
  buf[--i] = '\0';
  if (n <= 0) buf[--i] = '0';
  for (; n > 0 && i > 0; n /= 10) buf[--i] = static_cast<char>('0' + n % 10);
  Say(buf + i);
}

void OnSignal(int sig) {
  const int saved_errno = errno;
  NoteInterrupt(sig);  // what is in flight now is not judged (launch/interrupts.h)
  if (g_tty) Say("\n");
  if (!g_stop.exchange(true)) {
    Say(g_prefix);
    Say("stopping: ");
    SayNumber(g_in_flight.load());
    Say(" candidates in flight; Ctrl-C again to abort them\n");
  } else if (!g_abort.exchange(true)) {
    Say(g_prefix);
    Say("aborting the ");
    SayNumber(g_in_flight.load());
    Say(" candidates in flight; they stay pending and --resume evaluates them again\n");
    SignalAllRunningGroups(SIGKILL);
    std::signal(SIGINT, SIG_DFL);
    std::signal(SIGTERM, SIG_DFL);
  }
  errno = saved_errno;
}

}  // namespace

StopSignals::StopSignals(const char* prefix) {
  g_prefix = prefix;
  g_stop = false;
  g_abort = false;
  g_in_flight = 0;
  g_tty = ::isatty(STDERR_FILENO) != 0;
  struct sigaction sa {};
  sa.sa_handler = OnSignal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  killer_ = std::thread([this] {
    while (!done_.load()) {
      if (g_abort.load()) {
        SignalAllRunningGroups(SIGKILL);
        StopSlurmJobs();  // scancel, by id, the Slurm jobs of the evaluations in flight
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  });
}

void StopSignals::AbortNow() {
  g_stop = true;
  g_abort = true;
}

StopSignals::~StopSignals() {
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
  done_ = true;
  killer_.join();
}

const std::atomic<bool>* StopSignals::stop() const { return &g_stop; }
const std::atomic<bool>* StopSignals::abort() const { return &g_abort; }
void StopSignals::SetInFlight(int n) { g_in_flight = n; }

}  // namespace cuco
