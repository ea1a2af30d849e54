#include "engine/interrupt.hpp"

#include <atomic>
#include <csignal>

namespace hetbench {

namespace {

std::atomic<bool> g_interrupted{false};

extern "C" void on_signal(int sig) {
  g_interrupted = true;
  std::signal(sig, SIG_DFL);  // a second signal ends the process at once
}

}  // namespace

InterruptGuard::InterruptGuard() {
  g_interrupted = false;
  old_int_ = std::signal(SIGINT, on_signal);
  old_term_ = std::signal(SIGTERM, on_signal);
}

InterruptGuard::~InterruptGuard() {
  std::signal(SIGINT, old_int_);
  std::signal(SIGTERM, old_term_);
}

bool interrupted() { return g_interrupted; }

}  // namespace hetbench
