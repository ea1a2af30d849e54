// What the distributed ops share (mpi/dist_ops.cpp, mpi/dist_spmv.cpp): the seeded global
// operands, timing over ranks, validation summed over ranks, and setup errors agreed on.
#pragma once

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cmath>

#include <fmt/format.h>

#include "hetbench/error.hpp"
#include "hetbench/op.hpp"
#include "mpi/dist_ops.hpp"
#include "mpi/local_kernel.hpp"
#include "mpi/world.hpp"
#include "sparse/csr.hpp"

namespace hetbench::mpi {

// The streams of the global operands: element i of x is random_value(seed, kX, i) on
// every partition, so results do not depend on the rank count.
inline constexpr std::uint64_t kX = 101, kY = 102;
// The reference's unit roundoff: long double (x87, 64-bit significand).
inline constexpr double kRefU = 0x1p-64;

template <class T>
MPI_Datatype mpi_type() {
  return std::is_same_v<T, float> ? MPI_FLOAT : MPI_DOUBLE;
}

template <class T>
T* data(Problem& p, const std::string& name) {
  return reinterpret_cast<T*>(const_cast<ArrayOperand&>(p.array(name)).host.data());
}

template <class T>
const T* output(const Outputs& out, const std::string& name) {
  return reinterpret_cast<const T*>(out.at(name).data());
}

struct Timing {
  std::vector<double> wall, kernel;  // per repetition, the slowest rank's
  nlohmann::json json() const {
    auto median = [](std::vector<double> v) {
      std::sort(v.begin(), v.end());
      return v.empty() ? 0.0 : v[v.size() / 2];
    };
    return {{"reps", wall.size()}, {"median_s", median(wall)}, {"kernel_median_s", median(kernel)}, {"samples", wall}};
  }
};

// One repetition: all ranks start together; the time is the slowest rank's.
template <class F>
void timed(Timing& t, F&& rep) {
  MPI_Barrier(MPI_COMM_WORLD);
  const auto t0 = std::chrono::steady_clock::now();
  double k = rep();
  double w = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  MPI_Allreduce(MPI_IN_PLACE, &w, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, &k, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  t.wall.push_back(w);
  t.kernel.push_back(k);
}

// Validation summed over ranks: the worst error/bound ratio and the counts.
struct Check {
  double max_ratio = 0;
  long long checked = 0, over = 0, nan = 0;
  void add(long double err, long double bound) {
    ++checked;
    if (std::isnan(static_cast<double>(err))) ++nan;
    const double r = bound > 0 ? static_cast<double>(err / bound) : (err == 0 ? 0.0 : INFINITY);
    max_ratio = std::max(max_ratio, r);
    over += r > 1;
  }
  nlohmann::json reduce(const std::string& bound) {
    MPI_Allreduce(MPI_IN_PLACE, &max_ratio, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    long long c[3] = {checked, over, nan};
    MPI_Allreduce(MPI_IN_PLACE, c, 3, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    return {{"passed", c[1] == 0 && c[2] == 0}, {"max_ratio", max_ratio}, {"checked", c[0]}, {"over_bound", c[1]},
            {"nan", c[2]}, {"bound", bound}};
  }
};

inline void too_many_ranks(const MpiWorld& w, const DistOptions& o, std::int64_t n, const char* what) {
  if (n < w.size())
    throw AgreedError(fmt::format("dist {}: {} ranks for {} {}: every rank needs at least one; run with at most {} ranks",
                            o.op, w.size(), n, what, std::max<std::int64_t>(n, 1)));
}

// Runs f (a rank's own setup: device, problem, kernel) and agrees on the outcome: when it
// threw Error at any rank, every rank throws one message naming each failing rank, so that
// no rank waits in a collective for one that left.
template <class F>
auto collective(const MpiWorld& w, F&& f) -> decltype(f()) {
  std::string err;
  decltype(f()) out{};
  try {
    out = f();
  } catch (const Error& e) {
    err = e.what();
  }
  std::string all;
  const auto errs = w.gather(err);
  // Bad input every rank read alike is said once.
  const bool alike = !errs.empty() && std::all_of(errs.begin(), errs.end(), [&](const auto& e) { return e == errs[0]; });
  if (alike && errs.size() > 1 && !errs[0].empty()) all = fmt::format("every rank ({}): {}", errs.size(), errs[0]);
  else
    for (std::size_t r = 0; r < errs.size(); ++r)
      if (!errs[r].empty()) all += fmt::format("{}rank {}: {}", all.empty() ? "" : "; ", r, errs[r]);
  all = w.broadcast(all);
  if (!all.empty()) throw AgreedError(all);
  return out;
}

// Every rank reads (or generates, with the seed) the whole matrix.
CsrMatrix read_matrix(const std::string& op, const std::string& token, std::uint64_t seed);

// cg, bicgstab (dist_solve.cpp): rank 0's record, null elsewhere.
nlohmann::json dist_solve(const MpiWorld& w, const DistOptions& o, Device& dev);

template <class T>
nlohmann::json dist_spmv(const MpiWorld& w, const DistOptions& o, Device& dev, Timing& t, nlohmann::json& info_out);

}  // namespace hetbench::mpi
