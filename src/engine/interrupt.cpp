#include "engine/interrupt.hpp"

#include <semaphore.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>

namespace hetbench {

namespace {

std::atomic<bool> g_interrupted{false};
// The handler's way to wake the watchdog: sem_post is async-signal-safe, a condition
// variable is not.
sem_t g_wake;
std::once_flag g_wake_init;

extern "C" void on_signal(int) {
  g_interrupted = true;
  sem_post(&g_wake);
}

}  // namespace

InterruptGuard::InterruptGuard(std::function<void()> last_words) : last_words_(std::move(last_words)) {
  std::call_once(g_wake_init, [] { sem_init(&g_wake, 0, 0); });
  while (sem_trywait(&g_wake) == 0) {
  }
  g_interrupted = false;
  struct sigaction sa = {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  // SA_RESETHAND: the handler runs once, so a second signal ends the process at once.
  sa.sa_flags = SA_RESETHAND | SA_RESTART;
  for (std::size_t i = 0; i < std::size(kSignals); ++i) sigaction(kSignals[i], &sa, &old_[i]);
  watchdog_ = std::thread([this] { watch(); });
}

InterruptGuard::~InterruptGuard() {
  {
    std::lock_guard<std::mutex> l(m_);
    leaving_ = true;
  }
  cv_.notify_all();
  sem_post(&g_wake);
  watchdog_.join();
  for (std::size_t i = 0; i < std::size(kSignals); ++i) sigaction(kSignals[i], &old_[i], nullptr);
}

void InterruptGuard::watch() {
  while (sem_wait(&g_wake) != 0 && errno == EINTR) {
  }
  std::unique_lock<std::mutex> l(m_);
  if (leaving_) return;
  // A signal: the work has kInterruptGraceS to stop and leave the guard's scope.
  if (cv_.wait_for(l, std::chrono::duration<double>(kInterruptGraceS), [this] { return leaving_; })) return;
  l.unlock();
  if (last_words_) {
    try {
      last_words_();
    } catch (...) {  // the process ends regardless: what was recorded before stays
    }
  }
  std::_Exit(kInterruptedExit);
}

bool interrupted() { return g_interrupted; }

}  // namespace hetbench
