#include "solve/solve_run.hpp"

#include <chrono>
#include <cmath>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "engine/record/provenance.hpp"
#include "engine/record/results.hpp"
#include "engine/record/session.hpp"
#include "hetbench/error.hpp"
#include "io/matrix_market.hpp"
#include "solve/baselines.hpp"
#include "solve/refine.hpp"
#include "solve/true_residual.hpp"
#include "sparse/generators.hpp"
#include "util/random.hpp"

namespace hetbench {

using clock_type = std::chrono::steady_clock;

namespace {

std::shared_ptr<const CsrMatrix> load(const std::string& token, std::uint64_t seed) {
  if (token.empty()) throw Error("solve needs a matrix: --matrix FILE.mtx or gen:NAME:k=v,...");
  CsrMatrix a = token.rfind("gen:", 0) == 0 ? generate_matrix(token, seed) : read_matrix_market(token);
  if (a.rows != a.cols)
    throw Error(fmt::format("{}: the solvers need a square matrix, this one is {} x {}", token, a.rows, a.cols));
  if (a.rows < 1) throw Error(fmt::format("{}: the matrix has no rows", token));
  return std::make_shared<const CsrMatrix>(std::move(a));
}

}  // namespace

// CG's theory needs A = Aᵀ; a matrix that is not is refused before any iteration.
void require_symmetric(const CsrMatrix& a, const std::string& token) {
  for (int64_t i = 0; i < a.rows; ++i)
    for (auto q = a.rowptr[i]; q < a.rowptr[i + 1]; ++q) {
      const auto j = a.colidx[q];
      const auto* lo = a.colidx.data() + a.rowptr[j];
      const auto* hi = a.colidx.data() + a.rowptr[j + 1];
      const auto* it = std::lower_bound(lo, hi, static_cast<int32_t>(i));
      const double back = it != hi && *it == i ? a.values[it - a.colidx.data()] : 0.0;
      if (back != a.values[q])
        throw Error(fmt::format("{}: CG needs a symmetric matrix, but a({},{}) = {} and a({},{}) = {} (1-based); "
                                "use --method bicgstab, gmres, fgmres, fom or iom",
                                token, i + 1, j + 1, a.values[q], j + 1, i + 1, back));
    }
}

// At most this many history entries are recorded: longer histories keep every k-th and the last.
nlohmann::json thinned(const std::vector<double>& h) {
  constexpr std::size_t kMax = 5000;
  const std::size_t step = h.size() > kMax ? (h.size() + kMax - 1) / kMax : 1;
  nlohmann::json out = nlohmann::json::array();
  for (std::size_t i = 0; i < h.size(); i += step) out.push_back(h[i]);
  if (!h.empty() && (h.size() - 1) % step != 0) out.push_back(h.back());
  return out;
}

nlohmann::json kernel_json(const KernelTimes& t, long iterations) {
  nlohmann::json sec, calls;
  const double it = static_cast<double>(std::max(1L, iterations));
  for (auto k : kSolverKernels) {
    sec[to_string(k)] = t.seconds[static_cast<int>(k)] / it;
    calls[to_string(k)] = static_cast<double>(t.calls[static_cast<int>(k)]) / it;
  }
  return {{"seconds_per_iteration", sec}, {"calls_per_iteration", calls}, {"sum_per_iteration", t.total() / it}};
}

namespace {

struct Outcome {
  nlohmann::json record;
  int status = 0;
  std::string error;  // a breakdown: exit 2 with this message
};

// One solve (plain or refined) on `ops`, twice: once with every kernel timed by the
// device's events, once only issued and timed as a whole.
Outcome solve_once(SolverOps& ops, const CsrMatrix& a, const std::vector<double>& b, const SolveSpec& s) {
  Outcome o;
  auto& r = o.record;
  StopWhy why;
  std::string detail;
  long iterations = 0;
  DwVector x;
  TrueResidual tr;
  auto run = [&](bool timed) {
    ops.reset_times();
    ops.time_kernels(timed);
    if (s.refine) {
      // Set-up outside the timed solve, as the plain solve's vectors are: the words' buffers,
      // A and b on the device, the kernels built.
      auto res = make_dw_residual(std::shared_ptr<const CsrMatrix>(&a, [](const CsrMatrix*) {}), *s.refine, ops, b);
      RefineOptions ro;
      ro.tol = s.krylov.tol;
      ro.inner = s.krylov;
      // Without --inner-tol each step asks for what the outer tolerance still needs, down
      // to what the inner precision resolves (refine.hpp): one inner solve to 1e-10 in D
      // and a short correction, instead of fixed 1e-7 steps that restart the Krylov space.
      if (s.inner_tol > 0)
        ro.inner.tol = s.inner_tol;
      else
        ro.inner_floor = ops.precision() == Precision::S ? 1e-4 : 1e-10;
      const auto t0 = clock_type::now();
      auto rr = refine_solve(ops, *res, ro);
      const double wall = std::chrono::duration<double>(clock_type::now() - t0).count();
      why = rr.why;
      detail = rr.detail;
      iterations = rr.inner_iterations;
      x = res->solution();
      r["outer_iterations"] = rr.outer;
      r["inner_tol"] = ro.inner_floor > 0 ? nlohmann::json("adaptive") : nlohmann::json(ro.inner.tol);
      if (ro.inner_floor > 0) r["inner_tol_floor"] = ro.inner_floor;
      r["inner_tols"] = rr.inner_tols;
      r["outer_history"] = rr.history;
      r["residual_history"] = thinned(rr.inner_history);
      r["refine_residual_on"] = res->where();
      // Where the wall time went (docs/solvers.md); the rest is the loop's own bookkeeping.
      r["refine_seconds"] = {{"inner_solves", rr.inner_s},
                             {"residuals", rr.residual_s},
                             {"updates", rr.update_s},
                             {"right_hand_sides", rr.rhs_s},
                             {"rest", wall - rr.inner_s - rr.residual_s - rr.update_s - rr.rhs_s}};
      return wall;
    }
    auto bv = ops.vector(), xv = ops.vector();
    ops.upload(*bv, b);
    const auto t1 = clock_type::now();
    auto kr = krylov_solve(ops, *bv, *xv, s.krylov);
    const double wall = std::chrono::duration<double>(clock_type::now() - t1).count();
    why = kr.why;
    detail = kr.detail;
    iterations = kr.iterations;
    r["iterations_issued"] = kr.issued;
    x = {ops.download(*xv), {}};
    r["residual_history"] = thinned(kr.history);
    return wall;
  };
  const double wall_timed = run(true);
  const auto times = ops.times();
  const long timed_iterations = iterations;
  const double wall = run(false);
  tr = s.refine ? refined_true_residual(a, b, x, *s.refine, s.krylov.tol)
                : krylov_true_residual(a, b, x, ops.precision(), s.krylov.tol, iterations);
  r["iterations"] = iterations;
  r["converged"] = why == StopWhy::Converged;
  r["stop"] = to_string(why);
  if (!detail.empty()) r["stop_detail"] = detail;
  r["seconds"] = wall;
  r["seconds_per_iteration"] = wall / static_cast<double>(std::max(1L, iterations));
  r["kernels_timed"] = kernel_json(times, timed_iterations);
  r["kernels_timed"]["seconds"] = wall_timed;
  const double sum = times.total() / static_cast<double>(std::max(1L, timed_iterations));
  r["iteration_over_kernels"] = sum > 0 ? r["seconds_per_iteration"].get<double>() / sum : 0.0;
  r["true_residual"] = {{"norm", tr.norm}, {"relative", tr.rel}, {"bound", tr.rel_bound}, {"within", tr.within()},
                        {"bound_text", tr.bound}};
  r["kernel_ids"] = ops.kernels();
  if (why == StopWhy::Breakdown) {
    o.status = 2;
    o.error = detail;
  } else if (why != StopWhy::Converged || !tr.within()) {
    o.status = 1;
  }
  r["status"] = o.status == 0 ? "ok" : (why == StopWhy::Breakdown ? "error" : "failed");
  return o;
}

}  // namespace

int run_solve(const SolveSpec& s) {
  const auto a = load(s.matrix, s.seed);
  if (s.krylov.method == KrylovMethod::CG) require_symmetric(*a, s.matrix);
  if (!s.baseline.empty() && s.baseline != "eigen" && s.baseline != "vendor")
    throw Error(fmt::format("unknown --baseline '{}': expected eigen or vendor", s.baseline));
  if (s.refine && *s.refine != Precision::DF && *s.refine != Precision::DD)
    throw Error(fmt::format("--refine takes DF or DD, not {}", name(*s.refine)));
  if (s.precond == Preconditioner::Jacobi) {
    try {
      jacobi_inverse(*a);
    } catch (const Error& e) {
      throw Error(fmt::format("{}: {}", s.matrix, e.what()));
    }
  }
  auto devices = resolve_devices(s.devices);
  // A seeded random right-hand side in [-1, 1).
  std::vector<double> b(static_cast<std::size_t>(a->rows));
  fill_random(b.data(), b.size(), s.seed, 21);

  nlohmann::json devs = nlohmann::json::array();
  for (const auto& d : devices) devs.push_back(to_json(d->info()));
  const auto f = matrix_features(*a);
  nlohmann::json spec = {{"method", to_string(s.krylov.method)},
                         {"matrix", s.matrix},
                         {"precision", name(s.precision)},
                         {"refine", s.refine ? nlohmann::json(name(*s.refine)) : nlohmann::json()},
                         {"preconditioner", to_string(s.precond)},
                         {"tol", s.krylov.tol},
                         {"max_iter", s.krylov.max_iter},
                         {"restart", s.krylov.restart},
                         {"truncate", s.krylov.truncate},
                         {"baseline", s.baseline}};
  std::unique_ptr<ExperimentSession> session;
  if (s.record) {
    auto head = experiment_header(s.name, s.command_line, s.seed, devs);
    head["kind"] = "solve";
    head["solve"] = spec;
    session = ExperimentSession::create(s.out_root, s.name, std::move(head));
  }
  ExperimentWriter* writer = session ? &session->writer() : nullptr;
  int status = 0, point = 0, failed = 0;
  std::string error;
  for (const auto& d : devices) {
    Outcome o;
    if (s.baseline == "eigen") {
      if (d->info().backend != BackendKind::Host) throw Error(fmt::format("--baseline eigen runs on host, not {}", d->id()));
      o.record = eigen_solve(*a, b, s, o.status);
      if (o.status == 2) o.error = "Eigen reports a numerical breakdown";
    } else {
      auto ops = s.baseline == "vendor" ? make_vendor_ops(*d, a, s.precision, s.precond)
                                        : make_variant_ops(*d, a, s.precision, s.variants, s.precond);
      o = solve_once(*ops, *a, b, s);
    }
    auto& r = o.record;
    r["point"] = point++;
    r["op"] = "solve";
    r["method"] = to_string(s.krylov.method);
    r["variant"] = s.baseline.empty() ? "hetbench" : s.baseline;
    // The keys every reader of experiment folders relies on (compare, report, store):
    // the solve's id, its options as parameters, and the whole solve as one timed sample.
    r["variant_id"] = fmt::format("{}/solve/{}", to_string(d->info().backend), r["variant"].get<std::string>());
    r["kind"] = s.baseline.empty() ? "kernel" : "library";
    r["params"] = nlohmann::json::object();
    if (restarted(s.krylov.method)) r["params"]["restart"] = s.krylov.restart;
    if (s.krylov.method == KrylovMethod::IOM) r["params"]["truncate"] = s.krylov.truncate;
    if (r.contains("seconds") && r["seconds"].get<double>() > 0)
      r["timing"] = {{"samples", {r["seconds"]}}, {"seconds", {{"median", r["seconds"]}}}};
    r["seed"] = s.seed;
    r["device"] = d->id();
    r["device_name"] = d->info().name;
    r["backend"] = to_string(d->info().backend);
    r["precision"] = name(s.precision);
    if (s.refine) r["refine"] = name(*s.refine);
    r["preconditioner"] = spec["preconditioner"];
    r["sizes"] = {{"rows", f.rows}, {"cols", f.cols}, {"nnz", f.nnz}, {"max_row", f.row_max}, {"input", s.matrix}};
    r["features"] = to_json(f);
    r["tol"] = s.krylov.tol;
    r["max_iter"] = s.krylov.max_iter;
    if (restarted(s.krylov.method)) r["restart"] = s.krylov.restart;
    if (s.krylov.method == KrylovMethod::IOM) r["truncate"] = s.krylov.truncate;
    if (writer) writer->append(r);
    const double over = r.value("iteration_over_kernels", 0.0);
    fmt::print("{} {}{}{} on {}: {} after {} iterations, {:.3e} s/iteration{}, "
               "true ||b-Ax||/||b|| = {:.3e} (bound {:.3e})\n",
               r["variant"].get<std::string>(), to_string(s.krylov.method), " " + std::string(name(s.precision)),
               s.refine ? "+" + std::string(name(*s.refine)) : "", d->id(), r["stop"].get<std::string>(),
               r["iterations"].get<long>(), r["seconds_per_iteration"].get<double>(),
               over > 0 ? fmt::format(" ({:.2f} x its kernels)", over) : "",
               r["true_residual"]["relative"].get<double>(), r["true_residual"]["bound"].get<double>());
    if (r.contains("stop_detail")) fmt::print("  {}\n", r["stop_detail"].get<std::string>());
    if (o.status) ++failed;
    status = std::max(status, o.status);
    if (!o.error.empty() && error.empty()) error = fmt::format("{} on {}: {}", to_string(s.krylov.method), d->id(), o.error);
  }
  if (writer) {
    writer->finish({{"status", "complete"}, {"points", point}, {"failed", failed}, {"errors", error.empty() ? 0 : 1}});
    fmt::print("recorded in {}\n", writer->dir().string());
  }
  if (!error.empty()) throw Error(error);
  return status;
}

}  // namespace hetbench
