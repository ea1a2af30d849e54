// hetbench list [ops|variants|generators] [--op OP]: what can run.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli/commands.hpp"
#include "hetbench/error.hpp"
#include "hetbench/variant.hpp"
#include "sparse/generators.hpp"

namespace hetbench::cli {

namespace {

int show(const std::string& what, const std::string& op_filter) {
  if (what != "ops" && what != "variants" && what != "generators" && what != "all")
    throw Error(fmt::format("unknown list '{}': expected ops, variants or generators", what));
  if (!op_filter.empty()) find_op(op_filter);
  if (what == "generators" || what == "all") {
    fmt::print("matrix generators (spmv --matrix gen:NAME:k=v,...; also any Matrix Market .mtx file):\n");
    for (const auto& g : generator_infos()) fmt::print("  {:<40} {}\n", g.usage, g.description);
    if (what == "generators") return 0;
  }
  if (what != "variants") {
    all_variants();  // the ops that kernel metadata declares (ops/declared_op.hpp) exist once it is read
    fmt::print("ops:\n");
    for (const auto* op : all_ops()) {
      std::string precs;
      for (auto p : op->precisions()) precs += (precs.empty() ? "" : ",") + std::string(name(p));
      fmt::print("  {:<6} {} [{}]\n", op->name(), op->description(), precs);
      const OpSignature& sig = op->signature();
      std::vector<std::string> axes, operands;
      for (const auto& a : sig.axes)
        axes.push_back(a.kind == Axis::Kind::Dimension ? a.name : fmt::format("{}={}", a.name, fmt::join(a.values, "|")));
      for (const auto& o : sig.operands)
        operands.push_back(fmt::format("{}{}{}", o.name, o.elem == Elem::Int ? ":int" : "",
                                       o.access == Access::Out ? " (out)" : o.access == Access::InOut ? " (inout)" : ""));
      fmt::print("  {:<6}   axes: {}\n  {:<6}   operands: {}\n", "", fmt::join(axes, ", "), "", fmt::join(operands, ", "));
    }
  }
  if (what != "ops") {
    fmt::print("variants:\n");
    for (const auto& v : all_variants()) {
      if (!op_filter.empty() && v->op != op_filter) continue;
      std::string precs, params;
      for (auto p : v->precisions) precs += (precs.empty() ? "" : ",") + std::string(name(p));
      for (const auto& p : v->params) {
        const std::string vals = fmt::format("{}", fmt::join(p.values, ","));
        std::string def = std::to_string(p.def);
        if (!p.def_by_precision.empty()) {  // per precision: "S:64,D:128"
          def.clear();
          for (const auto& [pr, x] : p.def_by_precision) def += fmt::format("{}{}:{}", def.empty() ? "" : ",", name(pr), x);
        }
        params += fmt::format(" {}={{{}}} default {}", p.name, vals, def);
      }
      fmt::print("  {:<22} {:<7} [{}] {}{}\n", v->id(), to_string(v->kind), precs, v->description,
                 v->required_ext.empty() ? "" : " (needs " + fmt::format("{}", fmt::join(v->required_ext, ", ")) + ")");
      if (!params.empty()) fmt::print("  {:<22}   params:{}\n", "", params);
    }
    for (const auto& [id, why] : missing_baselines())
      if (op_filter.empty() || id.find("/" + op_filter + "/") != std::string::npos)
        fmt::print("  {:<22} left out: {}\n", id, why);
  }
  return 0;
}

}  // namespace

Command add_list(CLI::App& app) {
  auto* sub = app.add_subcommand("list", "list ops and variants");
  auto what = std::make_shared<std::string>("all");
  auto op = std::make_shared<std::string>();
  sub->add_option("what", *what, "ops, variants or generators");
  sub->add_option("--op", *op, "only this op's variants");
  return {sub, [what, op] { return show(*what, *op); }};
}

}  // namespace hetbench::cli
