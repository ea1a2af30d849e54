// GATHER: y_i = x[idx_i], or with @scatter y[idx_i] = x_i, through an int32 index array
// that is a permutation of 0..n-1 (so that a scatter writes every element once and both
// are checked exactly): sorted (idx_i = i), blocked (runs of B consecutive indices, the
// runs in random order) or random. SpMV reads its x like this (docs/memory-system.md).
#include "ops/access_common.hpp"

namespace hetbench {

namespace {

enum class Pattern { sorted, blocked, random };

const Axis& pattern_axis() {
  static const Axis a = Axis::choice("pattern", {"sorted", "blocked", "random"}, "the index array's access pattern");
  return a;
}
const Axis& direction_axis() {
  static const Axis a = Axis::choice("direction", {"gather", "scatter"}, "read through the indices, or write",
                                     /*indicators=*/true);
  return a;
}

// The index permutation of a problem, seeded by the experiment's seed.
std::vector<std::uint32_t> indices(const Sizes& s, std::uint64_t seed) {
  const auto n = static_cast<std::size_t>(s.at("n"));
  switch (pattern_axis().get<Pattern>(s)) {
    case Pattern::sorted: {
      std::vector<std::uint32_t> id(n);
      std::iota(id.begin(), id.end(), 0u);
      return id;
    }
    case Pattern::blocked: {
      // The full blocks are permuted; a last partial block stays where it is.
      const auto b = static_cast<std::size_t>(s.at("block"));
      const auto order = access::permutation(n / b, seed, 7, false);
      std::vector<std::uint32_t> idx(n);
      for (std::size_t i = 0; i < n; ++i)
        idx[i] = static_cast<std::uint32_t>(i / b < order.size() ? order[i / b] * b + i % b : i);
      return idx;
    }
    case Pattern::random: return access::permutation(n, seed, 7, false);
  }
  return {};
}

class GatherOp final : public Op {
 public:
  std::string name() const override { return "gather"; }
  std::string description() const override {
    return "y_i = x[idx_i] (or @scatter: y[idx_i] = x_i), idx sorted, blocked or random";
  }
  const OpSignature& signature() const override {
    static const OpSignature sig{{{"x"},
                                  {"idx", true, Elem::Int},
                                  {"y", true, Elem::Real, Access::Out},
                                  {"n", false, Elem::Int}},
                                 {Axis::dimension("n", "elements copied"),
                                  Axis::dimension("block", "consecutive indices per run (pattern blocked; else 1)"),
                                  pattern_axis(), direction_axis()}};
    return sig;
  }
  // "N[@sorted|@random|@blocked=LIST][@gather|@scatter]".
  std::vector<Sizes> parse_sizes(const std::string& token) const override {
    auto [base, sufs] = access::split_suffixes(name(), token);
    Sizes common{{"block", 1}};
    pattern_axis().set(common, std::size_t{0});
    direction_axis().set(common, std::size_t{0});
    std::vector<long long> blocks;
    bool pattern = false, direction = false;
    for (const auto& [k, v] : sufs) {
      const bool is_pattern = pattern_axis().set(common, k), is_dir = !is_pattern && direction_axis().set(common, k);
      bool* seen = is_pattern ? &pattern : is_dir ? &direction : nullptr;
      if (!seen || *seen || (v.empty() == (k == "blocked")))
        throw Error(fmt::format("malformed gather size '{}': expected N, then one of @sorted, @random, @blocked=LIST "
                                "and one of @gather, @scatter",
                                token));
      *seen = true;
      if (k == "blocked") blocks = access::bounded_list(name(), "block", v, 1, 1 << 30);
    }
    std::vector<Sizes> out;
    for (long long n : parse_int_list(base, "size")) {
      if (n < 1 || n > (1ll << 31) - 1)
        throw Error(fmt::format("size n = {} is impossible: gather needs 1 <= n < 2^31 (int32 indices)", n));
      Sizes s = common;
      s["n"] = n;
      out.push_back(s);
    }
    return blocks.empty() ? out : access::times(out, "block", blocks);
  }
  double device_bytes(const Sizes& s, Precision p) const override {
    return static_cast<double>(s.at("n")) * (2 * info(p).bytes + 4);
  }
  std::unique_ptr<Problem> build_problem(const Sizes& s, Precision p, std::uint64_t seed) const override {
    auto prob = new_problem(s, p);
    const auto n = static_cast<std::size_t>(s.at("n"));
    const std::size_t e = info(p).bytes;
    with_real(p, [&]<class T>() {
      prob->arrays.push_back(random_array<T>("x", n, seed, 1));
      return 0;
    });
    ArrayOperand idx{"idx", true, Access::In, n, 4, {}};
    const auto perm = indices(s, seed);
    idx.host.resize(n * 4);
    std::memcpy(idx.host.data(), perm.data(), n * 4);
    prob->arrays.push_back(std::move(idx));
    prob->arrays.push_back(output_array("y", n, e));
    prob->scalars = {{"n", true, static_cast<double>(n)}};
    prob->flops = 0;
    prob->min_bytes = static_cast<double>(n) * (2 * e + 4);
    const auto* ix = reinterpret_cast<const std::uint32_t*>(prob->arrays[1].host.data());
    prob->raw_bytes = [n, e, ix](std::size_t g) {
      // The side through the indices is scattered; the other and the indices are contiguous.
      return access::warp_granule_bytes(n, e, g, [&](std::size_t i) { return std::size_t{ix[i]}; }) +
             access::contiguous_bytes(n, e, g) + access::contiguous_bytes(n, 4, g);
    };
    return prob;
  }
  Validation validate(const Problem& prob, const Outputs& out) const override {
    const auto n = prob.array("y").count;
    const auto* ix = typed<std::uint32_t>(prob.array("idx").host);
    const bool scatter = direction_axis().index(prob.sizes) == 1;
    std::vector<std::uint32_t> src(n);  // y_j == x[src_j]
    for (std::size_t i = 0; i < n; ++i) {
      if (scatter) src[ix[i]] = static_cast<std::uint32_t>(i);
      else src[i] = ix[i];
    }
    return with_real(prob.prec, [&]<class T>() {
      const T* x = typed<T>(prob.array("x").host);
      return access::check_copied(typed<T>(output(out, "y")), n, [&](std::size_t j) { return x[src[j]]; },
                                  scatter ? "exact: y[idx_i] == x_i" : "exact: y_i == x[idx_i]");
    });
  }
};

OpRegistrar<GatherOp> registered_gather;

}  // namespace
}  // namespace hetbench
