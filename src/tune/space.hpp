// A tuning space: the axes of a variant's parameters and the configurations that satisfy
// its constraints. Pure (no device, no engine), so the strategies can be tested with
// synthetic objectives.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

namespace hetbench::tune {

// One parameter's axis: its values in increasing order; `def` indexes the metadata
// default, or is -1 when the default lies outside the tuned values.
struct Axis {
  std::string name;
  std::vector<long long> values;
  int def = -1;
};

// A configuration: one value index per axis.
using Config = std::vector<int>;

class Space {
 public:
  Space(std::vector<Axis> axes, std::vector<Config> configs);
  std::size_t size() const { return configs_.size(); }
  const std::vector<Axis>& axes() const { return axes_; }
  const Config& config(std::size_t i) const { return configs_[i]; }
  // The index of a configuration, or size() when it is not in the space (pruned).
  std::size_t find(const Config& c) const;
  // Configurations one axis step away (index +-1), in the space: simulated annealing.
  std::vector<std::size_t> neighbours(std::size_t i) const;
  // Configurations that differ on exactly one axis, by any amount: the genetic
  // algorithm's mutation (Kernel Tuner's Hamming neighbours).
  std::vector<std::size_t> hamming_neighbours(std::size_t i) const;
  // Whether configuration a is simpler than b: fewer parameters away from their metadata
  // default, then smaller values compared axis by axis in axis order.
  bool simpler(std::size_t a, std::size_t b) const;
  std::map<std::string, long long> values(std::size_t i) const;

 private:
  std::vector<Axis> axes_;
  std::vector<Config> configs_;
  std::map<Config, std::size_t> index_;
  int off_default(std::size_t i) const;
};

}  // namespace hetbench::tune
