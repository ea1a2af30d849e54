#include "tune/progress.hpp"

#include <unistd.h>

#include <cstdio>

#include <fmt/format.h>

namespace hetbench::tune {

ProgressLine::ProgressLine() : tty_(isatty(fileno(stderr)) != 0) {}
ProgressLine::~ProgressLine() { end(); }

void ProgressLine::update(std::size_t done, std::size_t budget, const std::string& best, double left_s) {
  std::string left = "?";
  if (left_s >= 0)
    left = left_s < 60 ? fmt::format("{:.0f}s", left_s)
           : left_s < 3600 ? fmt::format("{}m{:02}s", static_cast<int>(left_s) / 60, static_cast<int>(left_s) % 60)
                           : fmt::format("{:.1f}h", left_s / 3600);
  const std::string line = fmt::format("tune: {}/{} evaluations, best {}, {} left", done, budget, best, left);
  if (tty_) {
    fmt::print(stderr, "\r\033[K{}", line);
    open_ = true;
  } else {
    fmt::print(stderr, "{}\n", line);
  }
  std::fflush(stderr);
}

void ProgressLine::end() {
  if (open_) fmt::print(stderr, "\n");
  open_ = false;
}

}  // namespace hetbench::tune
