// What some ops say beyond the Op interface, registered beside the op (a side registry
// rather than new Op virtuals, so that ops without them need nothing): the baseline a
// point's time is compared with (engine/measure/relative_time.cpp).
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>

#include "hetbench/op.hpp"
#include "hetbench/variant.hpp"

namespace hetbench {

// A point timed against another point of the same run: the record field (t / t_baseline),
// the group of points compared (the sizes and parameters that must match, as text) and
// whether this point is the group's baseline.
struct RelativeTime {
  std::string field;
  std::string group;
  bool baseline = false;
};

struct OpExtras {
  std::function<std::optional<RelativeTime>(const Sizes&, const ParamValues&)> relative_time;
};

void register_op_extras(const std::string& op, OpExtras extras);
const OpExtras* op_extras(const std::string& op);  // null when the op registered none

struct OpExtrasRegistrar {
  OpExtrasRegistrar(const std::string& op, OpExtras extras) { register_op_extras(op, std::move(extras)); }
};

}  // namespace hetbench
