// PCHASE: the latency of dependent loads. `next` spans a working set of ws bytes cut into
// 64-byte slots; one seeded random cycle through all slots (Sattolo's algorithm) links
// them, and a single work-item follows p = next[p] `loads` times from slot 0. Each load
// waits for the one before, so the time per load is the latency of the level of the
// memory hierarchy the working set fits in (docs/memory-system.md).
#include <algorithm>

#include "hetbench/device.hpp"
#include "ops/access_common.hpp"

namespace hetbench {

namespace {

constexpr std::size_t kSlot = 64;                           // bytes: a CPU's cache line, two GPU sectors
constexpr long long kMinWs = 2 * kSlot, kMaxWs = 1ll << 34;  // word indices fit 32 bits
// Without @loads the chase visits every slot once, between 2^18 loads (a small set is
// walked several times round, far above a launch's cost) and 2^22 (256 MiB of lines, five
// times the H200's L2, ~1.5 s at HBM latency). A fixed 2^18 visited only 16 MiB of lines
// of any larger set, and after the warm-up those sat in the L2: a "256 MiB" point measured
// L2 hits (docs/memory-system.md, "How many loads").
constexpr long long kMinDefaultLoads = 1 << 18, kMaxDefaultLoads = 1 << 22;
long long default_loads(long long ws) {
  return std::clamp(ws / static_cast<long long>(kSlot), kMinDefaultLoads, kMaxDefaultLoads);
}

// The final index and the sum (mod 2^32) of the indices visited: what a run must match.
std::pair<std::uint32_t, std::uint32_t> chase(const std::uint32_t* next, std::size_t loads) {
  std::uint32_t p = 0, sum = 0;
  for (std::size_t k = 0; k < loads; ++k) {
    p = next[p];
    sum += p;
  }
  return {p, sum};
}

class PchaseOp final : public Op {
 public:
  std::string name() const override { return "pchase"; }
  std::string description() const override { return "pointer chase over a working set: ns per dependent load"; }
  // The chased words are 32-bit indices whatever the precision, so the variants offer S
  // only; the op keeps the default S, D so that a run without --precision is no error.
  const OpSignature& signature() const override {
    static const OpSignature sig{{{"next", true, Elem::Int},
                                  {"out", true, Elem::Int, Access::Out},
                                  {"loads", false, Elem::Int}},
                                 {Axis::dimension("ws", "working set, bytes (a multiple of 64)"),
                                  Axis::dimension("loads", "dependent loads of one execution")}};
    return sig;
  }
  // "W[@loads=LIST]": working sets in bytes, e.g. 2^12:2^32:*2.
  std::vector<Sizes> parse_sizes(const std::string& token) const override {
    auto [base, sufs] = access::split_suffixes(name(), token);
    std::vector<long long> loads;
    if (sufs.size() > 1 || (sufs.size() == 1 && (sufs[0].first != "loads" || sufs[0].second.empty())))
      throw Error(fmt::format("malformed pchase size '{}': expected a working set in bytes, optionally @loads=LIST",
                              token));
    if (!sufs.empty()) loads = access::bounded_list(name(), "loads", sufs[0].second, 1, (1ll << 32) - 1);
    std::vector<Sizes> out;
    for (long long ws : parse_int_list(base, "working set")) {
      if (ws < kMinWs || ws > kMaxWs || ws % static_cast<long long>(kSlot) != 0)
        throw Error(fmt::format("pchase working set {} bytes is impossible: it needs a multiple of {} between {} and "
                                "2^34 bytes",
                                ws, kSlot, kMinWs));
      out.push_back(Sizes{{"ws", ws}});
      if (loads.empty()) out.back()["loads"] = default_loads(ws);
    }
    return loads.empty() ? out : access::times(out, "loads", loads);
  }
  double device_bytes(const Sizes& s, Precision) const override {
    return static_cast<double>(s.at("ws")) + 8;
  }
  std::string device_fit(const Sizes& s, Precision, const DeviceInfo& di) const override {
    const std::uint64_t global_mem = di.global_mem, max_alloc = di.max_alloc;
    const auto ws = static_cast<std::uint64_t>(s.at("ws"));
    if (global_mem && ws + 8 > global_mem)
      return fmt::format("working set {} bytes is larger than the device's memory ({} bytes)", ws, global_mem);
    if (max_alloc && ws > max_alloc)
      return fmt::format("working set {} bytes is larger than the device's largest allocation ({} bytes)", ws,
                         max_alloc);
    return "";
  }
  std::unique_ptr<Problem> build_problem(const Sizes& s, Precision p, std::uint64_t seed) const override {
    auto prob = new_problem(s, p);
    const auto ws = static_cast<std::size_t>(s.at("ws"));
    const auto loads = static_cast<std::size_t>(s.at("loads"));
    constexpr std::size_t words = kSlot / 4;
    const auto cycle = access::permutation(ws / kSlot, seed, 11, /*cyclic=*/true);
    ArrayOperand next{"next", true, Access::In, ws / 4, 4, {}};
    next.host.assign(ws, 0);  // only a slot's first word is ever read
    auto* w = reinterpret_cast<std::uint32_t*>(next.host.data());
    for (std::size_t i = 0; i < cycle.size(); ++i) w[i * words] = static_cast<std::uint32_t>(cycle[i] * words);
    prob->arrays.push_back(std::move(next));
    prob->arrays.push_back(ArrayOperand{"out", true, Access::Out, 2, 4, {}});
    prob->scalars = {{"loads", true, static_cast<double>(loads)}};
    prob->flops = 0;
    // The chain's useful bytes (one 32-bit index a load), so gbs ranks variants as
    // ns_per_load does; ns_per_load is the headline.
    prob->min_bytes = 4.0 * static_cast<double>(loads);
    prob->dependent_loads = static_cast<double>(loads);
    return prob;
  }
  Validation validate(const Problem& prob, const Outputs& out) const override {
    const auto [p, sum] = chase(typed<std::uint32_t>(prob.array("next").host),
                                static_cast<std::size_t>(prob.sizes.at("loads")));
    const std::uint32_t want[2] = {p, sum};
    const auto* got = typed<std::uint32_t>(output(out, "out"));
    auto v = check_each(
        2,
        [&](std::size_t i) {
          if (got[i] == 0xFFFFFFFFu && want[i] != 0xFFFFFFFFu) return ElementError{ElementError::unwritten};
          return ElementError{ElementError::ok, got[i] == want[i] ? 0.0L : 1.0L, static_cast<long double>(want[i])};
        },
        [](std::size_t) { return 0.0L; });
    v.bound = "exact: the final index and the sum of the visited indices (mod 2^32) equal the host's";
    return v;
  }
};

OpRegistrar<PchaseOp> registered_pchase;

}  // namespace
}  // namespace hetbench
