#include "tune/space.hpp"

#include "hetbench/error.hpp"

namespace hetbench::tune {

Space::Space(std::vector<Axis> axes, std::vector<Config> configs) : axes_(std::move(axes)), configs_(std::move(configs)) {
  for (std::size_t i = 0; i < configs_.size(); ++i) {
    if (configs_[i].size() != axes_.size()) throw Error("tuning space: a configuration does not match the axes");
    for (std::size_t a = 0; a < axes_.size(); ++a)
      if (configs_[i][a] < 0 || configs_[i][a] >= static_cast<int>(axes_[a].values.size()))
        throw Error("tuning space: a configuration lies outside an axis");
    if (!index_.emplace(configs_[i], i).second) throw Error("tuning space: a configuration appears twice");
  }
}

std::size_t Space::find(const Config& c) const {
  auto it = index_.find(c);
  return it == index_.end() ? size() : it->second;
}

std::vector<std::size_t> Space::neighbours(std::size_t i) const {
  std::vector<std::size_t> out;
  for (std::size_t a = 0; a < axes_.size(); ++a)
    for (int step : {-1, 1}) {
      Config c = configs_[i];
      c[a] += step;
      if (auto j = find(c); j != size()) out.push_back(j);
    }
  return out;
}

std::vector<std::size_t> Space::hamming_neighbours(std::size_t i) const {
  std::vector<std::size_t> out;
  for (std::size_t a = 0; a < axes_.size(); ++a)
    for (int v = 0; v < static_cast<int>(axes_[a].values.size()); ++v) {
      if (v == configs_[i][a]) continue;
      Config c = configs_[i];
      c[a] = v;
      if (auto j = find(c); j != size()) out.push_back(j);
    }
  return out;
}

int Space::off_default(std::size_t i) const {
  int n = 0;
  for (std::size_t a = 0; a < axes_.size(); ++a) n += configs_[i][a] != axes_[a].def;
  return n;
}

bool Space::simpler(std::size_t a, std::size_t b) const {
  const int oa = off_default(a), ob = off_default(b);
  if (oa != ob) return oa < ob;
  // Axis values are increasing, so comparing indices compares values.
  return configs_[a] < configs_[b];
}

std::map<std::string, long long> Space::values(std::size_t i) const {
  std::map<std::string, long long> out;
  for (std::size_t a = 0; a < axes_.size(); ++a) out[axes_[a].name] = axes_[a].values[configs_[i][a]];
  return out;
}

}  // namespace hetbench::tune
