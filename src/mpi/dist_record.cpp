// The experiment folder of `hetbench dist` (docs/mpi.md): rank 0 writes experiment.json
// and one record in results.jsonl, as `run` and `solve` do, so that compare, report and the
// store read distributed runs like any other (and scripts/scaling-model reads them).
#include <set>

#include <fmt/format.h>

#include "engine/record/provenance.hpp"
#include "engine/record/results.hpp"
#include "engine/record/session.hpp"
#include "mpi/dist_ops.hpp"

namespace hetbench::mpi {

std::string record_distributed(const DistOptions& o, const nlohmann::json& summary, const DeviceInfo& dev) {
  std::set<std::string> hosts;
  nlohmann::json devices = nlohmann::json::array();
  for (const auto& r : summary["per_rank"]) {
    hosts.insert(r["host"].get<std::string>());
    devices.push_back(r["device"]);
  }
  const int ranks = summary["ranks"].get<int>();
  const nlohmann::json mpi = {{"ranks", ranks}, {"hosts", hosts}, {"devices", devices}};
  nlohmann::json spec = {{"op", o.op}, {"precision", name(o.prec)}, {"device", o.device}};
  if (o.matrix.empty()) spec["n"] = o.n;
  else spec["matrix"] = o.matrix;
  if (is_solver(o.op)) {
    spec["tol"] = o.tol;
    spec["max_iter"] = o.max_iter;
    spec["preconditioner"] = o.jacobi ? "jacobi" : "none";
    spec["transport"] = o.transport;
  } else {
    spec["reps"] = o.reps;
  }
  const std::string name = o.name.empty() ? "dist-" + o.op : o.name;
  auto head = experiment_header(name, o.command_line, o.seed, nlohmann::json::array({to_json(dev)}));
  head["kind"] = "dist";
  head["dist"] = spec;
  head["mpi"] = mpi;
  const auto session = ExperimentSession::create(o.out_root, name, std::move(head));
  auto& w = session->writer();
  nlohmann::json r = summary;
  r["point"] = 0;
  r["op"] = "dist_" + o.op;
  r["variant"] = o.variant.empty() ? "hetbench" : o.variant;
  r["variant_id"] = fmt::format("{}/dist_{}/{}", to_string(dev.backend), o.op, r["variant"].get<std::string>());
  r["kind"] = "kernel";
  r["params"] = {{"ranks", ranks}};
  r["mpi"] = mpi;
  r["device"] = dev.id;
  r["device_name"] = dev.name;
  r["backend"] = to_string(dev.backend);
  if (!r.contains("sizes")) r["sizes"] = o.matrix.empty() ? nlohmann::json{{"n", o.n}} : nlohmann::json{{"input", o.matrix}};
  double median = 0;
  if (is_solver(o.op)) {
    median = r["seconds"].get<double>();
    r["timing"] = {{"samples", {median}}, {"seconds", {{"median", median}}}};
  } else {
    median = r["timing"]["median_s"].get<double>();
    r["dist_timing"] = r["timing"];
    r["timing"] = {{"samples", r["dist_timing"]["samples"]}, {"seconds", {{"median", median}}}};
    r["status"] = r["validation"]["passed"].get<bool>() ? "ok" : "failed";
  }
  w.append(r);
  const bool ok = r["status"] == "ok";
  w.finish({{"status", "complete"}, {"points", 1}, {"failed", ok ? 0 : 1}, {"errors", r["status"] == "error" ? 1 : 0}});
  return w.dir().string();
}

}  // namespace hetbench::mpi
