// A rank's share of a distributed op run through an ordinary op variant on the rank's
// device (docs/mpi.md): the problem's operands uploaded once, single arrays uploaded again
// when the rank changes them (the halo of x), and the outputs read back after each run.
#pragma once

#include <memory>
#include <string>

#include "engine/measure/measure.hpp"
#include "hetbench/device.hpp"
#include "hetbench/op.hpp"
#include "hetbench/variant.hpp"

namespace hetbench::mpi {

// The device of this rank: the local_rank-th (modulo their count) of those `selector`
// names (resolve_devices). Throws Error naming the selector when it names none.
std::shared_ptr<Device> rank_device(const std::string& selector, int local_rank);

// `name`, or, when empty, the first of the op's kernel and host variants that runs on the
// device in this precision with its default parameters. Throws Error saying why not.
const Variant& pick_variant(const std::string& op, const std::string& name, const Device& dev, const Sizes& s,
                            Precision p);

class LocalKernel {
 public:
  LocalKernel(Device& dev, const Variant& v, std::unique_ptr<Problem> prob);
  Problem& problem() { return *prob_; }
  // Uploads the problem's host copy of array `name` again.
  void upload(const std::string& name);
  // One execution, the outputs poisoned before it; returns its seconds (device timer).
  double run();
  Outputs outputs();

 private:
  Device& dev_;
  std::unique_ptr<Problem> prob_;
  DeviceBuffers bufs_;
  std::unique_ptr<Instance> inst_;
};

// An array operand of n elements of T holding `data`.
template <class T>
ArrayOperand array_of(const std::string& name, const std::vector<T>& data, Access access = Access::In) {
  ArrayOperand a{name, std::is_integral_v<T>, access, data.size(), sizeof(T), {}};
  a.host.resize(data.size() * sizeof(T));
  std::memcpy(a.host.data(), data.data(), a.host.size());
  return a;
}

}  // namespace hetbench::mpi
