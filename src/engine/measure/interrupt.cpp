#include "engine/measure/interrupt.hpp"

#include <map>

#include <semaphore.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <ctime>

namespace hetbench {

namespace {

std::atomic<bool> g_interrupted{false};
std::atomic<int> g_signals{0};
static_assert(std::atomic<int>::is_always_lock_free, "the handler counts signals");
// The handler's way to wake the watchdog: sem_post is async-signal-safe, a condition
// variable is not.
sem_t g_wake;
std::once_flag g_wake_init;

// The first signal asks the work to stop; the second has the watchdog say the last words
// (record the experiment interrupted) at once and end the process, so that a Ctrl-C
// pressed twice never leaves an experiment marked running; a third ends it outright.
extern "C" void on_signal(int) {
  g_interrupted = true;
  if (g_signals.fetch_add(1) + 1 >= 3) _exit(kInterruptedExit);
  sem_post(&g_wake);
}

std::timed_mutex g_hooks_m;
std::map<int, std::function<void()>> g_hooks;
int g_next_hook = 0;

// Where the stuck thread holds the hooks' lock (it never should for long), they are left
// to the records they keep for the next start.
void run_forced_exit_hooks() {
  std::unique_lock l(g_hooks_m, std::chrono::seconds(1));
  if (!l.owns_lock()) return;
  for (auto& [h, undo] : g_hooks) {
    try {
      undo();
    } catch (...) {  // the process ends regardless; the others still run
    }
  }
}

}  // namespace

int add_forced_exit_hook(std::function<void()> undo) {
  std::lock_guard l(g_hooks_m);
  g_hooks[g_next_hook] = std::move(undo);
  return g_next_hook++;
}

void remove_forced_exit_hook(int handle) {
  std::lock_guard l(g_hooks_m);
  g_hooks.erase(handle);
}

InterruptGuard::InterruptGuard(std::function<void()> last_words) : last_words_(std::move(last_words)) {
  std::call_once(g_wake_init, [] { sem_init(&g_wake, 0, 0); });
  while (sem_trywait(&g_wake) == 0) {
  }
  g_interrupted = false;
  g_signals = 0;
  struct sigaction sa = {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  for (std::size_t i = 0; i < std::size(kSignals); ++i) sigaction(kSignals[i], &sa, &old_[i]);
  watchdog_ = std::thread([this] { watch(); });
}

InterruptGuard::~InterruptGuard() {
  {
    std::lock_guard<std::mutex> l(m_);
    leaving_ = true;
  }
  sem_post(&g_wake);
  watchdog_.join();
  for (std::size_t i = 0; i < std::size(kSignals); ++i) sigaction(kSignals[i], &old_[i], nullptr);
}

void InterruptGuard::watch() {
  auto leaving = [this] {
    std::lock_guard<std::mutex> l(m_);
    return leaving_;
  };
  while (sem_wait(&g_wake) != 0 && errno == EINTR) {
  }
  if (leaving()) return;
  // A signal: the work has kInterruptGraceS to stop and leave the guard's scope; a second
  // signal (or the guard's end) wakes the watchdog before that.
  timespec deadline{};
  clock_gettime(CLOCK_REALTIME, &deadline);
  deadline.tv_sec += static_cast<time_t>(kInterruptGraceS);
  for (;;) {
    const int r = sem_timedwait(&g_wake, &deadline);
    if (leaving()) return;
    if (r == 0 && g_signals >= 2) break;
    if (r != 0 && errno == ETIMEDOUT) break;
  }
  if (last_words_) {
    try {
      last_words_();
    } catch (...) {  // the process ends regardless: what was recorded before stays
    }
  }
  run_forced_exit_hooks();
  std::_Exit(kInterruptedExit);
}

bool interrupted() { return g_interrupted; }

void close_when_ready(std::timed_mutex& books, const std::function<bool()>& ready, const std::function<bool()>& done,
                      const std::function<void()>& close) {
  for (int wait = 0; wait < 200; ++wait) {
    {
      std::unique_lock<std::timed_mutex> l(books, std::chrono::seconds(1));
      if (!l.owns_lock() || done()) return;
      if (ready()) {
        close();
        return;
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

}  // namespace hetbench
