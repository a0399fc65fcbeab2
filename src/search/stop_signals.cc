#include "search/stop_signals.h"

#include "launch/slurm_launcher.h"

#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstddef>

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

// Async-signal-safe output: a line composed in a stack buffer from literal pieces and a number,
// then written by one write(2), so a reader of stderr never sees half of it.
class Line {
 public:
  Line& Add(const char* s) {
    for (; *s != '\0' && size_ < sizeof buf_; ++s) buf_[size_++] = *s;
    return *this;
  }
  Line& AddNumber(int n) {
    char digits[16];
    int i = sizeof digits;
    digits[--i] = '\0';
    if (n <= 0) digits[--i] = '0';
    for (; n > 0 && i > 0; n /= 10) digits[--i] = static_cast<char>('0' + n % 10);
    return Add(digits + i);
  }
  void Write() const {
    ssize_t ignored = ::write(STDERR_FILENO, buf_, size_);
    (void)ignored;
  }

 private:
  char buf_[256];
  std::size_t size_ = 0;
};

void OnSignal(int sig) {
  const int saved_errno = errno;
  NoteInterrupt(sig);  // what is in flight now is not judged (launch/interrupts.h)
  Line line;
  if (g_tty) line.Add("\n");
  if (!g_stop.exchange(true)) {
    line.Add(g_prefix).Add("stopping: ").AddNumber(g_in_flight.load());
    line.Add(" candidates in flight; Ctrl-C again to abort them\n").Write();
  } else if (!g_abort.exchange(true)) {
    line.Add(g_prefix).Add("aborting the ").AddNumber(g_in_flight.load());
    line.Add(" candidates in flight; they stay pending and --resume evaluates them again\n").Write();
    SignalAllRunningGroups(SIGKILL);
    std::signal(SIGINT, SIG_DFL);
    std::signal(SIGTERM, SIG_DFL);
  } else if (g_tty) {
    line.Write();
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
