// A kernel variant described by metadata (src/kernel/metadata.cpp parses it): its source,
// per-point values, scratch buffers and launches.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "hetbench/variant.hpp"

namespace hetbench {

struct ArgSpec {
  std::string name;
  std::string type;  // "", "int", "uint", "long", "ulong"
};

struct LaunchSpec {
  std::string kernel;
  std::vector<ArgSpec> args;
  std::vector<Expr> global, local;
  std::optional<Expr> local_bytes;  // local memory sized at launch (bytes), if any
  std::optional<Expr> when;         // the launch runs only where this is non-zero
};

struct ScratchSpec {
  std::string name;
  Expr count;
  bool is_int = false;
  bool zero = false;  // zeroed once when prepared (counters that kernels reset themselves)
};

class KernelVariant final : public Variant {
 public:
  std::string source_path;
  std::string source_text;  // includes then the kernel file, with #line markers
  std::vector<std::pair<std::string, Expr>> lets;
  std::vector<std::pair<std::string, Expr>> defines;  // extra -D NAME=value, per point
  std::vector<ScratchSpec> scratch;
  std::vector<LaunchSpec> launches;
  std::vector<LaunchSpec> setup;  // run once when prepared, untimed; read inputs only
  // (symbol, input operand): the program's global `symbol` gets the operand's bytes when
  // prepared, untimed (Program::copy_to_symbol: CUDA __constant__ memory).
  std::vector<std::pair<std::string, std::string>> symbols;

  std::unique_ptr<Instance> prepare(Device& dev, const Problem& prob, const BufferMap& bufs,
                                    const ParamValues& pv) const override;
};

// Changes a real scalar argument (alpha, beta) of a prepared kernel variant's launches for
// the runs that follow, without preparing again: the solvers (src/solve) change their
// coefficients every iteration. False when `inst` is not a kernel variant's (code
// variants read their scalars from the problem at run time instead).
bool set_kernel_scalar(Instance& inst, const std::string& name, double value);

}  // namespace hetbench
