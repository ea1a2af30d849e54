#include "hetbench/solver_ops.hpp"

#include <map>
#include <mutex>

namespace hetbench {

namespace {
std::mutex mu;
std::map<BackendKind, VendorSolverFactory>& factories() {
  static std::map<BackendKind, VendorSolverFactory> f;
  return f;
}
}  // namespace

void register_vendor_solver_ops(BackendKind backend, VendorSolverFactory make) {
  std::lock_guard lock(mu);
  factories()[backend] = std::move(make);
}

VendorSolverFactory vendor_solver_ops(BackendKind backend) {
  std::lock_guard lock(mu);
  auto it = factories().find(backend);
  return it == factories().end() ? VendorSolverFactory{} : it->second;
}

}  // namespace hetbench
