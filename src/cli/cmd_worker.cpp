// hetbench __worker: the process a sweep measures its points in (engine/measure/isolated_executor);
// hidden from --help, started by hetbench itself with its end of the link on fd 3.
#include <cmath>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "engine/measure/point_executor.hpp"
#include "engine/measure/worker_process.hpp"
#include "hetbench/error.hpp"

namespace hetbench::cli {

Command add_worker(CLI::App& app) {
  auto* sub = app.add_subcommand("__worker", "");
  sub->group("");
  return {sub, [] { return run_worker(kWorkerFd); }};
}

void add_isolation(CLI::App* sub, Isolation& iso, bool by_default) {
  iso.on = by_default;
  sub->add_flag("--isolate,!--no-isolate", iso.on,
                fmt::format("each point in a worker process per device, so that a crash or a hang costs that point "
                            "only (default: {})", by_default ? "on" : "off"));
  sub->add_option("--point-timeout", iso.timeout,
                  "seconds a point's kernel runs may take before its worker process is killed and the point recorded "
                  "as timeout; implies --isolate (default: from the point's expected time, at least 30)");
  sub->add_option("--lock-clocks", iso.lock_clocks,
                  "lock the SM clock of every NVIDIA GPU used at max, base or MHz for the experiment and give it back "
                  "at its end (NVML; root or a driver that allows it)");
}

void Isolation::apply(const CLI::App* sub, Experiment& e) const {
  e.isolate = on;
  e.lock_clocks = lock_clocks;
  std::string needs;  // the first option given that only a worker process can honour
  if (sub->count("--point-timeout")) {
    if (!(timeout > 0) || !std::isfinite(timeout))
      throw Error(fmt::format("--point-timeout {} is impossible: expected a positive number of seconds", timeout));
    e.point_timeout = timeout;
    needs = fmt::format("--point-timeout {}", timeout);  // a point past its limit needs a process to kill
  }
  for (const auto& r : e.runs)
    if (needs.empty() && r.executions > 1) needs = fmt::format("--executions {}", r.executions);  // processes
  if (on || needs.empty()) return;
  // An option that means a worker process turns isolation on, said once, unless isolation
  // was turned off by name: then the two are refused (docs/isolation.md). None is ignored.
  if (sub->count("--isolate"))
    throw Error(fmt::format("{} needs isolation (worker processes), and --no-isolate turns it off: drop one of them",
                            needs));
  fmt::print(stderr, "hetbench: {} implies --isolate (it needs worker processes)\n", needs.substr(0, needs.find(' ')));
  e.isolate = true;
}

}  // namespace hetbench::cli
