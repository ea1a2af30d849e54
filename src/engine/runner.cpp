#include "engine/runner.hpp"

#include <unistd.h>
#include <sys/utsname.h>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <fstream>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "util/ranges.hpp"
#include "engine/report.hpp"
#include "engine/results.hpp"
#include "util/stats.hpp"
#include "hetbench/error.hpp"
#include "hetbench/observer.hpp"
#include "hetbench/variant.hpp"

namespace hetbench {

namespace {

std::atomic<bool> g_interrupted{false};

extern "C" void on_signal(int sig) {
  g_interrupted = true;
  std::signal(sig, SIG_DFL);  // a second signal ends the process at once
}

// One variant with the parameter sets to measure.
struct Plan {
  std::shared_ptr<Variant> variant;
  std::vector<ParamValues> param_sets;
};

struct ResolvedRun {
  const RunSpec* spec;
  const Op* op;
  std::vector<Plan> plans;
  std::vector<std::shared_ptr<Device>> devices;
  std::vector<Sizes> sizes;
};

std::vector<ParamValues> cartesian(const Variant& v, const std::map<std::string, std::vector<long long>>& given) {
  std::vector<ParamValues> sets{ParamValues{}};
  for (const auto& p : v.params) {
    std::vector<long long> vals = given.count(p.name) ? given.at(p.name) : std::vector<long long>{p.def};
    std::vector<ParamValues> next;
    for (const auto& s : sets)
      for (auto x : vals) {
        auto t = s;
        t[p.name] = x;
        next.push_back(std::move(t));
      }
    sets = std::move(next);
  }
  return sets;
}

std::string list_names(const std::vector<std::shared_ptr<Variant>>& vs) {
  std::string s;
  for (const auto& v : vs) s += fmt::format("{}{}", s.empty() ? "" : ", ", v->id());
  return s;
}

ResolvedRun resolve(const RunSpec& spec, std::uint64_t seed) {
  ResolvedRun r;
  r.spec = &spec;
  r.op = &find_op(spec.op);
  auto candidates = variants_for(spec.op);
  std::vector<std::shared_ptr<Variant>> chosen;
  for (const auto& name : spec.variants) {
    if (name == "all") {
      chosen = candidates;
      break;
    }
    bool hit = false;
    for (const auto& v : candidates)
      if (v->name == name || v->id() == name) {
        chosen.push_back(v);
        hit = true;
      }
    if (!hit) throw Error(fmt::format("unknown variant '{}' of {}: available are {}", name, spec.op, list_names(candidates)));
  }
  for (auto p : spec.precisions) {
    auto ps = r.op->precisions();
    if (std::find(ps.begin(), ps.end(), p) == ps.end())
      throw Error(fmt::format("op {} has no {} precision", spec.op, name(p)));
  }
  // A variant named on purpose that has none of the asked precisions is a mistake, not
  // a silent empty run ("all" just skips such variants).
  if (std::find(spec.variants.begin(), spec.variants.end(), "all") == spec.variants.end())
    for (const auto& v : chosen) {
      bool any = false;
      for (auto p : spec.precisions) any |= std::find(v->precisions.begin(), v->precisions.end(), p) != v->precisions.end();
      if (!any) {
        std::string has, asked;
        for (auto p : v->precisions) has += (has.empty() ? "" : ", ") + std::string(name(p));
        for (auto p : spec.precisions) asked += (asked.empty() ? "" : ", ") + std::string(name(p));
        throw Error(fmt::format("variant {} has no {} version (it has {})", v->id(), asked, has));
      }
    }
  r.devices = resolve_devices(spec.devices);
  // Only variants that run on a chosen device count from here on.
  std::erase_if(chosen, [&](const std::shared_ptr<Variant>& v) {
    for (const auto& d : r.devices)
      if (d->kernel_language() == v->backend) return false;
    return true;
  });
  // Parameter values given by the user: each name must belong to a chosen variant and
  // each value must lie in the domain of at least one of them; a variant whose domain
  // lacks a value just leaves it out.
  std::map<std::string, std::vector<long long>> given;
  for (const auto& [pname, list] : spec.params) {
    given[pname] = parse_int_list(list, "parameter " + pname);
    std::vector<const Variant*> owners;
    for (const auto& v : chosen)
      if (v->param(pname)) owners.push_back(v.get());
    if (owners.empty()) throw Error(fmt::format("unknown parameter '{}': no chosen variant of {} has it", pname, spec.op));
    for (auto x : given[pname]) {
      bool somewhere = false;
      for (const auto* v : owners) {
        const auto& vals = v->param(pname)->values;
        somewhere |= std::find(vals.begin(), vals.end(), x) != vals.end();
      }
      if (!somewhere) {
        std::string dom;
        for (const auto* v : owners) {
          std::string vals;
          for (auto y : v->param(pname)->values) vals += fmt::format("{}{}", vals.empty() ? "" : ",", y);
          dom += fmt::format("{}{} ({})", dom.empty() ? "" : "; ", v->id(), vals);
        }
        throw Error(fmt::format("parameter {}={} is outside the domain of {}", pname, x, dom));
      }
    }
  }
  for (const auto& v : chosen) {
    auto sets = cartesian(*v, given);
    std::erase_if(sets, [&](const ParamValues& pv) {
      for (const auto& [k, x] : pv) {
        const auto& vals = v->param(k)->values;
        if (std::find(vals.begin(), vals.end(), x) == vals.end()) return true;
      }
      return false;
    });
    if (!sets.empty()) r.plans.push_back({v, std::move(sets)});
  }
  if (r.plans.empty())
    throw Error(fmt::format("none of the chosen variants of {} runs on the chosen devices ({})", spec.op, spec.devices));
  // Ops with an input (spmv's matrices) take problems from it, the others from --size.
  const std::string kind = r.op->input_kind();
  if (kind.empty() && !spec.inputs.empty())
    throw Error(fmt::format("op {} takes no --matrix ('{}'): give its problems with --size", spec.op, spec.inputs[0]));
  if (!kind.empty() && !spec.sizes.empty())
    throw Error(fmt::format("op {} takes its problems from --{} (a file or gen:NAME:...), not --size '{}'", spec.op,
                            kind, spec.sizes[0]));
  if (kind.empty() && spec.sizes.empty()) throw Error(fmt::format("no size given for {}", spec.op));
  if (!kind.empty() && spec.inputs.empty())
    throw Error(fmt::format("no --{} given for {}: a Matrix Market file or a generator such as gen:poisson3d:n=64",
                            kind, spec.op));
  for (const auto& tok : spec.sizes)
    for (auto& s : r.op->parse_sizes(tok)) r.sizes.push_back(s);
  for (const auto& tok : spec.inputs)
    for (auto& s : r.op->parse_input(tok, seed)) r.sizes.push_back(s);
  if (spec.reps < 1) throw Error(fmt::format("--reps {} is impossible: at least 1 repetition is needed", spec.reps));
  if (spec.warmup < 0) throw Error(fmt::format("--warmup {} is impossible", spec.warmup));
  // Memory, up front: a point that cannot fit is bad input, not a measurement.
  for (const auto& d : r.devices)
    for (const auto& s : r.sizes)
      for (auto p : spec.precisions) {
        auto need = r.op->device_bytes(s, p);
        const auto& di = d->info();
        if (di.global_mem && need > di.global_mem)
          throw Error(fmt::format("{} {} at {} needs {:.3g} GB, more than the {:.3g} GB of {} ({})", spec.op, name(p),
                                  format_sizes(s), need / 1e9, di.global_mem / 1e9, di.id, di.name));
      }
  return r;
}

struct DeviceBuffers {
  BufferMap map;
  std::vector<std::unique_ptr<Buffer>> owned;
  std::vector<std::pair<Buffer*, Buffer*>> restore;  // InOut: (working, pristine)
  std::vector<Buffer*> outputs;
};

DeviceBuffers upload(Device& dev, const Problem& prob) {
  DeviceBuffers b;
  for (const auto& a : prob.arrays) {
    auto buf = dev.alloc(a.bytes());
    if (a.access != Access::Out) buf->upload(a.host.data());
    if (a.access != Access::In) b.outputs.push_back(buf.get());
    if (a.access == Access::InOut) {
      auto pristine = dev.alloc(a.bytes());
      pristine->upload(a.host.data());
      b.restore.emplace_back(buf.get(), pristine.get());
      b.owned.push_back(std::move(pristine));
    }
    b.map[a.name] = buf.get();
    b.owned.push_back(std::move(buf));
  }
  dev.finish();
  return b;
}

void reset_outputs(Device& dev, const Problem& prob, DeviceBuffers& b) {
  for (const auto& a : prob.arrays)
    if (a.access == Access::Out) b.map[a.name]->poison();
  for (auto& [work, pristine] : b.restore) work->copy_from(*pristine);
  dev.finish();
}

Outputs download(Device& dev, const Problem& prob, DeviceBuffers& b) {
  Outputs out;
  for (const auto& a : prob.arrays)
    if (a.access != Access::In) {
      auto& v = out[a.name];
      v.resize(a.bytes());
      b.map[a.name]->download(v.data());
    }
  dev.finish();
  return out;
}

void merge(Validation& into, const Validation& v) {
  into.max_ratio = std::max(into.max_ratio, v.max_ratio);
  into.max_abs_err = std::max(into.max_abs_err, v.max_abs_err);
  into.max_rel_err = std::max(into.max_rel_err, v.max_rel_err);
  into.nan = std::max(into.nan, v.nan);
  into.unwritten = std::max(into.unwritten, v.unwritten);
  into.over_bound = std::max(into.over_bound, v.over_bound);
}

const char* timer_name(const Device& d) {
  const auto b = to_string(d.info().backend);
  return b == "opencl" ? "opencl-profiling-events" : b == "cuda" ? "cuda-events" : "steady_clock";
}

// Measures one point; fills rec. Throws PointError for build/launch/memory failures.
void measure(Device& dev, const Problem& prob, DeviceBuffers& bufs, const Variant& v, const ParamValues& pv,
             const RunSpec& spec, const Op& op, nlohmann::json& rec) {
  auto inst = v.prepare(dev, prob, bufs.map, pv);
  // Host memory for timed downloads, allocated (and touched) before any timing.
  std::map<std::string, std::vector<unsigned char>> sinks;
  if (spec.include_transfers)
    for (const auto& a : prob.arrays)
      if (a.access != Access::In) sinks[a.name].assign(a.bytes(), 0);
  auto run_once = [&] {
    if (spec.include_transfers) {
      for (const auto& a : prob.arrays)
        if (a.access != Access::Out) bufs.map[a.name]->upload(a.host.data());
    }
    inst->run();
    for (auto& [name, sink] : sinks) bufs.map[name]->download(sink.data());
  };
  // First run: validated on its own, so that a wrong kernel is caught before timing.
  reset_outputs(dev, prob, bufs);
  inst->run();
  dev.finish();
  Validation val = op.validate(prob, download(dev, prob, bufs));
  for (int i = 0; i < spec.warmup; ++i) {
    reset_outputs(dev, prob, bufs);
    inst->run();
  }
  dev.finish();
  std::vector<double> samples;
  for (const auto& o : observers()) o->begin(dev, prob);
  for (int i = 0; i < spec.reps && !g_interrupted; ++i) {
    reset_outputs(dev, prob, bufs);
    samples.push_back(dev.time(run_once));
  }
  // The last timed run is validated too: a race shows up as a result that changes.
  merge(val, op.validate(prob, download(dev, prob, bufs)));
  Stats st = compute_stats(samples);
  rec["timing"] = {{"timed", spec.include_transfers ? "kernel+transfers" : "kernel"},
                   {"timer", timer_name(dev)},
                   {"warmup", spec.warmup},
                   {"reps", samples.size()},
                   {"rate_from", "median"},
                   {"seconds", to_json(st)}};
  if (st.median > 0) {
    rec["gflops"] = prob.flops / st.median * 1e-9;
    rec["gbs"] = prob.min_bytes / st.median * 1e-9;
  }
  for (const auto& o : observers()) o->end(dev, prob, st.median, samples.size(), rec, run_once);
  rec["validation"] = to_json(val);
  rec["status"] = val.passed() ? "ok" : "failed";
  if (!val.passed())
    rec["message"] = fmt::format("validation failed: max error/bound {:.3g}, {} NaN, {} unwritten, {} over the bound",
                                 val.max_ratio, val.nan, val.unwritten, val.over_bound);
}

nlohmann::json host_json() {
  utsname u{};
  uname(&u);
  std::string os = fmt::format("{} {} {}", u.sysname, u.release, u.machine);
  std::ifstream rel("/etc/os-release");
  std::string line;
  while (std::getline(rel, line))
    if (line.rfind("PRETTY_NAME=", 0) == 0) {
      os = line.substr(12);
      os.erase(std::remove(os.begin(), os.end(), '"'), os.end());
      os += fmt::format(" ({} {})", u.release, u.machine);
    }
  return {{"hostname", u.nodename}, {"os", os}};
}

}  // namespace

namespace {
std::vector<std::shared_ptr<PointObserver>>& observer_list() {
  static std::vector<std::shared_ptr<PointObserver>> all;
  return all;
}
}  // namespace

void register_observer(std::shared_ptr<PointObserver> o) { observer_list().push_back(std::move(o)); }

const std::vector<std::shared_ptr<PointObserver>>& observers() { return observer_list(); }

nlohmann::json to_json(const RunSpec& r) {
  std::vector<std::string> precs;
  for (auto p : r.precisions) precs.push_back(name(p));
  nlohmann::json j = {{"op", r.op},       {"variants", r.variants}, {"devices", r.devices}, {"precisions", precs},
                      {"sizes", r.sizes}, {"params", r.params},     {"reps", r.reps},       {"warmup", r.warmup},
                      {"include_transfers", r.include_transfers}};
  if (!r.inputs.empty()) j["matrices"] = r.inputs;
  return j;
}

int run_experiment(const Experiment& e, std::filesystem::path* dir) {
  std::vector<ResolvedRun> runs;
  for (const auto& r : e.runs) runs.push_back(resolve(r, e.seed));

  nlohmann::json devices = nlohmann::json::array();
  std::vector<std::string> seen;
  for (const auto& r : runs)
    for (const auto& d : r.devices)
      if (std::find(seen.begin(), seen.end(), d->id()) == seen.end()) {
        seen.push_back(d->id());
        devices.push_back(to_json(d->info()));
      }
  nlohmann::json runs_json = nlohmann::json::array();
  for (const auto& r : e.runs) runs_json.push_back(to_json(r));
  nlohmann::json exp = {{"hetbench_version", HETBENCH_VERSION},
                        {"git_commit", HETBENCH_GIT_COMMIT},
                        {"command_line", e.command_line},
                        {"name", e.name},
                        {"spec", e.spec},
                        {"runs", runs_json},
                        {"seed", e.seed},
                        {"host", host_json()},
                        {"compiler", HETBENCH_COMPILER},
                        {"devices", devices},
                        {"start_time", now_iso8601()},
                        {"status", "running"}};
  ExperimentWriter writer(e.out_root, e.name, exp);
  if (dir) *dir = writer.dir();
  fmt::print(stderr, "hetbench: recording in {}\n", writer.dir().string());

  g_interrupted = false;
  auto old_int = std::signal(SIGINT, on_signal);
  auto old_term = std::signal(SIGTERM, on_signal);

  std::vector<nlohmann::json> records;
  std::set<std::string> said_skip;
  int point = 0, failed = 0, errors = 0;
  for (const auto& r : runs) {
    for (auto prec : r.spec->precisions) {
      for (const auto& sizes : r.sizes) {
        if (g_interrupted) break;
        std::unique_ptr<Problem> prob;
        for (const auto& dev : r.devices) {
          if (g_interrupted) break;
          std::unique_ptr<DeviceBuffers> bufs;
          std::string buf_error;
          for (const auto& plan : r.plans) {
            const auto& v = *plan.variant;
            if (v.backend != dev->kernel_language()) continue;
            if (auto why = v.unsupported_reason(*dev, prec); !why.empty()) {
              // Once per variant, device and precision, not once per size.
              if (said_skip.insert(v.id() + "|" + dev->id() + "|" + name(prec)).second)
                fmt::print(stderr, "hetbench: skipping {} on {} in {}: {}\n", v.id(), dev->id(), name(prec), why);
              continue;
            }
            for (const auto& pv : plan.param_sets) {
              if (g_interrupted) break;
              nlohmann::json rec = {{"point", point++},          {"op", r.op->name()},
                                    {"variant", v.name},         {"variant_id", v.id()},
                                    {"kind", v.kind},            {"backend", v.backend},
                                    {"device", dev->id()},       {"device_name", dev->info().name},
                                    {"precision", name(prec)},   {"sizes", sizes},
                                    {"params", pv},              {"seed", e.seed},
                                    {"time", now_iso8601()}};
              try {
                if (auto c = v.violated_constraint(*dev, sizes, prec, pv); !c.empty()) {
                  rec["status"] = "skipped";
                  rec["message"] = c;
                } else {
                  if (!prob) {
                    prob = r.op->make_problem(sizes, prec, e.seed);
                  }
                  if (!bufs && buf_error.empty()) {
                    try {
                      bufs = std::make_unique<DeviceBuffers>(upload(*dev, *prob));
                    } catch (const PointError& pe) {
                      buf_error = pe.what();
                    }
                  }
                  if (!buf_error.empty()) throw PointError(buf_error);
                  rec["flops"] = prob->flops;
                  rec["min_bytes"] = prob->min_bytes;
                  if (!prob->features.empty()) rec["features"] = prob->features;
                  measure(*dev, *prob, *bufs, v, pv, *r.spec, *r.op, rec);
                }
              } catch (const PointError& pe) {
                rec["status"] = "error";
                rec["message"] = pe.what();
              }
              const std::string status = rec["status"];
              if (status == "failed") ++failed;
              if (status == "error") ++errors;
              writer.append(rec);
              print_progress(rec);
              records.push_back(std::move(rec));
            }
          }
        }
      }
    }
  }
  std::signal(SIGINT, old_int);
  std::signal(SIGTERM, old_term);

  const bool interrupted = g_interrupted;
  writer.finish({{"status", interrupted ? "interrupted" : "complete"},
                 {"points", records.size()},
                 {"failed", failed},
                 {"errors", errors}});
  print_report(records, e.format, e.best_only);
  fmt::print(stderr, "hetbench: {} points, {} failed validation, {} errors{}; results in {}\n", records.size(), failed,
             errors, interrupted ? ", interrupted" : "", writer.dir().string());
  if (interrupted) return 130;
  return failed || errors ? 1 : 0;
}

}  // namespace hetbench
