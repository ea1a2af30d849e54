// Progress of long work on stderr (sweeps, runs, tunings): one line rewritten in place on
// a terminal. Off a terminal (a log file) a tuning prints plain lines, while a sweep stays
// quiet: its per-point lines already say as much.
#pragma once

#include <string>

namespace hetbench {

class ProgressLine {
 public:
  // quiet_unless_tty: print nothing when stderr is no terminal.
  explicit ProgressLine(bool quiet_unless_tty = false);
  ~ProgressLine();
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  void update(const std::string& line);
  // Erases the rewritten line, so that a line meant to stay can be printed in its place.
  void clear();
  void end();  // ends the rewritten line, keeping it

 private:
  bool tty_, quiet_;
  bool open_ = false;
};

// Seconds left as "42s", "3m05s" or "1.5h"; "?" when negative (unknown).
std::string format_time_left(double seconds);

// "LABEL: done/total points, N failed, T left" for run, sweep, replay and the default
// suite (LABEL: the experiment's name): the time left extrapolates the seconds per point
// measured so far in this session (0 measured: unknown).
std::string points_progress_text(const std::string& label, std::size_t done, std::size_t total, int failures,
                                 double seconds_measuring, std::size_t measured_now);

}  // namespace hetbench
