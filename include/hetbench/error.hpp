// Errors that reach the user: one sentence naming what was wrong and where.
#pragma once

#include <stdexcept>
#include <string>

namespace hetbench {

// Bad input or an environment problem. The CLI prints what() on stderr and exits non-zero.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// An input file (a --matrix file) that cannot be read or is malformed, as "path:line: why".
// With several inputs the plan records the points that would have used it as errors
// (stage "input") and the others are measured; a lone input stops the run as bad input.
// Generators (gen:...) throw plain Error: their arguments are command-line input.
class InputError : public Error {
 public:
  using Error::Error;
};

// A failure that belongs to one measurement point (kernel build, launch, out of memory):
// the runner records the point as an error and carries on with the others.
class PointError : public Error {
 public:
  using Error::Error;
};

// A point's kernel could not be built for its parameters (compile error, a define that
// does not evaluate, no such entry point): recorded with error_stage "build", so that
// exports (T4's "compile") tell it from a failure while running without reading messages.
class BuildError : public PointError {
 public:
  using PointError::PointError;
};

}  // namespace hetbench
