#include "compare/context.hpp"

#include <fmt/format.h>

#include <set>

#include "engine/record/provenance.hpp"
#include "util/build_info.hpp"

namespace hetbench {

namespace {

std::string text(const nlohmann::json& v) {
  if (v.is_null()) return "(none)";
  return v.is_string() ? v.get<std::string>() : v.dump();
}

}  // namespace

std::string to_string(const ContextDifference& d) {
  if (d.unknown) return fmt::format("{}: not recorded (now {})", d.what, d.now);
  return fmt::format("{}: recorded {}, now {}", d.what, d.recorded, d.now);
}

nlohmann::json to_json(const ContextDifference& d) {
  nlohmann::json j = {{"what", d.what}, {"now", d.now}};
  j["recorded"] = d.unknown ? nlohmann::json(nullptr) : nlohmann::json(d.recorded);
  return j;
}

void json_differences(const std::string& prefix, const nlohmann::json& recorded, const nlohmann::json& now,
                      std::vector<ContextDifference>& out) {
  if (!recorded.is_object() || !now.is_object()) {
    if (recorded != now) out.push_back({prefix, text(recorded), text(now)});
    return;
  }
  std::set<std::string> keys;
  for (auto it = recorded.begin(); it != recorded.end(); ++it) keys.insert(it.key());
  for (auto it = now.begin(); it != now.end(); ++it) keys.insert(it.key());
  for (const auto& k : keys) {
    const auto r = recorded.value(k, nlohmann::json()), n = now.value(k, nlohmann::json());
    if (r.is_object() && n.is_object())
      json_differences(prefix + k + ".", r, n, out);
    else if (r != n)
      out.push_back({prefix + k, text(r), text(n)});
  }
}

std::vector<ContextDifference> build_differences(const nlohmann::json& e) {
  std::vector<ContextDifference> out;
  const nlohmann::json now = {{"git_commit", git_commit()},
                              {"hetbench_version", HETBENCH_VERSION},
                              {"compiler", HETBENCH_COMPILER},
                              {"host", host_json()}};
  for (auto it = now.begin(); it != now.end(); ++it) {
    if (!e.contains(it.key()))
      out.push_back({it.key(), "", text(it.value()), true});
    else if (it.value().is_object())
      json_differences(it.key() + ".", e[it.key()], it.value(), out);
    else if (e[it.key()] != it.value())
      out.push_back({it.key(), text(e[it.key()]), text(it.value())});
  }
  return out;
}

}  // namespace hetbench
