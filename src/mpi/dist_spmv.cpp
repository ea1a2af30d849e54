// Distributed y = A x with A's rows and x in blocks over the ranks: the halo of x (the
// entries a rank's rows read from other ranks' blocks) is found once from the column
// pattern, and each product first exchanges exactly those values (MPI_Alltoallv), then runs
// the ordinary spmv variant on the rank's rows, renumbered to read x as [own | halo].
#include <numeric>

#include "io/matrix_market.hpp"
#include "mpi/dist_common.hpp"
#include "mpi/halo.hpp"
#include "mpi/partition.hpp"
#include "sparse/generators.hpp"
#include "util/random.hpp"

namespace hetbench::mpi {

namespace {

template <class T>
std::unique_ptr<Problem> local_problem(const LocalRows& lr, Precision prec, const std::vector<T>& x) {
  auto prob = std::make_unique<Problem>();
  const CsrMatrix& a = lr.a;
  std::int64_t max_row = 0;
  for (std::int64_t i = 0; i < a.rows; ++i) max_row = std::max<std::int64_t>(max_row, a.rowptr[i + 1] - a.rowptr[i]);
  prob->prec = prec;
  prob->sizes = Sizes{{"rows", a.rows}, {"cols", a.cols}, {"nnz", a.nnz()}, {"max_row", max_row}};
  prob->arrays.push_back(array_of("row_ptr", a.rowptr));
  prob->arrays.push_back(array_of("col", a.colidx));
  prob->arrays.push_back(array_of("val", std::vector<T>(a.values.begin(), a.values.end())));
  prob->arrays.push_back(array_of("x", x));
  prob->arrays.push_back(array_of("y", std::vector<T>(a.rows, T(1)), Access::InOut));
  prob->scalars.push_back({"alpha", false, 1.0});
  prob->scalars.push_back({"beta", false, 0.0});
  for (const auto& [k, v] : prob->sizes) prob->scalars.push_back({k, true, static_cast<double>(v)});
  return prob;
}

}  // namespace

template <class T>
nlohmann::json dist_spmv(const MpiWorld& w, const DistOptions& o, Device& dev, Timing& t, nlohmann::json& info_out) {
  // Every rank reads (or generates, with the seed) the whole matrix and keeps its rows.
  const CsrMatrix a = collective(w, [&] { return read_matrix(o.op, o.matrix, o.seed); });
  too_many_ranks(w, o, std::min(a.rows, a.cols), "rows and columns");
  const BlockPartition rows{a.rows, w.size()}, cols{a.cols, w.size()};
  const int r = w.rank();
  const LocalRows lr = local_rows(a, rows, cols, r);
  const Halo h = plan_halo(lr, cols, r);
  const std::int64_t own = cols.count(r);
  auto xg = [&](std::int64_t j) { return static_cast<T>(random_value(o.seed, kX, j)); };
  std::vector<T> x(own + lr.halo.size(), T(0));
  for (std::int64_t j = 0; j < own; ++j) x[j] = xg(cols.begin(r) + j);
  auto k = collective(w, [&] {
    auto prob = local_problem<T>(lr, o.prec, x);
    const Variant& v = pick_variant("spmv", o.variant, dev, prob->sizes, o.prec);
    return std::make_unique<LocalKernel>(dev, v, std::move(prob));
  });
  std::vector<T> send(h.send_index.size());
  Outputs out;
  for (int i = 0; i < o.reps; ++i)
    timed(t, [&] {
      T* xs = data<T>(k->problem(), "x");
      for (std::size_t s = 0; s < send.size(); ++s) send[s] = xs[h.send_index[s]];
      MPI_Alltoallv(send.data(), h.send_counts.data(), h.send_displs.data(), mpi_type<T>(), xs + own,
                    h.recv_counts.data(), h.recv_displs.data(), mpi_type<T>(), MPI_COMM_WORLD);
      k->upload("x");
      const double kt = k->run();
      out = k->outputs();
      return kt;
    });
  // Against the global matrix and x by global column: a wrong halo cannot pass.
  const T* y = output<T>(out, "y");
  const double u = info(o.prec).u;
  Check c;
  for (std::int64_t i = rows.begin(r); i < rows.begin(r + 1); ++i) {
    long double ref = 0, mag = 0;
    for (std::int32_t q = a.rowptr[i]; q < a.rowptr[i + 1]; ++q) {
      const long double term = static_cast<long double>(static_cast<T>(a.values[q])) * xg(a.colidx[q]);
      ref += term;
      mag += std::fabs(term);
    }
    const double len = a.rowptr[i + 1] - a.rowptr[i] + 2;
    c.add(std::fabs(y[i - rows.begin(r)] - ref), (gamma_n(len, u) + gamma_n(len, kRefU)) * mag);
  }
  info_out = {{"rows", lr.a.rows}, {"halo", lr.halo.size()}, {"halo_from", lr.halo_counts}, {"nnz", lr.a.nnz()}};
  return c.reduce("|y_i - ref_i| <= (gamma_{nnz_i+2} + gamma_{nnz_i+2}(u_ref)) sum_j |a_ij x_j|, per row as on one device");
}

template nlohmann::json dist_spmv<float>(const MpiWorld&, const DistOptions&, Device&, Timing&, nlohmann::json&);
template nlohmann::json dist_spmv<double>(const MpiWorld&, const DistOptions&, Device&, Timing&, nlohmann::json&);

}  // namespace hetbench::mpi
