// Ctrl-C and SIGTERM during a sweep: the point being timed stops after its current
// repetition, the sweep ends and keeps every finished point; a second signal kills.
#pragma once

namespace hetbench {

// Catches SIGINT and SIGTERM while it lives; restores the previous handlers after.
class InterruptGuard {
 public:
  InterruptGuard();
  ~InterruptGuard();
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;

 private:
  void (*old_int_)(int);
  void (*old_term_)(int);
};

// Whether a signal arrived since the last InterruptGuard was made.
bool interrupted();

}  // namespace hetbench
