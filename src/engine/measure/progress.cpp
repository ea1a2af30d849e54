#include "engine/measure/progress.hpp"

#include <unistd.h>

#include <cstdio>

#include <fmt/format.h>

namespace hetbench {

ProgressLine::ProgressLine(bool quiet_unless_tty)
    : tty_(isatty(fileno(stderr)) != 0), quiet_(quiet_unless_tty && !tty_) {}
ProgressLine::~ProgressLine() { end(); }

void ProgressLine::update(const std::string& line) {
  if (quiet_) return;
  if (tty_) {
    fmt::print(stderr, "\r\033[K{}", line);
    open_ = true;
  } else {
    fmt::print(stderr, "{}\n", line);
  }
  std::fflush(stderr);
}

void ProgressLine::clear() {
  if (open_) fmt::print(stderr, "\r\033[K");
  open_ = false;
}

void ProgressLine::end() {
  if (open_) fmt::print(stderr, "\n");
  open_ = false;
}

std::string format_time_left(double s) {
  if (s < 0) return "?";
  if (s < 60) return fmt::format("{:.0f}s", s);
  if (s < 3600) return fmt::format("{}m{:02}s", static_cast<int>(s) / 60, static_cast<int>(s) % 60);
  return fmt::format("{:.1f}h", s / 3600);
}

std::string points_progress_text(const std::string& label, std::size_t done, std::size_t total, int failures,
                                 double seconds_measuring, std::size_t measured_now) {
  const double left =
      measured_now > 0 ? seconds_measuring / static_cast<double>(measured_now) * static_cast<double>(total - done) : -1;
  return fmt::format("{}: {}/{} points, {} failed, {} left", label, done, total, failures, format_time_left(left));
}

}  // namespace hetbench
