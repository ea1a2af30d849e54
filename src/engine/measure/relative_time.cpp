// Values derived from a point's time that the op asks for (docs/results-format.md,
// features.derived): a bandwidth of memory other than the device's (the problem's feature
// `smem_bytes`: bytes accessed in local/shared memory), and a time relative to a baseline
// point of the same run (OpExtras::relative_time, hetbench/op_extras.hpp: bank_conflict's conflict degree against stride
// 1, peak reg_pressure's slowdown against the unbounded build). Baselines are remembered
// per process, so a point gets its ratio when its baseline was measured before it in the
// same run (the plan measures sizes and parameter sets in the order given).
#include <map>
#include <mutex>
#include <string>

#include <fmt/format.h>

#include "hetbench/observer.hpp"
#include "hetbench/op_extras.hpp"

namespace hetbench {

namespace {

class RelativeTimeObserver final : public PointObserver {
 public:
  void end(Device& dev, const Problem& prob, PointRecord& rec, const std::function<void()>&) override {
    if (!rec.timing || !(rec.timing->seconds.median > 0)) return;
    const double t = rec.timing->seconds.median;
    nlohmann::json d = nlohmann::json::object();
    if (auto it = prob.features.find("smem_bytes"); it != prob.features.end() && it->is_number())
      d["smem_gbs"] = it->get<double>() / t * 1e-9;
    const OpExtras* ex = op_extras(rec.op);
    if (const auto rel = ex && ex->relative_time ? ex->relative_time(rec.sizes, rec.params) : std::nullopt) {
      const std::string key = fmt::format("{}|{}|{}|{}", dev.id(), rec.variant_id, name(rec.precision), rel->group);
      std::lock_guard lock(mu_);
      if (rel->baseline) base_[key] = t;
      if (auto b = base_.find(key); b != base_.end()) {
        d[rel->field] = t / b->second;
        d[rel->field + "_baseline_s"] = b->second;
      }
    }
    if (!d.empty()) rec.features["derived"] = std::move(d);
  }

 private:
  std::mutex mu_;
  std::map<std::string, double> base_;  // the baseline's median seconds by device, variant, precision, group
};

const bool registered_relative_time = [] {
  register_observer(std::make_shared<RelativeTimeObserver>());
  return true;
}();

}  // namespace
}  // namespace hetbench
