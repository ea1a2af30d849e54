#include "mpi/shard.hpp"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "engine/runner.hpp"
#include "hetbench/record.hpp"

namespace hetbench::mpi {

namespace {

std::string kind_of(const std::string& device_id) { return device_id.substr(0, device_id.find(':')); }

nlohmann::json identity(const Plan& plan, std::size_t i, std::uint64_t seed) {
  const auto& p = plan.points[i];
  auto j = to_json(start_record(static_cast<int>(i), plan.runs[p.run], p, seed));
  nlohmann::json id;
  for (const char* k : {"point", "op", "variant", "variant_id", "device", "precision", "sizes", "params"})
    if (j.contains(k)) id[k] = j[k];
  return id;
}

}  // namespace

std::vector<std::vector<std::size_t>> assign_points(const Plan& plan, const std::vector<std::size_t>& todo,
                                                    const std::vector<RankPlace>& ranks) {
  // Ordinals per kind, in the order the sweep first names each device.
  std::map<std::string, int> ordinal, count;
  for (const auto& run : plan.runs)
    for (const auto& d : run.devices)
      if (!ordinal.count(d->id())) ordinal[d->id()] = count[kind_of(d->id())]++;
  std::vector<std::vector<std::size_t>> out(ranks.size());
  std::map<std::string, std::size_t> dealt;
  for (std::size_t i : todo) {
    const auto& p = plan.points[i];
    const std::string id = plan.runs[p.run].devices[p.device]->id();
    const int j = ordinal[id], n = count[kind_of(id)];
    std::vector<std::size_t> serving;
    for (std::size_t r = 0; r < ranks.size(); ++r) {
      const int m = std::min(n, ranks[r].local_size);
      if (j % m == ranks[r].local_rank % m) serving.push_back(r);
    }
    out[serving[dealt[id]++ % serving.size()]].push_back(i);
  }
  return out;
}

std::string point_name(const Plan& plan, std::size_t index, std::uint64_t seed) {
  const auto id = identity(plan, index, seed);
  return fmt::format("point {} ({} {} on {}, {}, {})", index, id.value("op", ""), id.value("variant", ""),
                     id.value("device", ""), id.value("precision", ""), id.value("sizes", nlohmann::json()).dump());
}

std::uint64_t plan_digest(const Plan& plan, std::uint64_t seed) {
  std::uint64_t h = 1469598103934665603ull;  // FNV-1a
  for (std::size_t i = 0; i < plan.points.size(); ++i)
    for (unsigned char c : identity(plan, i, seed).dump()) h = (h ^ c) * 1099511628211ull;
  return h;
}

}  // namespace hetbench::mpi
