// COPY_STRIDED: y_i = x[offset + i*stride], i < n. The first element read lies `offset`
// elements past an aligned allocation, and consecutive work-items read `stride` elements
// apart: how alignment and coalescing cost bandwidth (docs/memory-system.md).
#include "hetbench/device.hpp"
#include "ops/access_common.hpp"

namespace hetbench {

namespace {

constexpr long long kMaxOffset = 32, kMaxStride = 64;

// Elements of x the problem reads up to: offset + (n-1)*stride + 1.
std::size_t x_count(const Sizes& s) {
  return static_cast<std::size_t>(s.at("offset") + (s.at("n") - 1) * s.at("stride") + 1);
}

class CopyStridedOp final : public Op {
 public:
  std::string name() const override { return "copy_strided"; }
  std::string description() const override { return "y_i = x[offset + i*stride] (misaligned and strided reads)"; }
  const OpSignature& signature() const override {
    static const OpSignature sig{{{"x"},
                                  {"y", true, Elem::Real, Access::Out},
                                  {"n", false, Elem::Int},
                                  {"offset", false, Elem::Int},
                                  {"stride", false, Elem::Int}},
                                 {Axis::dimension("n", "elements copied"),
                                  Axis::dimension("offset", "elements between the allocation and x's first read (0..32)"),
                                  Axis::dimension("stride", "elements between consecutive reads (1..64)")}};
    return sig;
  }
  // "N", "N@offset=LIST", "N@stride=LIST" or both: every combination of the lists.
  std::vector<Sizes> parse_sizes(const std::string& token) const override {
    auto [base, sufs] = access::split_suffixes(name(), token);
    std::vector<Sizes> out;
    for (long long n : parse_int_list(base, "size")) {
      // Below 2^40, offset + (n-1)*stride and its bytes stay far inside 64 bits.
      if (n < 1 || n >= (1ll << 40))
        throw Error(fmt::format("size n = {} is impossible: copy_strided needs 1 <= n < 2^40", n));
      out.push_back(Sizes{{"n", n}, {"offset", 0}, {"stride", 1}});
    }
    bool off = false, str = false;
    for (const auto& [k, v] : sufs) {
      bool* seen = k == "offset" ? &off : k == "stride" ? &str : nullptr;
      if (!seen || *seen || v.empty())
        throw Error(fmt::format("malformed copy_strided size '{}': expected N, then @offset=LIST (0..{}) and/or "
                                "@stride=LIST (1..{}) once each",
                                token, kMaxOffset, kMaxStride));
      *seen = true;
      out = access::times(out, k, access::bounded_list(name(), k, v, k == "offset" ? 0 : 1,
                                                       k == "offset" ? kMaxOffset : kMaxStride));
    }
    return out;
  }
  double device_bytes(const Sizes& s, Precision p) const override {
    return (static_cast<double>(x_count(s)) + static_cast<double>(s.at("n"))) * info(p).bytes;
  }
  std::string device_fit(const Sizes& s, Precision p, const DeviceInfo& di) const override {
    const std::uint64_t max_alloc = di.max_alloc;
    const std::size_t bytes = x_count(s) * info(p).bytes;
    if (max_alloc == 0 || bytes <= max_alloc) return "";
    return fmt::format("offset {} and stride {} put the last element read at index {}: x needs {} bytes, more than the "
                       "device's largest allocation of {} bytes",
                       s.at("offset"), s.at("stride"), x_count(s) - 1, bytes, max_alloc);
  }
  std::unique_ptr<Problem> build_problem(const Sizes& s, Precision p, std::uint64_t seed) const override {
    auto prob = new_problem(s, p);
    const auto n = static_cast<std::size_t>(s.at("n"));
    const auto off = static_cast<std::size_t>(s.at("offset")), str = static_cast<std::size_t>(s.at("stride"));
    const std::size_t e = info(p).bytes;
    with_real(p, [&]<class T>() {
      prob->arrays.push_back(random_array<T>("x", x_count(s), seed, 1));
      prob->arrays.push_back(output_array("y", n, sizeof(T)));
      return 0;
    });
    prob->scalars = {{"n", true, static_cast<double>(n)},
                     {"offset", true, static_cast<double>(off)},
                     {"stride", true, static_cast<double>(str)}};
    prob->flops = 0;
    prob->min_bytes = 2.0 * n * e;
    prob->raw_bytes = [n, off, str, e](std::size_t g) {
      return access::warp_granule_bytes(n, e, g, [&](std::size_t i) { return off + i * str; }) +
             access::contiguous_bytes(n, e, g);
    };
    return prob;
  }
  Validation validate(const Problem& prob, const Outputs& out) const override {
    const auto off = static_cast<std::size_t>(prob.sizes.at("offset"));
    const auto str = static_cast<std::size_t>(prob.sizes.at("stride"));
    return with_real(prob.prec, [&]<class T>() {
      const T* x = typed<T>(prob.array("x").host);
      return access::check_copied(typed<T>(output(out, "y")), prob.array("y").count,
                                  [&](std::size_t i) { return x[off + i * str]; }, "exact: y_i == x[offset + i*stride]");
    });
  }
};

OpRegistrar<CopyStridedOp> registered_copy_strided;

}  // namespace
}  // namespace hetbench
