// Which rank measures which point of a sharded sweep (docs/mpi.md, "rank -> device"):
// a rank with local rank l among L ranks on its host serves the devices of each kind
// (host, opencl, cuda) whose ordinal j among the sweep's devices of that kind, n of them,
// satisfies j mod m == l mod m, m = min(n, L): one device per rank when there are at least
// as many ranks as devices on a host, several per rank otherwise, and ranks beyond the
// device count share one. A device's points are dealt round-robin over the ranks serving it.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "engine/plan/plan.hpp"

namespace hetbench::mpi {

struct RankPlace {
  int local_rank = 0;
  int local_size = 1;
};

// Per rank, the indices (into plan.points) it measures, from the points in `todo`.
std::vector<std::vector<std::size_t>> assign_points(const Plan& plan, const std::vector<std::size_t>& todo,
                                                    const std::vector<RankPlace>& ranks);

// What a point is, for the messages that name it: "point 7 (dot loop on host, D, [1000])".
std::string point_name(const Plan& plan, std::size_t index, std::uint64_t seed);

// A 64-bit digest of the points' identities: ranks that planned differently (other devices)
// are told apart before anything is measured.
std::uint64_t plan_digest(const Plan& plan, std::uint64_t seed);

}  // namespace hetbench::mpi
