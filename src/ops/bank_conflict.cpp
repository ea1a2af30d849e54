// BANK_CONFLICT: shared (CUDA) / local (OpenCL) memory throughput by access stride, and
// the same reads from the other memory spaces (the variants global, readonly, constant,
// local: docs/memory-system.md).
// Each work-group stages a tile of words in local memory, rows of 32 words, each row
// followed by `pad` unused words; then every work-item i < n reads `loads` words and
// writes their sum to y_i. Lane l = i mod 32 (its position in a warp) reads, at round r,
// the 8 words L + 32u (u < 8, the 8 rows below) with L = (l·stride + 32r) mod tile, so that
// the 32 lanes of a warp are `stride` words apart: the bank pattern under test; stride 0
// is a broadcast (every lane the same word, constant memory's good case). The tile word
// of logical index j is x[j] (x holds the tile's logical words, no more, so that it fits
// constant memory); the values are integers 0..255 in the precision, and a sum of at most
// 2048 of them is exact in S and D: validation is exact.
#include <cmath>

#include "ops/access_common.hpp"
#include "hetbench/device.hpp"
#include "hetbench/op_extras.hpp"

namespace hetbench {

namespace {

constexpr long long kLoads = 2048;  // reads per work-item: local traffic dwarfs the tile's load
constexpr long long kRowsBelow = 8;  // the rows u < 8 read at each round (the kernels' unroll)
constexpr long long kWarp = 32;

// The tile word that lane l reads at round r, before the 8 rows below it: the kernels' L,
// lanes `stride` words apart, wrapping inside the tile (a power of two).
long long lane_word(long long lane, long long r, long long stride, long long tile) {
  return (lane * stride + kWarp * r) & (tile - 1);
}

// Rows of the staged tile: the tile's, and the 8 below the last that its lanes read.
long long tile_rows(const Sizes& s) { return s.at("tile") / kWarp + kRowsBelow; }

const std::string kUsage = "expected N[@stride=LIST][@pad=LIST][@tile=WORDS], e.g. 2^20@stride=1:32:1@pad=0,1";

class BankConflictOp final : public Op {
 public:
  std::string name() const override { return "bank_conflict"; }
  std::string description() const override {
    return "local/shared-memory reads 'stride' words apart per warp lane, with 'pad' words after every 32";
  }
  const OpSignature& signature() const override {
    static const OpSignature sig{
        {{"x"}, {"y", true, Elem::Real, Access::Out}, {"n", false, Elem::Int}, {"stride", false, Elem::Int},
         {"loads", false, Elem::Int}},
        {Axis::dimension("n", "work-items that write a sum"), Axis::dimension("stride", "words between warp lanes"),
         Axis::dimension("pad", "unused words after every 32 of the tile"),
         Axis::dimension("tile", "words of the tile (a power of two, 32 per row)")}};
    return sig;
  }
  std::vector<Sizes> parse_sizes(const std::string& token) const override {
    std::vector<std::string> parts;
    for (std::size_t at = 0, next; at <= token.size(); at = next + 1) {
      next = token.find('@', at);
      if (next == std::string::npos) next = token.size();
      parts.push_back(token.substr(at, next - at));
    }
    std::vector<long long> stride{1}, pad{0}, tile{1024};
    for (std::size_t i = 1; i < parts.size(); ++i) {
      const auto eq = parts[i].find('=');
      const std::string key = parts[i].substr(0, eq);
      if (eq == std::string::npos || !(key == "stride" || key == "pad" || key == "tile"))
        throw Error(fmt::format("malformed bank_conflict size '{}': {}", token, kUsage));
      auto vals = parse_int_list(parts[i].substr(eq + 1), key);
      (key == "stride" ? stride : key == "pad" ? pad : tile) = vals;
    }
    std::vector<Sizes> out;
    for (long long n : parse_int_list(parts[0], "size")) {
      if (n < 1) throw Error(fmt::format("size n = {} is impossible: bank_conflict needs n >= 1", n));
      for (long long t : tile) {
        if (t < kWarp || (t & (t - 1)) != 0)
          throw Error(fmt::format("tile = {} is impossible: bank_conflict needs a power of two >= {} words", t, kWarp));
        for (long long p : pad) {
          if (p < 0 || p > kWarp) throw Error(fmt::format("pad = {} is impossible: bank_conflict needs 0 <= pad <= 32", p));
          for (long long s : stride) {
            // A warp's 32 lanes must land on 32 different words of the tile (or, at
            // stride 0, all on one).
            if (s < 0 || (kWarp - 1) * s >= t)
              throw Error(fmt::format("stride = {} is impossible: bank_conflict needs 0 <= stride <= {} (a warp's 32 "
                                      "lanes span 31 strides, which must stay inside the tile of {} words)",
                                      s, (t - 1) / (kWarp - 1), t));
            out.push_back(Sizes{{"n", n}, {"stride", s}, {"pad", p}, {"tile", t}});
          }
        }
      }
    }
    return out;
  }
  double device_bytes(const Sizes& s, Precision p) const override {
    return vector_bytes(s, p, 1) + static_cast<double>(logical_words(s)) * info(p).bytes;
  }
  std::unique_ptr<Problem> build_problem(const Sizes& s, Precision p, std::uint64_t seed) const override {
    auto prob = new_problem(s, p);
    const auto n = static_cast<std::size_t>(s.at("n"));
    const auto words = static_cast<std::size_t>(logical_words(s));
    with_real(p, [&]<class T>() {
      ArrayOperand x{"x", false, Access::In, words, sizeof(T), {}};
      x.host.resize(x.bytes());
      T* xv = reinterpret_cast<T*>(x.host.data());
      for (std::size_t i = 0; i < x.count; ++i)
        xv[i] = static_cast<T>(std::floor((random_value(seed, 1, i) + 1) * 127.5));
      prob->arrays.push_back(std::move(x));
      prob->arrays.push_back(output_array("y", n, sizeof(T)));
      return 0;
    });
    prob->scalars.push_back({"n", true, static_cast<double>(n)});
    prob->scalars.push_back({"stride", true, static_cast<double>(s.at("stride"))});
    prob->scalars.push_back({"loads", true, static_cast<double>(kLoads)});
    prob->flops = 0;  // the sums are there to use the loads; the rate is smem_gbs
    prob->min_bytes = static_cast<double>(n) * info(p).bytes;
    prob->features = {{"loads", kLoads}, {"smem_bytes", static_cast<double>(n) * kLoads * info(p).bytes}};
    // The sector model of copy_strided and gather (access_common.hpp) applied to the
    // tile's words: the granules each warp's load instruction touches, over every load.
    prob->raw_bytes = [n, tile = s.at("tile"), stride = s.at("stride"), elem = info(p).bytes](std::size_t g) {
      auto per_warp = [&](std::size_t lanes) {
        double bytes = 0;
        for (long long r = 0; r < kLoads / kRowsBelow; ++r)
          bytes += access::warp_granule_bytes(lanes, elem, g, [&](std::size_t l) {
            return static_cast<std::size_t>(lane_word(static_cast<long long>(l), r, stride, tile));
          });
        // The 8 rows below are whole rows (32 words, 128 or 256 bytes) further: the same
        // number of granules each.
        return bytes * kRowsBelow;
      };
      const std::size_t full = n / kWarp, rest = n % kWarp;
      return static_cast<double>(full) * per_warp(kWarp) + (rest ? per_warp(rest) : 0.0);
    };
    return prob;
  }
  Validation validate(const Problem& prob, const Outputs& out) const override {
    return with_real(prob.prec, [&]<class T>() {
      const auto& s = prob.sizes;
      const T* x = typed<T>(prob.array("x").host);
      const long long tile = s.at("tile"), stride = s.at("stride");
      // The sum depends on the lane only: 32 exact references.
      long double lane_sum[kWarp];
      for (long long l = 0; l < kWarp; ++l) {
        long double sum = 0;
        for (long long r = 0; r < kLoads / kRowsBelow; ++r) {
          const long long base = lane_word(l, r, stride, tile);
          for (long long u = 0; u < kRowsBelow; ++u) sum += static_cast<long double>(x[base + kWarp * u]);
        }
        lane_sum[l] = sum;
      }
      auto v = check_elements(typed<T>(output(out, "y")), prob.array("y").count,
                              [&](std::size_t i) { return lane_sum[i % kWarp]; }, [](std::size_t) { return 0.0L; });
      v.bound = "exact: y_i == sum of the integer-valued tile words lane i mod 32 reads";
      return v;
    });
  }

  std::string device_fit(const Sizes& s, Precision p, const DeviceInfo& di) const override {
    const auto local = static_cast<std::size_t>(tile_rows(s) * (kWarp + s.at("pad"))) * info(p).bytes;
    if (!di.local_mem || local <= di.local_mem) return "";
    return fmt::format("the tile needs {} bytes of local memory per work-group, more than the device's {}", local,
                       di.local_mem);
  }

 private:
  static long long logical_words(const Sizes& s) { return tile_rows(s) * kWarp; }
};

OpRegistrar<BankConflictOp> registered_bank_conflict;

OpExtrasRegistrar extras(
    "bank_conflict",
    {// The conflict degree: t(stride) / t(stride 1), the other sizes and parameters equal.
     [](const Sizes& s, const ParamValues& params) {
       Sizes rest = s;
       rest.erase("stride");
       return std::optional<RelativeTime>(
           RelativeTime{"conflict_degree", format_sizes(rest) + " " + format_params(params), s.at("stride") == 1});
     }});

}  // namespace
}  // namespace hetbench
