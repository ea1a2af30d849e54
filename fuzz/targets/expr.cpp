// Size and parameter expressions: Expr itself, the integer lists of --size and --param
// (and a metadata "range"), and every op's --size token parser.
#include <cmath>
#include <string>

#include <stdexcept>

#include "hetbench/device.hpp"
#include "hetbench/error.hpp"
#include "hetbench/expr.hpp"
#include "hetbench/op.hpp"
#include "targets/targets.hpp"
#include "util/ranges.hpp"

namespace hetbench::fuzz {

void expr(std::string_view data) {
  const std::string text(data);
  try {
    Expr e(text);
    // Names metadata expressions commonly use; others stay unknown (an Error).
    const Vars vars{{"n", 1000}, {"m", 512}, {"k", 64}, {"WG", 128}, {"TS", 16}, {"max_wg", 1024}, {"x", -3.5}};
    (void)e.eval(vars);
    (void)eval_int(e, vars);
  } catch (const Error&) {
  }
  std::size_t values = 0;
  try {
    values = parse_int_list(text, "parameter WG").size();
  } catch (const Error&) {
  }
  // A list of many values ("1:99999:1") is the same list to every op, and building a
  // size map per value and op would slow the whole run down a hundredfold.
  if (values > 1000) return;
  // What the plan asks of each size before anything is allocated (sizes near 2^64 must be
  // refused, never wrap around), and what any launch of those dimensions may ask.
  DeviceInfo dev;
  dev.id = "fuzz";
  dev.global_mem = dev.max_alloc = 1ull << 34;
  dev.max_wg = 1024;
  for (const Op* op : all_ops()) {
    try {
      for (const auto& s : op->parse_sizes(text)) {
        Dims dims;
        for (const auto& [k, v] : s) {
          if (dims.size() < 3) dims.push_back(static_cast<std::size_t>(v));
          (void)buffer_misfit(dev, static_cast<double>(v) * 8);
        }
        if (!dims.empty()) (void)launch_misfit(dev, dims, Dims(dims.size(), 64));
        for (auto p : op->precisions()) {
          const double need = op->device_bytes(s, p);
          if (!(need >= 0)) throw std::logic_error("device_bytes is negative or NaN");
          (void)op->device_fit(s, p, dev);
        }
      }
    } catch (const Error&) {
    }
  }
}

}  // namespace hetbench::fuzz
