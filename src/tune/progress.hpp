// The tuner's progress on stderr: one line rewritten in place on a terminal, plain lines
// otherwise (a log file).
#pragma once

#include <string>

namespace hetbench::tune {

class ProgressLine {
 public:
  ProgressLine();
  ~ProgressLine();
  // done / budget evaluations, the best so far, and the seconds left (negative: unknown).
  void update(std::size_t done, std::size_t budget, const std::string& best, double left_s);
  void end();  // ends the rewritten line

 private:
  bool tty_;
  bool open_ = false;
};

}  // namespace hetbench::tune
