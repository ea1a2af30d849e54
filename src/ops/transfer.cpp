// TRANSFER: the host link, as CUDA's bandwidthTest measures it: bytes copied between host
// memory (pageable or pinned) and the device, one way or both ways at once; within the
// device's memory (bandwidthTest's Device to Device); or to a second device of the same
// backend (peer). GB/s = bytes moved / time (1 GB = 1e9 bytes; bidir counts both
// directions, d2d the bytes read and written, as bandwidthTest does). The copies
// themselves are the Device's (src/ops/transfer.hpp).
#include "ops/transfer.hpp"

#include <unistd.h>

#include "hetbench/device.hpp"
#include "ops/vector_common.hpp"

namespace hetbench {

namespace {

// Host memory a point holds at once, in multiples of its size: the seeded source, the
// host buffers of bidir (send and receive), and the downloaded outputs validation reads.
constexpr std::uint64_t kHostCopies = 5;

std::uint64_t host_memory_bytes() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page) : 0;
}

class TransferOp final : public Op {
 public:
  std::string name() const override { return "transfer"; }
  std::string description() const override {
    return "host<->device and on-device copies (bandwidthTest): bytes@h2d|d2h|bidir|d2d|peer@pageable|pinned";
  }
  // Bytes have no precision: S stands for "one run per size".
  std::vector<Precision> precisions() const override { return {Precision::S}; }
  const OpSignature& signature() const override {
    static const OpSignature sig{
        {{"x"}, {"y", true, Elem::Real, Access::Out}},
        {Axis::dimension("bytes", "bytes copied (each way)"), transfer_direction_axis(), transfer_memory_axis()}};
    return sig;
  }

  // "2^20", "1024:2^30:*4@d2h@pinned": the integer list of Op::parse_sizes, then any of
  // @h2d @d2h @bidir @d2d @peer (default h2d; bandwidthTest's spellings htod, dtoh, dtod
  // too) and @pageable @pinned (default pageable).
  std::vector<Sizes> parse_sizes(const std::string& token) const override {
    std::size_t at = token.find('@');
    Sizes choices;
    transfer_direction_axis().set(choices, std::size_t{0});
    transfer_memory_axis().set(choices, std::size_t{0});
    for (std::size_t i = at; i != std::string::npos;) {
      const std::size_t next = token.find('@', i + 1);
      std::string v = token.substr(i + 1, next == std::string::npos ? std::string::npos : next - i - 1);
      for (auto [alias, dir] : {std::pair{"htod", "h2d"}, {"dtoh", "d2h"}, {"dtod", "d2d"}})
        if (v == alias) v = dir;
      if (!transfer_direction_axis().set(choices, v) && !transfer_memory_axis().set(choices, v))
        throw Error(fmt::format("transfer size '{}': unknown direction or host memory kind '{}' (expected h2d, d2h, "
                                "bidir, d2d, peer, pageable or pinned)",
                                token, v));
      i = next;
    }
    const std::uint64_t host = host_memory_bytes();
    std::vector<Sizes> out;
    for (long long n : parse_int_list(token.substr(0, at), "size")) {
      if (n < 1) throw Error(fmt::format("transfer size bytes = {} is impossible: a copy needs bytes >= 1", n));
      if (host && static_cast<std::uint64_t>(n) > host / kHostCopies)
        throw Error(fmt::format("transfer size bytes = {} needs {} copies of it in host memory, more than the host's "
                                "{} bytes allow",
                                n, kHostCopies, host));
      Sizes s = choices;
      s["bytes"] = n;
      out.push_back(s);
    }
    return out;
  }

  nlohmann::json features(const Sizes& s, std::uint64_t seed) const override {
    auto j = Op::features(s, seed);
    j["direction"] = transfer_direction_axis().value(s);
    j["memory"] = transfer_memory_axis().value(s);
    return j;
  }

  double device_bytes(const Sizes& s, Precision) const override { return 2 * static_cast<double>(s.at("bytes")); }
  std::string device_fit(const Sizes& s, Precision, const DeviceInfo& di) const override {
    const auto bytes = static_cast<std::uint64_t>(s.at("bytes"));
    if (!di.max_alloc || bytes <= di.max_alloc) return "";
    return fmt::format("{} bytes is more than the device's largest allocation of {} bytes", bytes, di.max_alloc);
  }

  std::unique_ptr<Problem> build_problem(const Sizes& s, Precision p, std::uint64_t seed) const override {
    auto prob = new_problem(s, p);
    const auto n = static_cast<std::size_t>(s.at("bytes"));
    ArrayOperand x{"x", false, Access::In, n, 1, {}};
    x.host.resize(n);
    fill_random_bytes(x.host.data(), n, seed, 1);
    prob->arrays.push_back(std::move(x));
    prob->arrays.push_back(output_array("y", n, 1));
    prob->flops = 0;
    const auto dir = transfer_direction_axis().get<Direction>(s);
    prob->min_bytes = static_cast<double>(n) * (dir == Direction::bidir || dir == Direction::d2d ? 2 : 1);
    prob->features = features(s, seed);
    return prob;
  }

  Validation validate(const Problem& prob, const Outputs& out) const override {
    const auto dir = transfer_direction_axis().get<Direction>(prob.sizes);
    const auto& sent = prob.array("x").host;
    Validation v;
    v.bound = "exact: every byte that arrives equals the seeded byte sent";
    auto check = [&](const char* name) {
      const auto& got = output(out, name);
      std::size_t wrong = 0, unwritten = 0;
      for (std::size_t i = 0; i < sent.size(); ++i)
        if (got[i] != sent[i]) ++(got[i] == 0xFF ? unwritten : wrong);
      v.checked += sent.size();
      v.over_bound += wrong;
      v.unwritten += unwritten;
      if (wrong + unwritten) v.max_ratio = INFINITY;
    };
    if (dir == Direction::h2d || dir == Direction::bidir || dir == Direction::d2d) check("y");
    if (dir == Direction::d2h || dir == Direction::bidir) check("host");
    if (dir == Direction::peer) check("peer");
    if (dir == Direction::bidir) v.note = "both directions checked (y on the device, the host buffer)";
    return v;
  }
};

OpRegistrar<TransferOp> registered_transfer;

}  // namespace
}  // namespace hetbench
