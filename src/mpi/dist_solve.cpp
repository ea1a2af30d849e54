// `hetbench dist cg|bicgstab` (docs/mpi.md, "Distributed solvers"): the Krylov methods of
// src/solve/krylov.cpp on DistSolverOps, timed as `solve` times them (once with every
// kernel, the halo and the reductions timed, once only issued), the solution gathered at
// rank 0 and checked against the true-residual bound of one device.
#include <fstream>

#include "mpi/dist_common.hpp"
#include "mpi/dist_solver_ops.hpp"
#include "mpi/nccl_transport.hpp"
#include "solve/solve_run.hpp"
#include "solve/true_residual.hpp"
#include "solve/variant_ops.hpp"
#include "util/random.hpp"

namespace hetbench::mpi {

namespace {

// The right-hand side `solve` uses: seeded random values by global row.
constexpr std::uint64_t kRhsStream = 21;

CsrMatrix checked_matrix(const DistOptions& o) {
  CsrMatrix a = read_matrix(o.op, o.matrix, o.seed);
  if (a.rows != a.cols)
    throw Error(fmt::format("{}: the solvers need a square matrix, this one is {} x {}", o.matrix, a.rows, a.cols));
  if (a.rows < 1) throw Error(fmt::format("{}: the matrix has no rows", o.matrix));
  if (o.op == "cg") require_symmetric(a, o.matrix);
  if (o.jacobi) {
    try {
      jacobi_inverse(a);
    } catch (const Error& e) {
      throw Error(fmt::format("{}: {}", o.matrix, e.what()));
    }
  }
  return a;
}

std::vector<double> gather_x(const MpiWorld& w, const BlockPartition& rows, const std::vector<double>& mine) {
  std::vector<int> counts, displs;
  for (int r = 0; r < w.size(); ++r) {
    counts.push_back(static_cast<int>(rows.count(r)));
    displs.push_back(static_cast<int>(rows.begin(r)));
  }
  std::vector<double> x(w.rank() == 0 ? rows.n : 0);
  MPI_Gatherv(mine.data(), static_cast<int>(mine.size()), MPI_DOUBLE, x.data(), counts.data(), displs.data(),
              MPI_DOUBLE, 0, MPI_COMM_WORLD);
  return x;
}

double max_over_ranks(double v) {
  MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return v;
}

}  // namespace

nlohmann::json dist_solve(const MpiWorld& w, const DistOptions& o, Device& dev) {
  const CsrMatrix a = collective(w, [&] { return checked_matrix(o); });
  too_many_ranks(w, o, a.rows, "rows");
  const BlockPartition rows{a.rows, w.size()};
  const int me = w.rank();
  auto lr = std::make_shared<LocalRows>(local_rows(a, rows, rows, me));
  Halo h = plan_halo(*lr, rows, me);
  const std::size_t own = static_cast<std::size_t>(rows.count(me)), elem = info(o.prec).bytes;
  auto local = collective(w, [&] {
    const SolverVariants v{o.spmv_variant, o.dot_variant, o.axpy_variant};
    std::shared_ptr<const CsrMatrix> la(lr, &lr->a);
    return make_variant_ops(dev, la, o.prec, v, o.jacobi ? Preconditioner::Jacobi : Preconditioner::None,
                            lr->halo.size());
  });
  // After the operators: make_transport's collectives need every rank, and a rank whose
  // operators failed has left above.
  auto tport = make_transport(o.transport, dev, std::move(h), own, elem);
  auto ops = std::make_unique<DistSolverOps>(std::move(local), std::move(tport.halo), std::move(tport.reduce));

  std::vector<double> b(own);
  for (std::size_t i = 0; i < own; ++i) b[i] = random_value(o.seed, kRhsStream, rows.begin(me) + i);
  KrylovOptions ko;
  ko.method = parse_method(o.op);
  ko.tol = o.tol;
  ko.max_iter = o.max_iter;
  KrylovResult kr;
  std::vector<double> x;
  auto run = [&](bool timed) {
    ops->reset_times();
    ops->time_kernels(timed);
    auto bv = ops->vector(), xv = ops->vector();
    ops->upload(*bv, b);
    MPI_Barrier(MPI_COMM_WORLD);
    const auto t0 = std::chrono::steady_clock::now();
    kr = krylov_solve(*ops, *bv, *xv, ko);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    x = ops->download(*xv);
    return max_over_ranks(s);
  };
  const double wall_timed = run(true);
  KernelTimes kt = ops->times();
  for (auto& s : kt.seconds) s = max_over_ranks(s);  // the slowest rank's, as the iteration waits for it
  const double halo_s = max_over_ranks(ops->halo_seconds()), reduce_s = max_over_ranks(ops->reduce_seconds());
  const long long halo_calls = ops->halo_calls();
  const long timed_iterations = kr.iterations;
  const double wall = run(false);

  nlohmann::json mine = {{"rank", me}, {"host", w.host()}, {"device", dev.id()}, {"rows", own},
                         {"nnz", lr->a.nnz()}, {"halo", lr->halo.size()}, {"neighbours", ops->halo().halo().neighbours()}};
  const auto per_rank = w.gather(mine.dump());
  const auto xg = gather_x(w, rows, x);
  if (me != 0) return nullptr;

  std::vector<double> bg(static_cast<std::size_t>(a.rows));
  fill_random(bg.data(), bg.size(), o.seed, kRhsStream);
  const TrueResidual tr = krylov_true_residual(a, bg, {xg, {}}, o.prec, o.tol, kr.iterations);
  if (!o.solution.empty()) {
    std::ofstream f(o.solution);
    for (double v : xg) f << fmt::format("{:.17g}\n", v);
    if (!f) throw Error(fmt::format("--solution {}: cannot write it", o.solution));
  }
  nlohmann::json r;
  r["iterations"] = kr.iterations;
  r["converged"] = kr.why == StopWhy::Converged;
  r["stop"] = to_string(kr.why);
  if (!kr.detail.empty()) r["stop_detail"] = kr.detail;
  r["residual_history"] = thinned(kr.history);
  r["seconds"] = wall;
  const double it = static_cast<double>(std::max(1L, kr.iterations));
  r["seconds_per_iteration"] = wall / it;
  auto& k = r["kernels_timed"] = kernel_json(kt, timed_iterations);
  const double tit = static_cast<double>(std::max(1L, timed_iterations));
  // The dot's time includes its reduction; both are also recorded on their own, with the halo.
  k["seconds_per_iteration"]["halo"] = halo_s / tit;
  k["seconds_per_iteration"]["allreduce"] = reduce_s / tit;
  k["calls_per_iteration"]["halo"] = static_cast<double>(halo_calls) / tit;
  k["sum_per_iteration"] = (kt.total() + halo_s) / tit;
  k["seconds"] = wall_timed;
  const double sum = (kt.total() + halo_s) / tit;
  r["iteration_over_kernels"] = sum > 0 ? wall / it / sum : 0.0;
  r["true_residual"] = {{"norm", tr.norm}, {"relative", tr.rel}, {"bound", tr.rel_bound}, {"within", tr.within()},
                        {"bound_text", tr.bound}};
  r["kernel_ids"] = ops->kernels();
  r["transport"] = ops->transport();
  if (!tport.why.empty()) r["transport_why_not_nccl"] = tport.why;
  r["per_rank"] = nlohmann::json::array();
  for (const auto& s : per_rank) r["per_rank"].push_back(nlohmann::json::parse(s));
  const auto f = matrix_features(a);
  r["sizes"] = {{"rows", f.rows}, {"cols", f.cols}, {"nnz", f.nnz}, {"max_row", f.row_max}, {"input", o.matrix}};
  r["features"] = to_json(f);
  r["method"] = o.op;
  r["preconditioner"] = o.jacobi ? "jacobi" : "none";
  r["tol"] = o.tol;
  r["max_iter"] = o.max_iter;
  int exit = 0;
  if (kr.why == StopWhy::Breakdown) exit = 2;
  else if (kr.why != StopWhy::Converged || !tr.within()) exit = 1;
  r["exit"] = exit;
  r["status"] = exit == 0 ? "ok" : (exit == 2 ? "error" : "failed");
  return r;
}

}  // namespace hetbench::mpi
