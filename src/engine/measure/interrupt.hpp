// Ctrl-C, SIGTERM and SIGHUP during a sweep: the point being timed stops after its current
// repetition, the sweep ends and keeps every finished point; a second signal ends the
// process at once after the guard's last words (a third, without them).
// A point that cannot stop (a kernel that never returns holds its thread inside the driver)
// must not keep the process alive: a watchdog thread ends it kInterruptGraceS after the
// first signal, once the guard's last words (record the running point as interrupted, mark
// the experiment interrupted) have run. docs/isolation.md states the grace period.
#pragma once

#include <csignal>
#include <functional>
#include <mutex>
#include <thread>

namespace hetbench {

// Seconds between the first signal and the end of a process whose work has not stopped.
constexpr double kInterruptGraceS = 5;
// The exit status of an interrupted command (as a shell reports Ctrl-C).
constexpr int kInterruptedExit = 130;

// Catches SIGINT, SIGTERM and SIGHUP while it lives; restores the previous handlers after.
// `last_words` runs on the watchdog thread when the grace period ends with the guard still
// alive, or at a second signal, just before the process exits with kInterruptedExit; it must not wait on the
// stuck thread for long (take its locks with a time limit).
class InterruptGuard {
 public:
  explicit InterruptGuard(std::function<void()> last_words = {});
  ~InterruptGuard();
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;

 private:
  static constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP};
  std::function<void()> last_words_;
  struct sigaction old_[std::size(kSignals)];
  std::mutex m_;
  bool leaving_ = false;
  std::thread watchdog_;
  void watch();
};

// Work to undo before the watchdog's forced exit (after the guard's last words), such as
// clocks locked for the experiment: add returns a handle for remove. A process ended by a
// third signal or SIGKILL runs none; what must survive that keeps a record of its own.
int add_forced_exit_hook(std::function<void()> undo);
void remove_forced_exit_hook(int handle);

// Whether a signal arrived since the last InterruptGuard was made.
bool interrupted();

// The usual last words of a command that records an experiment: take `books` (at most 1 s:
// the stuck thread may hold it), wait while the experiment folder is still being made
// (`ready()` false: a signal can come in the milliseconds that takes; waited for up to
// 2 s), then run `close()` under `books` unless `done()` says the command closed it itself.
void close_when_ready(std::timed_mutex& books, const std::function<bool()>& ready, const std::function<bool()>& done,
                      const std::function<void()>& close);

}  // namespace hetbench
