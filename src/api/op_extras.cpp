#include "hetbench/op_extras.hpp"

#include <map>

namespace hetbench {

namespace {
std::map<std::string, OpExtras>& extras() {
  static std::map<std::string, OpExtras> m;
  return m;
}
}  // namespace

void register_op_extras(const std::string& op, OpExtras e) { extras()[op] = std::move(e); }

const OpExtras* op_extras(const std::string& op) {
  auto it = extras().find(op);
  return it == extras().end() ? nullptr : &it->second;
}

}  // namespace hetbench
