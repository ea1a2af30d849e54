#include "mpi/local_kernel.hpp"

#include <fmt/format.h>

#include "hetbench/error.hpp"

namespace hetbench::mpi {

std::shared_ptr<Device> rank_device(const std::string& selector, int local_rank) {
  const auto devs = resolve_devices(selector);
  if (devs.empty()) throw Error(fmt::format("--device '{}' names no device on this host", selector));
  return devs[static_cast<std::size_t>(local_rank) % devs.size()];
}

const Variant& pick_variant(const std::string& op, const std::string& name, const Device& dev, const Sizes& s,
                            Precision p) {
  std::vector<std::string> why;
  for (const auto& v : variants_for(op)) {
    if (v->backend != dev.info().backend || (name.empty() ? v->kind == VariantKind::Library : v->name != name))
      continue;
    std::string no = v->unsupported_reason(dev, p);
    if (no.empty()) no = v->violated_constraint(dev, s, p, v->defaults());
    if (no.empty()) return *v;
    why.push_back(fmt::format("{}: {}", v->name, no));
  }
  throw Error(fmt::format("no {} variant{} runs on {} in {}{}{}", op, name.empty() ? "" : " named '" + name + "'",
                          dev.id(), hetbench::name(p), why.empty() ? "" : ": ", fmt::join(why, "; ")));
}

LocalKernel::LocalKernel(Device& dev, const Variant& v, std::unique_ptr<Problem> prob)
    : dev_(dev), prob_(std::move(prob)), bufs_(dev, *prob_), inst_(v.prepare(dev, *prob_, bufs_.map(), v.defaults())) {}

void LocalKernel::upload(const std::string& name) { bufs_.map().at(name)->upload(prob_->array(name).host.data()); }

double LocalKernel::run() {
  bufs_.reset();
  inst_->reset();
  return dev_.time([&] { inst_->run(); });
}

Outputs LocalKernel::outputs() {
  Outputs out = bufs_.download();
  inst_->collect(out);
  return out;
}

}  // namespace hetbench::mpi
