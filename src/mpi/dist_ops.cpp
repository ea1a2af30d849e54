#include "mpi/dist_ops.hpp"

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>

#include <fmt/format.h>

#include "hetbench/error.hpp"
#include "io/matrix_market.hpp"
#include "mpi/dist_common.hpp"
#include "mpi/local_kernel.hpp"
#include "mpi/partition.hpp"
#include "mpi/world.hpp"
#include "sparse/generators.hpp"
#include "util/random.hpp"

namespace hetbench::mpi {

namespace {

template <class T>
std::unique_ptr<LocalKernel> vector_kernel(const DistOptions& o, Device& dev, const BlockPartition& part, int r) {
  const Sizes s{{"n", part.count(r)}};
  auto prob = find_op(o.op).make_problem(s, o.prec, o.seed);
  for (auto [name, stream] : {std::pair{"x", kX}, std::pair{"y", kY}}) {
    T* v = data<T>(*prob, name);
    for (std::int64_t i = 0; i < part.count(r); ++i) v[i] = static_cast<T>(random_value(o.seed, stream, part.begin(r) + i));
  }
  const Variant& v = pick_variant(o.op, o.variant, dev, s, o.prec);
  return std::make_unique<LocalKernel>(dev, v, std::move(prob));
}

template <class T>
nlohmann::json dist_dot(const MpiWorld& w, const DistOptions& o, Device& dev, Timing& t) {
  too_many_ranks(w, o, o.n, "elements");
  const BlockPartition part{o.n, w.size()};
  auto k = collective(w, [&] { return vector_kernel<T>(o, dev, part, w.rank()); });
  T sum = 0;
  for (int i = 0; i < o.reps; ++i)
    timed(t, [&] {
      const double kt = k->run();
      T partial = output<T>(k->outputs(), "result")[0];
      MPI_Allreduce(&partial, &sum, 1, mpi_type<T>(), MPI_SUM, MPI_COMM_WORLD);
      return kt;
    });
  const T* x = data<T>(k->problem(), "x");
  const T* y = data<T>(k->problem(), "y");
  long double ref[2] = {0, 0};  // sum x_i y_i, sum |x_i y_i|
  for (std::int64_t i = 0; i < part.count(w.rank()); ++i) {
    ref[0] += static_cast<long double>(x[i]) * y[i];
    ref[1] += std::fabs(static_cast<long double>(x[i]) * y[i]);
  }
  MPI_Allreduce(MPI_IN_PLACE, ref, 2, MPI_LONG_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  // Each product meets one multiply, at most count-1 adds on its rank and P-1 in the allreduce.
  const double m = static_cast<double>(part.count(0) + w.size() - 1);
  Check c;
  if (w.rank() == 0)
    c.add(std::fabs(static_cast<long double>(sum) - ref[0]),
          (gamma_n(m, info(o.prec).u) + gamma_n(static_cast<double>(o.n) + w.size(), kRefU)) * ref[1]);
  return c.reduce("|s - ref| <= (gamma_{ceil(n/P)+P-1} + gamma_{n+P}(u_ref)) sum|x_i y_i|");
}

template <class T>
nlohmann::json dist_axpy(const MpiWorld& w, const DistOptions& o, Device& dev, Timing& t) {
  too_many_ranks(w, o, o.n, "elements");
  const BlockPartition part{o.n, w.size()};
  auto k = collective(w, [&] { return vector_kernel<T>(o, dev, part, w.rank()); });
  Outputs out;
  for (int i = 0; i < o.reps; ++i)
    timed(t, [&] {
      const double kt = k->run();
      out = k->outputs();
      return kt;
    });
  const T* x = data<T>(k->problem(), "x");
  const T* y = data<T>(k->problem(), "y");
  const T* r = output<T>(out, "r");
  const long double a = static_cast<T>(k->problem().scalar("alpha")->value);
  Check c;
  for (std::int64_t i = 0; i < part.count(w.rank()); ++i) {
    const long double ax = a * x[i];
    c.add(std::fabs(r[i] - (ax + y[i])), (gamma_n(2, info(o.prec).u) + 2 * kRefU) * (std::fabs(ax) + std::fabs(y[i])));
  }
  return c.reduce("|r_i - ref_i| <= (gamma_2 + 2u_ref)(|a x_i| + |y_i|), per element as on one device");
}

}  // namespace

CsrMatrix read_matrix(const std::string& op, const std::string& token, std::uint64_t seed) {
  if (token.empty()) throw Error(fmt::format("dist {} needs a matrix: --matrix FILE.mtx or gen:NAME:k=v,...", op));
  return token.rfind("gen:", 0) == 0 ? generate_matrix(token, seed) : read_matrix_market(token);
}

bool is_solver(const std::string& op) { return op == "cg" || op == "bicgstab"; }

nlohmann::json run_distributed(const DistOptions& o) {
  MpiWorld w;
  if (o.prec != Precision::S && o.prec != Precision::D)
    throw AgreedError(fmt::format("dist {}: precision {}: only S and D are distributed yet", o.op, name(o.prec)));
  if (o.reps < 1) throw AgreedError(fmt::format("dist {}: --reps {}: at least 1", o.op, o.reps));
  const auto dev = collective(w, [&] { return rank_device(o.device, w.local_rank()); });
  if (is_solver(o.op)) {
    auto r = dist_solve(w, o, *dev);
    if (r.is_null()) return r;
    r["ranks"] = w.size();
    r["op"] = "dist_" + o.op;
    r["precision"] = name(o.prec);
    r["seed"] = o.seed;
    if (o.record) r["recorded_in"] = record_distributed(o, r, dev->info());
    return r;
  }
  Timing t;
  nlohmann::json extra = nlohmann::json::object(), val;
  auto go = [&]<class T>() {
    if (o.op == "dot") val = dist_dot<T>(w, o, *dev, t);
    else if (o.op == "axpy") val = dist_axpy<T>(w, o, *dev, t);
    else if (o.op == "spmv") val = dist_spmv<T>(w, o, *dev, t, extra);
    else throw AgreedError(fmt::format("dist: unknown op '{}': dot, axpy or spmv", o.op));
  };
  if (o.prec == Precision::S) go.operator()<float>();
  else go.operator()<double>();
  nlohmann::json me = {{"rank", w.rank()}, {"host", w.host()}, {"device", dev->id()}};
  me.update(extra);
  const auto all = w.gather(me.dump());
  if (w.rank() != 0) return nullptr;
  nlohmann::json ranks = nlohmann::json::array();
  for (const auto& s : all) ranks.push_back(nlohmann::json::parse(s));
  nlohmann::json j = {{"op", "dist_" + o.op}, {"precision", name(o.prec)}, {"ranks", w.size()}, {"seed", o.seed},
                      {"validation", val}, {"timing", t.json()}, {"per_rank", ranks}};
  if (o.op == "spmv") j["matrix"] = o.matrix;
  else j["n"] = o.n;
  if (o.record) j["recorded_in"] = record_distributed(o, j, dev->info());
  return j;
}

}  // namespace hetbench::mpi
