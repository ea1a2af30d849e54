#include "hetbench/solver_ops.hpp"

#include <cmath>
#include <map>
#include <mutex>

#include <fmt/format.h>

#include "hetbench/error.hpp"

namespace hetbench {

namespace {
std::mutex mu;
std::map<BackendKind, VendorSolverFactory>& factories() {
  static std::map<BackendKind, VendorSolverFactory> f;
  return f;
}
}  // namespace

namespace {

// The host defaults' scalar: a value, or a product not yet read back.
struct HostScalar final : SolverScalar {
  double value = 0;
  SolverVector *x = nullptr, *y = nullptr;
};

HostScalar& host(SolverScalar& s) {
  auto* h = dynamic_cast<HostScalar*>(&s);
  if (!h) throw Error("internal: a device scalar handed to the host defaults of SolverOps");
  return *h;
}

}  // namespace

std::unique_ptr<SolverScalar> SolverOps::scalar() { return std::make_unique<HostScalar>(); }

void SolverOps::dot_to(SolverVector& x, SolverVector& y, SolverScalar& s) {
  auto& h = host(s);
  h.x = &x;
  h.y = &y;
  deferred_.push_back(&h);
}

// The deferred products in one dots() call: one wait (one reduction over the ranks).
void SolverOps::flush_deferred_dots() {
  if (deferred_.empty()) return;
  std::vector<std::pair<SolverVector*, SolverVector*>> pairs;
  for (auto* s : deferred_) pairs.emplace_back(host(*s).x, host(*s).y);
  const auto v = dots(pairs);
  for (std::size_t i = 0; i < deferred_.size(); ++i) host(*deferred_[i]).value = v[i];
  deferred_.clear();
}

void SolverOps::axpy_ratio(double sign, SolverScalar& num, SolverScalar& den, SolverVector& x, SolverVector& y,
                           SolverVector& r) {
  flush_deferred_dots();
  if (watch_stopped_)
    copy(y, r);
  else
    axpy(sign * (host(num).value / host(den).value), x, y, r);
}

void SolverOps::watch_start(std::size_t slots) {
  flush_deferred_dots();
  watch_stopped_ = false;
  watch_log_.assign(slots, 0.0);
}

void SolverOps::watch(const std::vector<SolverWatch>& w) {
  flush_deferred_dots();
  for (const auto& c : w) {
    const double v = host(*c.s).value;
    if (c.slot >= watch_log_.size()) throw Error("internal: a watch slot beyond watch_start's");
    watch_log_[c.slot] = v;
    const bool stop =
        c.guard == SolverGuard::NotPositive ? !(v > 0) : (!std::isfinite(v) || std::sqrt(v) <= c.bound);
    watch_stopped_ = watch_stopped_ || stop;
  }
}

std::vector<double> SolverOps::watch_read(std::size_t n) {
  flush_deferred_dots();
  if (n > watch_log_.size()) throw Error("internal: more watch values read than watch_start made room for");
  return {watch_log_.begin(), watch_log_.begin() + static_cast<std::ptrdiff_t>(n)};
}

void register_vendor_solver_ops(BackendKind backend, VendorSolverFactory make) {
  std::lock_guard lock(mu);
  factories()[backend] = std::move(make);
}

VendorSolverFactory vendor_solver_ops(BackendKind backend) {
  std::lock_guard lock(mu);
  auto it = factories().find(backend);
  return it == factories().end() ? VendorSolverFactory{} : it->second;
}

namespace {
std::map<BackendKind, VendorIlu0Factory>& ilu0_factories() {
  static std::map<BackendKind, VendorIlu0Factory> f;
  return f;
}
}  // namespace

void register_vendor_ilu0(BackendKind backend, VendorIlu0Factory make) {
  std::lock_guard lock(mu);
  ilu0_factories()[backend] = std::move(make);
}

std::unique_ptr<VendorIlu0> make_vendor_ilu0(Device& dev, const CsrMatrix& a, Precision p) {
  VendorIlu0Factory make;
  {
    std::lock_guard lock(mu);
    const auto it = ilu0_factories().find(dev.info().backend);
    if (it != ilu0_factories().end()) make = it->second;
  }
  if (!make)
    throw Error(fmt::format("--precond ilu0 comes from a vendor library (cuSPARSE, on CUDA devices); {} has none: "
                            "use jacobi or none there",
                            dev.id()));
  return make(dev, a, p);
}

const char* to_string(Preconditioner m) {
  constexpr const char* names[] = {"none", "jacobi", "ilu0"};
  return names[static_cast<int>(m)];
}

Preconditioner parse_preconditioner(const std::string& s) {
  for (const auto m : {Preconditioner::None, Preconditioner::Jacobi, Preconditioner::Ilu0})
    if (s == to_string(m)) return m;
  throw Error(fmt::format("unknown --precond '{}': expected jacobi, ilu0 or none", s));
}

}  // namespace hetbench
