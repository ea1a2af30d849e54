#include "tuning/gemm_model_fit.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iterator>
#include <limits>
#include <map>
#include <random>
#include <tuple>

#include <fmt/format.h>

#include "hetbench/error.hpp"
#include "hetbench/variant.hpp"

namespace hetbench::gemm_model {

namespace {

std::shared_ptr<Variant> cuda_gemm_variant(const std::string& name) {
  for (const auto& v : all_variants())
    if (v->backend == BackendKind::Cuda && v->op == "gemm" && v->name == name) return v;
  return nullptr;
}

// The device fields a calibration file fixes; the constants come from the fit.
ModelDevice with_device_of(const ModelDevice& constants, const ModelDevice& measured_on) {
  ModelDevice d = constants;
  d.sms = measured_on.sms;
  d.clock_hz = measured_on.clock_hz;
  d.smem_per_sm = measured_on.smem_per_sm;
  return d;
}

}  // namespace

CalibrationSet read_calibration(const std::string& path) {
  std::ifstream f(path);
  if (!f) throw Error(fmt::format("'{}': cannot open the calibration file", path));
  nlohmann::json data;
  try {
    data = nlohmann::json::parse(f);
  } catch (const nlohmann::json::exception& e) {
    throw Error(fmt::format("'{}': not JSON ({})", path, e.what()));
  }
  CalibrationSet set;
  set.name = path.substr(path.find_last_of('/') + 1);
  try {
    const auto& dev = data.at("device");
    DeviceInfo info;
    info.compute_units = dev.at("compute_units").get<int>();
    info.max_clock_mhz = dev.at("max_clock_mhz").get<int>();
    info.local_mem_launch = dev.value("local_mem_launch", 0ull);
    set.device = ModelDevice::of(info);
    using Key = std::tuple<std::string, std::string, long long, long long, long long, int, int>;
    std::map<Key, CalibrationSet::Problem> groups;
    for (const auto& p : data.at("points")) {
      const std::string variant = p.at("variant");
      if (variant == "cublas") continue;
      const std::string prec = p.at("precision");
      const Key key{prec, variant, p.at("m"), p.at("n"), p.at("k"), p.value("ta", 0), p.value("tb", 0)};
      auto [it, fresh] = groups.try_emplace(key);
      auto& problem = it->second;
      if (fresh) {
        const auto v = cuda_gemm_variant(variant);
        if (!v) throw Error(fmt::format("'{}': no CUDA gemm variant '{}' in this build", path, variant));
        const Precision pr = prec == "S" ? Precision::S : Precision::D;
        const auto& [_p, _v, m, n, k, ta, tb] = key;
        problem.shape = GemmShape{static_cast<double>(m), static_cast<double>(n), static_cast<double>(k),
                                  pr == Precision::S ? 4 : 8, true, ta != 0, tb != 0};
        problem.fma_per_clock = fma_per_clock(*v, pr);
        problem.label = fmt::format("{} {} {}x{}x{}@{}{}", prec, variant, m, n, k, ta ? 'T' : 'N', tb ? 'T' : 'N');
      }
      CalibrationSet::Config c;
      for (auto pit = p.at("params").begin(); pit != p.at("params").end(); ++pit)
        c.values[pit.key()] = pit.value().get<long long>();
      // Points measured in different runs compare by their ratio to cuBLAS in their own run.
      c.rate = p.contains("vs_cublas") ? p["vs_cublas"].get<double>() : p.at("gflops").get<double>();
      problem.configs.push_back(std::move(c));
    }
    for (auto& [key, problem] : groups) set.problems.push_back(std::move(problem));
  } catch (const nlohmann::json::exception& e) {
    throw Error(fmt::format("'{}': {}", path, e.what()));
  }
  return set;
}

PickQuality picks_on(const CalibrationSet& set, const ModelDevice& constants) {
  const ModelDevice md = with_device_of(constants, set.device);
  PickQuality q;
  double log_sum = 0, spread_sum = 0;
  for (const auto& problem : set.problems) {
    std::vector<ModelChoice> choices;
    std::vector<double> rates;
    double best = 0;
    choices.reserve(problem.configs.size());
    std::vector<double> choices_by_config;
    double fastest = std::numeric_limits<double>::infinity();
    for (const auto& c : problem.configs) {
      choices.push_back({c.values, predict_gemm(c.values, problem.shape, md, problem.fma_per_clock)});
      // A configuration that would spill counts as ten times the fastest.
      choices_by_config.push_back(choices.back().predicted.seconds);
      if (std::isfinite(choices_by_config.back())) fastest = std::min(fastest, choices_by_config.back());
      best = std::max(best, c.rate);
    }
    for (double& t : choices_by_config) t = std::isfinite(t) ? t : 10 * fastest;
    std::stable_sort(choices.begin(), choices.end(),
                     [](const ModelChoice& a, const ModelChoice& b) { return a.predicted.seconds < b.predicted.seconds; });
    prefer_fewer_slices_among_ties(choices);
    const auto& pick = choices.front().values;
    double rate = 0;
    for (const auto& c : problem.configs)
      if (c.values == pick) rate = std::max(rate, c.rate);
    const double ratio = rate / best;
    log_sum += std::log(ratio);
    double sq = 0;
    for (std::size_t i = 0; i < problem.configs.size(); ++i) {
      const double pred = std::log(choices_by_config[i] / fastest), meas = std::log(best / problem.configs[i].rate);
      sq += (pred - meas) * (pred - meas);
    }
    spread_sum += sq / static_cast<double>(problem.configs.size());
    q.worst = std::min(q.worst, ratio);
    q.report += fmt::format("{}: {:.3f} ({})\n", problem.label, ratio, format_params(pick));
  }
  q.problems = set.problems.size();
  q.geomean = std::exp(log_sum / static_cast<double>(std::max<std::size_t>(1, q.problems)));
  q.spread_error = spread_sum / static_cast<double>(std::max<std::size_t>(1, q.problems));
  return q;
}

namespace {

// The constants the fit varies, each with its field: the one list the names and the search
// both read.
struct FittedConstant {
  const char* name;
  double ModelDevice::*field;
};
constexpr FittedConstant kFitted[] = {
    {"l2_bytes_per_clock", &ModelDevice::l2_bytes_per_clock},
    {"block_fixed_clocks", &ModelDevice::block_fixed_clocks},
    {"warps_to_hide", &ModelDevice::warps_to_hide},
    {"hiding_exponent", &ModelDevice::hiding_exponent},
    {"sustained", &ModelDevice::sustained},
    {"step_clocks", &ModelDevice::step_clocks},
    {"mma_fragment_slots", &ModelDevice::mma_fragment_slots},
    {"transposed_slot_slots", &ModelDevice::transposed_slot_slots},
    {"element_slots", &ModelDevice::element_slots},
    {"scalar_slot_slots", &ModelDevice::scalar_slot_slots},
};

}  // namespace

std::vector<std::string> fitted_constants() {
  std::vector<std::string> names;
  for (const auto& c : kFitted) names.emplace_back(c.name);
  return names;
}

double& constant(ModelDevice& d, const std::string& name) {
  for (const auto& c : kFitted)
    if (name == c.name) return d.*c.field;
  throw Error(fmt::format("'{}': not a fitted constant of the GEMM shape model (one of {})", name,
                          fmt::join(fitted_constants(), ", ")));
}

double fit_objective(const std::vector<PickQuality>& q) {
  double sum = 0;
  for (const auto& x : q)
    sum += std::log(std::max(x.geomean, 1e-9)) + std::log(std::max(x.worst, 1e-9)) - x.spread_error / 20;
  return sum;
}

namespace {
constexpr double kMaxL2BytesPerClock = 64;

// The search moves in the four significant digits the constants are written with
// (tools/gemm_model_fit prints them so): the picks change in steps, and constants rounded
// after the search could pick otherwise than the search saw.
double four_digits(double x) {
  if (x == 0 || !std::isfinite(x)) return x;
  const double scale = std::pow(10.0, 3 - std::floor(std::log10(std::fabs(x))));
  return std::round(x * scale) / scale;
}
}  // namespace

bool plausible(const ModelDevice& d) {
  // A 16-byte slot of four floats on the element path (four loads, four stores) costs at
  // least a quarter more than the vector path's one load and four transposed stores (or
  // odd k would predict as fast as even k), and the scalar path (four loads, one store) no
  // more than the element path: the copy costs the fit may trade keep the order the
  // instructions have. An SM's share of the L2 stays under what one SM can take in (64
  // bytes a clock on Hopper): above it the feed term would drop out of the model rather
  // than be fitted.
  return d.element_slots * 4 >= 1.25 * d.transposed_slot_slots && d.scalar_slot_slots <= d.element_slots * 4 &&
         d.sustained > 0 && d.sustained <= 1 && d.l2_bytes_per_clock <= kMaxL2BytesPerClock;
}

FitResult fit_constants(const std::vector<CalibrationSet>& sets, const ModelDevice& start, int steps,
                        std::uint64_t seed) {
  auto evaluate = [&](const ModelDevice& d) {
    FitResult r;
    r.constants = d;
    for (const auto& s : sets) r.quality.push_back(picks_on(s, d));
    r.objective = fit_objective(r.quality);
    return r;
  };
  FitResult best = evaluate(start);
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::size_t> which(0, std::size(kFitted) - 1);
  std::uniform_int_distribution<int> how_many(1, 3);
  for (int step = 0; step < steps; ++step) {
    // The spread shrinks from a factor of about 1.5 to about 1.02 over the search.
    const double spread = 0.4 * std::pow(0.05, static_cast<double>(step) / std::max(1, steps));
    std::normal_distribution<double> factor(0, spread);
    ModelDevice trial = best.constants;
    for (int i = how_many(rng); i > 0; --i) {
      double& c = trial.*kFitted[which(rng)].field;  // drawn before its factor: a seed's search stays as it was
      c = four_digits(c * std::exp(factor(rng)));
    }
    trial.sustained = std::min(trial.sustained, 1.0);  // a share of the peak
    if (!plausible(trial)) continue;
    auto r = evaluate(trial);
    if (r.objective >= best.objective) best = std::move(r);
  }
  return best;
}

}  // namespace hetbench::gemm_model
