#include "tune/db_hook.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace hetbench::tune {

ResultHook database_hook(tuning::TuningDb& db, std::uint64_t seed) {
  return [&db, seed](const TuningResult& r) {
    if (!r.found || !r.device_ref || !r.variant_ref || !r.op_ref) return;
    const bool flops = r.op_ref->rates().by_flops && r.gflops;
    tuning::TuningEntry e;
    e.device = tuning::DeviceIdentity::of(r.device_ref->info());
    e.variant_id = r.variant_id;
    e.variant_hash = tuning::variant_hash(*r.variant_ref);
    e.precision = r.prec;
    e.storage = tuning::storage_key(*r.op_ref, r.problem);
    // The record's features are the op's (a matrix's row statistics): reading the input
    // again is needed only when no point recorded them.
    const bool have = r.features.is_object() && !r.features.empty();
    e.problem = tuning::classify(*r.op_ref, r.problem, have ? r.features : r.op_ref->features(r.problem, seed));
    e.params = r.params;
    e.layout = r.layout;
    e.rate = flops ? *r.gflops : r.gbs.value_or(0);
    e.rate_lo = flops ? r.gflops_lo.value_or(e.rate) : r.gbs_lo.value_or(e.rate);
    e.rate_hi = flops ? r.gflops_hi.value_or(e.rate) : r.gbs_hi.value_or(e.rate);
    e.unit = flops ? "GFLOP/s" : "GB/s";
    e.experiment = r.experiment;
    e.point = r.point;
    e.strategy = r.strategy;
    e.evaluations = static_cast<int>(r.evaluations);
    const auto [id, stored] = db.put(e);
    fmt::print(stderr, "hetbench: tuning database {}: {} {} {} {} -> entry {}{}\n", db.path().string(), r.variant_id,
               r.precision, e.problem.label, format_params(r.params) + (r.layout ? " @" + describe(*r.layout) : ""), id,
               stored ? "" : " (kept: the entry there is faster)");
  };
}

StartsHook database_starts(const tuning::TuningDb& db, std::size_t n) {
  return [&db, n](const TaskRef& t) {
    std::vector<ParamValues> out;
    if (n == 0) return out;
    tuning::LookupQuery q;
    q.variants = {{t.variant.id(), tuning::variant_hash(t.variant)}};
    q.precision = t.prec;
    const auto entries = db.entries_of(q.variants, q.precision);
    if (entries.empty()) return out;  // before the features, which may read a matrix
    q.device = tuning::DeviceIdentity::of(t.device.info());
    q.storage = tuning::storage_key(t.op, t.problem);
    q.problem = tuning::classify(t.op, t.problem, t.op.features(t.problem, t.seed));
    auto hits = tuning::ranked(entries, q);
    std::stable_partition(hits.begin(), hits.end(), [&](const auto& h) { return h.entry.storage == q.storage; });
    for (const auto& h : hits) {
      if (out.size() == n) break;
      if (std::find(out.begin(), out.end(), h.entry.params) == out.end()) out.push_back(h.entry.params);
    }
    return out;
  };
}

}  // namespace hetbench::tune
